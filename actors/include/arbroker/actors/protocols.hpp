#pragma once

// The engine's actors as types: every atom, and the CAF typed_actor interface of the GIS,
// the cluster services, the broker and its coordinators. The compiler checks every send and
// request against these; a reader follows a message by its type. How the actors are wired
// together: docs/architecture.md.

#include <caf/all.hpp>
#include <cstdint>
#include <vector>

#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/coallocation_protocol.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"
#include "arbroker/messages/job_protocol.hpp"
#include "arbroker/messages/tags.hpp"

// In-process only (core values inside; never serialized): lets CAF carry them.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(arbroker::msg::checked_elastic_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(arbroker::msg::checked_coreservation_request)

namespace arbroker {

// -- atoms ------------------------------------------------------------------------------------

/// A cluster service's timer: holds are due to expire.
using expire_atom = caf::atom_constant<caf::atom("expire")>;
/// The journal to a cluster service: its writes up to a ticket are durable (or, with a
/// message, never will be); the replies that waited for them may go. To a coordinator: a
/// commit decision it waits for (by its own key) is durable, or never will be.
using durable_atom = caf::atom_constant<caf::atom("durable")>;
/// A cluster announces itself to the GIS.
using register_atom = caf::atom_constant<caf::atom("register")>;
/// A deadline passed: the broker's timer, and the broker telling a coordinator.
using timeout_atom = caf::atom_constant<caf::atom("timeout")>;
/// Asks the GIS for its directory now and after every change.
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
/// The GIS's directory, whole.
using directory_atom = caf::atom_constant<caf::atom("directory")>;
/// A coordinator to itself: send the calls collected since the last flush.
using flush_atom = caf::atom_constant<caf::atom("flush")>;

// -- cluster reservation service (cluster_service.hpp, cluster_service_actor.hpp) ------------

/// What a client does with its reservations by id (owner-checked: another user's
/// reservation answers not_found, like a missing one): the broker's operations, which it
/// routes to the reservation's cluster service.
using reservation_operations =
    caf::typed_actor<caf::replies_to<msg::commit_request>::with<msg::query_reply>,
                     caf::replies_to<msg::cancel_request>::with<msg::ack_reply>,
                     caf::replies_to<msg::modify_request>::with<msg::query_reply>,
                     caf::replies_to<msg::query_request>::with<msg::query_reply>,
                     caf::replies_to<msg::bind_job_request>::with<msg::bind_job_reply>,
                     caf::replies_to<msg::bound_job_query_request>::with<msg::bound_job_reply>,
                     caf::replies_to<msg::bound_job_cancel_request>::with<msg::bound_job_reply>,
                     caf::replies_to<msg::list_request>::with<msg::list_reply>>;

/// One cluster's reservation service, in two dialects. The engine's own parts call it
/// tagged, `(call_tag, request)`, and it answers `(call_tag, reply)` as an ordinary message,
/// every caller the same way (actors/src/service_calls.hpp): the probes (always in batches:
/// a coordinator sends a service the probes of all its requests at once), the match advice,
/// the two phases of a transaction, and the grid-job manager's jobs. Clients' operations on
/// their reservations (which the broker routes here, or the grid-job manager makes for a
/// job's owner), the estimates and the status are plain requests.
using cluster_service_actor = caf::typed_actor<
    caf::replies_to<msg::call_tag, msg::probe_batch_request>::with<msg::call_tag,
                                                                   msg::probe_batch_reply>,
    caf::replies_to<msg::call_tag, msg::busy_hint_request>::with<msg::call_tag,
                                                                 msg::busy_hint_reply>,
    caf::replies_to<msg::call_tag, msg::advice_request>::with<msg::call_tag, msg::advice_reply>,
    caf::replies_to<msg::call_tag, msg::prepare_request>::with<msg::call_tag, msg::prepare_reply>,
    caf::replies_to<msg::call_tag, msg::commit_txn_request>::with<msg::call_tag, msg::ack_reply>,
    caf::replies_to<msg::call_tag, msg::abort_txn_request>::with<msg::call_tag, msg::ack_reply>,
    caf::replies_to<msg::call_tag, msg::release_txn_request>::with<msg::call_tag, msg::ack_reply>,
    caf::replies_to<msg::estimate_request>::with<msg::estimate_reply>,
    // The broker undoing a co-allocation's part (coallocation_protocol.hpp).
    caf::replies_to<msg::unbind_jobs_request>::with<msg::ack_reply>,
    caf::replies_to<msg::cluster_status_request>::with<msg::cluster_status>,
    // The grid-job manager's, tagged (job_protocol.hpp): best-effort jobs in the cluster's
    // queue.
    caf::replies_to<msg::call_tag, msg::job_submit_request>::with<msg::call_tag,
                                                                  msg::job_submit_reply>,
    caf::replies_to<msg::call_tag, msg::job_states_request>::with<msg::call_tag,
                                                                  msg::job_states_reply>,
    caf::replies_to<msg::call_tag, msg::job_cancel_request>::with<msg::call_tag,
                                                                  msg::job_cancel_reply>,
    caf::replies_to<msg::call_tag, msg::job_find_request>::with<msg::call_tag, msg::job_find_reply>,
    caf::replies_to<msg::call_tag, msg::job_outlook_request>::with<
        msg::call_tag, msg::job_outlook_reply>>::extend_with<reservation_operations>;

/// The answers a coordinator gets from the cluster services it calls.
using service_answers = caf::typed_actor<caf::reacts_to<msg::call_tag, msg::probe_batch_reply>,
                                         caf::reacts_to<msg::call_tag, msg::busy_hint_reply>,
                                         caf::reacts_to<msg::call_tag, msg::advice_reply>,
                                         caf::reacts_to<msg::call_tag, msg::prepare_reply>,
                                         caf::reacts_to<msg::call_tag, msg::ack_reply>>;

// -- grid information service (gis.hpp) -----------------------------------------------------

/// Whoever keeps the GIS's directory: gets it whole after every change.
using directory_subscriber =
    caf::typed_actor<caf::reacts_to<directory_atom, std::vector<msg::cluster_info>,
                                    std::vector<cluster_service_actor>>>;

/// The grid information service (paper 000, steps 2-3): which clusters exist, their static
/// attributes and their reservation services. Registering a cluster replaces a same-named
/// one; a cluster whose service ends is dropped. Subscribers get the whole directory now
/// and after every change (before the registrant hears back), until they end.
using gis_actor = caf::typed_actor<
    caf::replies_to<register_atom, msg::cluster_info, cluster_service_actor>::with<msg::ack_reply>,
    caf::replies_to<subscribe_atom>::with<directory_atom, std::vector<msg::cluster_info>,
                                          std::vector<cluster_service_actor>>>;

// -- the broker (broker.hpp) and its coordinators ----------------------------------------------

/// The grid reservation service as its clients see it: checked requests (check()) and
/// operations on reservations by id. Every request is answered within the broker's request
/// timeout, whatever happens to the actors working on it.
using broker_actor = caf::typed_actor<
    caf::replies_to<msg::checked_elastic_request>::with<msg::elastic_reply>,
    caf::replies_to<msg::checked_coreservation_request>::with<msg::coreservation_reply>,
    caf::replies_to<msg::coallocate_request>::with<msg::coallocate_reply>>::
    extend_with<reservation_operations>;

/// A coordinator: runs many client requests at once, each handed over by the broker under
/// its request number and answered under it; told by the broker when one's deadline passed.
/// (flush_atom is its own: calls collected across requests go out together; durable_atom
/// comes from the journal, for a commit decision.)
template <class Request, class Reply>
using coordinator_actor = typename caf::typed_actor<
    typename caf::replies_to<msg::request_no, Request>::template with<msg::request_no, Reply>,
    caf::reacts_to<timeout_atom, msg::request_no>, caf::reacts_to<flush_atom>,
    caf::reacts_to<durable_atom, std::uint64_t,
                   std::string>>::template extend_with<service_answers, directory_subscriber>;

/// Elastic requests: the broker's elastic workers (by preferences) and its matchmaker (by a
/// matchmaking policy).
using elastic_coordinator_actor =
    coordinator_actor<msg::checked_elastic_request, msg::elastic_reply>;
/// Co-reservations: the broker's co-reservation workers (two-phase commit).
using coreservation_coordinator_actor =
    coordinator_actor<msg::checked_coreservation_request, msg::coreservation_reply>;

/// The broker's whole interface: its clients', plus its coordinators' answers, its deadline
/// timer and the GIS's pushes.
using broker_impl_actor =
    broker_actor::extend<caf::reacts_to<msg::request_no, msg::elastic_reply>,
                         caf::reacts_to<msg::request_no, msg::coreservation_reply>,
                         caf::reacts_to<timeout_atom>>::extend_with<directory_subscriber>;

}  // namespace arbroker
