#pragma once

// Every message type, in one list: registered with CAF under its name, round-trip tested in
// both encodings. A type missing here serializes to nothing in CAF, silently.

#include <tuple>

#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/coallocation_protocol.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"
#include "arbroker/messages/job_protocol.hpp"
#include "arbroker/messages/slot.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "arbroker/messages/tags.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// A message type and the name it is registered under (same name on every node).
template <class T>
struct named_type {
  using type = T;
  const char* name;
};

inline constexpr auto all_types = std::make_tuple(
    named_type<wire_error>{"arb.wire_error"}, named_type<call_tag>{"arb.call_tag"},
    named_type<request_no>{"arb.request_no"}, named_type<slot>{"arb.slot"},
    named_type<speedup_spec>{"arb.speedup_spec"}, named_type<probe_request>{"arb.probe_request"},
    named_type<probe_reply>{"arb.probe_reply"}, named_type<start_window>{"arb.start_window"},
    named_type<probe_batch_request>{"arb.probe_batch_request"},
    named_type<probe_batch_reply>{"arb.probe_batch_reply"},
    named_type<busy_hint_request>{"arb.busy_hint_request"},
    named_type<busy_hint_reply>{"arb.busy_hint_reply"},
    named_type<advice_request>{"arb.advice_request"}, named_type<advice_reply>{"arb.advice_reply"},
    named_type<prepare_request>{"arb.prepare_request"},
    named_type<prepare_reply>{"arb.prepare_reply"},
    named_type<commit_txn_request>{"arb.commit_txn_request"},
    named_type<abort_txn_request>{"arb.abort_txn_request"},
    named_type<release_txn_request>{"arb.release_txn_request"},
    named_type<job_terms>{"arb.job_terms"}, named_type<commit_request>{"arb.commit_request"},
    named_type<ack_reply>{"arb.ack_reply"}, named_type<reservation_info>{"arb.reservation_info"},
    named_type<cancel_request>{"arb.cancel_request"},
    named_type<modify_request>{"arb.modify_request"},
    named_type<query_request>{"arb.query_request"}, named_type<query_reply>{"arb.query_reply"},
    named_type<list_request>{"arb.list_request"}, named_type<list_reply>{"arb.list_reply"},
    named_type<bind_job_request>{"arb.bind_job_request"},
    named_type<bind_job_reply>{"arb.bind_job_reply"},
    named_type<bound_job_query_request>{"arb.bound_job_query_request"},
    named_type<bound_job_cancel_request>{"arb.bound_job_cancel_request"},
    named_type<bound_job_info>{"arb.bound_job_info"},
    named_type<bound_job_reply>{"arb.bound_job_reply"},
    named_type<unbind_jobs_request>{"arb.unbind_jobs_request"},
    named_type<cluster_status_request>{"arb.cluster_status_request"},
    named_type<estimate_request>{"arb.estimate_request"},
    named_type<estimate_reply>{"arb.estimate_reply"},
    named_type<cluster_status>{"arb.cluster_status"},
    named_type<queued_job_note>{"arb.queued_job_note"},
    named_type<cluster_info>{"arb.cluster_info"}, named_type<gis_query>{"arb.gis_query"},
    named_type<elastic_request>{"arb.elastic_request"},
    named_type<request_stats>{"arb.request_stats"}, named_type<cluster_note>{"arb.cluster_note"},
    named_type<elastic_reply>{"arb.elastic_reply"},
    named_type<coreservation_component>{"arb.coreservation_component"},
    named_type<coreservation_request>{"arb.coreservation_request"},
    named_type<coreservation_reply>{"arb.coreservation_reply"},
    named_type<job_submit_request>{"arb.job_submit_request"},
    named_type<job_submit_reply>{"arb.job_submit_reply"},
    named_type<job_states_request>{"arb.job_states_request"},
    named_type<lrms_job_events>{"arb.lrms_job_events"},
    named_type<job_state_report>{"arb.job_state_report"},
    named_type<job_states_reply>{"arb.job_states_reply"},
    named_type<job_cancel_request>{"arb.job_cancel_request"},
    named_type<job_cancel_reply>{"arb.job_cancel_reply"},
    named_type<job_find_request>{"arb.job_find_request"},
    named_type<job_find_reply>{"arb.job_find_reply"}, named_type<queue_shape>{"arb.queue_shape"},
    named_type<job_outlook_request>{"arb.job_outlook_request"},
    named_type<job_outlook_reply>{"arb.job_outlook_reply"},
    named_type<benchmark_triple>{"arb.benchmark_triple"}, named_type<input_file>{"arb.input_file"},
    named_type<grid_submit_request>{"arb.grid_submit_request"},
    named_type<grid_copy_info>{"arb.grid_copy_info"},
    named_type<grid_event_info>{"arb.grid_event_info"},
    named_type<grid_job_info>{"arb.grid_job_info"},
    named_type<grid_job_reply>{"arb.grid_job_reply"},
    named_type<grid_submit_many_request>{"arb.grid_submit_many_request"},
    named_type<grid_submit_many_reply>{"arb.grid_submit_many_reply"},
    named_type<grid_query_request>{"arb.grid_query_request"},
    named_type<grid_cancel_request>{"arb.grid_cancel_request"},
    named_type<grid_list_request>{"arb.grid_list_request"},
    named_type<grid_list_reply>{"arb.grid_list_reply"},
    named_type<coallocation_part>{"arb.coallocation_part"},
    named_type<coallocate_request>{"arb.coallocate_request"},
    named_type<coallocate_reply>{"arb.coallocate_reply"});

}  // namespace arbroker::msg
