#pragma once

// The types of the broker's network protocol (docs/protocol.md). Bodies are the msg:: types
// where the engine already has them; the few the network API adds are defined here, with
// inspect() field lists like messages/ so that the same msgpack codec carries them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/coallocation_protocol.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"
#include "arbroker/messages/watch_protocol.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::api {

/// "ARB1" in ASCII: the first field of every hello.
inline constexpr std::uint32_t protocol_magic = 0x41524231;
// 4: elastic hints; 5: admin (LJP waiver); 6: coallocate; 10: list history pages;
// 11: reservation_info created, window_start, window_end; 12: cluster_status name_prefix;
// 13: grid_submit ranking; 14: cluster_status approximated; 15: grid resubmission fields;
// 16: job needs (memory, features, OS) and the clusters' nodes, job_query and job_cancel,
// grid_submit after; 17: grid_submit_many, grid_submit cancel_if_parent_fails and locality;
// 18: elastic_reply passed_over; 19: watch; 20: welcome leader, errc not_leader
inline constexpr std::uint16_t protocol_version = 20;

/// First frame of a connection, client to server.
struct hello {
  std::uint32_t magic = protocol_magic;
  std::uint16_t version = protocol_version;
  std::string user;
  std::string token;
  friend bool operator==(const hello&, const hello&) = default;
};
ARB_FIELDS(hello, x.magic, x.version, x.user, x.token)

/// The server's answer to a hello: accepted (error.code == 0) or refused, after which the
/// server closes the connection. A standby refuses with not_leader and names the node that
/// serves in `leader` (its API's host:port; "" when no node serves now).
struct welcome {
  std::uint16_t version = protocol_version;
  std::string node;
  msg::wire_error error;
  std::string leader;
  friend bool operator==(const welcome&, const welcome&) = default;
};
ARB_FIELDS(welcome, x.version, x.node, x.error, x.leader)

/// Earliest-start estimate for a job of np CPUs for walltime seconds, per cluster.
struct estimate_request {
  std::string user;
  std::int32_t np = 1;
  std::int64_t walltime = 0;
  std::vector<std::string> clusters;  ///< empty = every cluster
  std::int64_t ready = 0;             ///< not before (0: now)
  std::int64_t deadline = 0;          ///< ending by (0: none)
  friend bool operator==(const estimate_request&, const estimate_request&) = default;
};
ARB_FIELDS(estimate_request, x.user, x.np, x.walltime, x.clusters, x.ready, x.deadline)

struct cluster_estimate {
  std::string cluster;
  std::int64_t earliest_start = -1;  ///< -1: cannot run there (error says why)
  msg::wire_error error;
  friend bool operator==(const cluster_estimate&, const cluster_estimate&) = default;
};
ARB_FIELDS(cluster_estimate, x.cluster, x.earliest_start, x.error)

struct estimate_reply {
  std::vector<cluster_estimate> estimates;  ///< earliest first
  msg::wire_error error;
  friend bool operator==(const estimate_reply&, const estimate_reply&) = default;
};
ARB_FIELDS(estimate_reply, x.estimates, x.error)

/// The clusters this node brokers.
struct cluster_list_request {
  friend bool operator==(const cluster_list_request&, const cluster_list_request&) = default;
};
ARB_NO_FIELDS(cluster_list_request)

struct cluster_summary {
  std::string name;
  std::string lrms;  ///< "sim", "slurm", "gridengine"
  std::int32_t cpus = 0;
  double pp = 0;  ///< processor power (the reference unit of pp_ref)
  std::string os;
  std::vector<std::string> features;
  std::int64_t max_walltime = 0;  ///< the longest walltime it allows a job (0: none known)
  std::int64_t max_hold = 0;      ///< the longest hold it grants (seconds; 0: not published)
  /// Its nodes grouped alike (CPUs, MiB, features); empty: not published.
  std::vector<node_group> nodes = {};
  friend bool operator==(const cluster_summary&, const cluster_summary&) = default;
};
ARB_FIELDS(cluster_summary, x.name, x.lrms, x.cpus, x.pp, x.os, x.features, x.max_walltime,
           x.max_hold, x.nodes)

struct cluster_list_reply {
  std::vector<cluster_summary> clusters;
  msg::wire_error error;
  friend bool operator==(const cluster_list_reply&, const cluster_list_reply&) = default;
};
ARB_FIELDS(cluster_list_reply, x.clusters, x.error)

/// Current state of some clusters (empty = all).
struct status_request {
  std::vector<std::string> clusters;
  friend bool operator==(const status_request&, const status_request&) = default;
};
ARB_FIELDS(status_request, x.clusters)

struct status_reply {
  std::vector<msg::cluster_status> clusters;
  msg::wire_error error;
  friend bool operator==(const status_reply&, const status_reply&) = default;
};
ARB_FIELDS(status_reply, x.clusters, x.error)

/// Operation codes on the wire; each names its request body and its reply body.
enum class operation : std::uint8_t {
  /// Responses only: the answer (id 0) to a frame that is no readable request, or to a
  /// request of an unknown op (version 9; before, such answers named op 1).
  none = 0,
  elastic = 1,            ///< msg::elastic_request (mode reserve/hold/whatif) -> msg::elastic_reply
  coreserve = 2,          ///< msg::coreservation_request -> msg::coreservation_reply
  estimate = 3,           ///< estimate_request -> estimate_reply
  commit = 4,             ///< msg::commit_request -> msg::query_reply (the committed reservation)
  modify = 5,             ///< msg::modify_request -> msg::query_reply (the new terms)
  cancel = 6,             ///< msg::cancel_request -> msg::ack_reply
  query = 7,              ///< msg::query_request -> msg::query_reply
  list = 8,               ///< msg::list_request -> msg::list_reply
  bind_job = 9,           ///< msg::bind_job_request -> msg::bind_job_reply
  clusters = 10,          ///< cluster_list_request -> cluster_list_reply
  status = 11,            ///< status_request -> status_reply
  grid_submit = 12,       ///< msg::grid_submit_request -> msg::grid_job_reply
  grid_query = 13,        ///< msg::grid_query_request -> msg::grid_job_reply
  grid_cancel = 14,       ///< msg::grid_cancel_request -> msg::grid_job_reply
  grid_list = 15,         ///< msg::grid_list_request -> msg::grid_list_reply
  coallocate = 16,        ///< msg::coallocate_request -> msg::coallocate_reply
  job_query = 17,         ///< msg::bound_job_query_request -> msg::bound_job_reply
  job_cancel = 18,        ///< msg::bound_job_cancel_request -> msg::bound_job_reply
  grid_submit_many = 19,  ///< msg::grid_submit_many_request -> msg::grid_submit_many_reply
  /// msg::watch_request -> msg::watch_reply, many: a subscription (docs/watch.md). Every
  /// reply to it carries its request's id; the one with an error ends it.
  watch = 20,
};

/// "elastic", "coreserve", ...; "unknown" for a code outside the enum.
std::string_view to_string(operation op) noexcept;

/// The operation of a wire code, or nothing for an unknown one.
std::optional<operation> to_operation(std::uint8_t code) noexcept;

/// A request body; the alternative index + 1 is its operation code.
using request_body =
    std::variant<msg::elastic_request, msg::coreservation_request, estimate_request,
                 msg::commit_request, msg::modify_request, msg::cancel_request, msg::query_request,
                 msg::list_request, msg::bind_job_request, cluster_list_request, status_request,
                 msg::grid_submit_request, msg::grid_query_request, msg::grid_cancel_request,
                 msg::grid_list_request, msg::coallocate_request, msg::bound_job_query_request,
                 msg::bound_job_cancel_request, msg::grid_submit_many_request, msg::watch_request>;

/// A reply body; monostate when a response carries no body (errors).
using response_body =
    std::variant<std::monostate, msg::elastic_reply, msg::coreservation_reply, estimate_reply,
                 msg::query_reply, msg::ack_reply, msg::list_reply, msg::bind_job_reply,
                 cluster_list_reply, status_reply, msg::grid_job_reply, msg::grid_list_reply,
                 msg::coallocate_reply, msg::bound_job_reply, msg::grid_submit_many_reply,
                 msg::watch_reply>;

operation operation_of(const request_body& body) noexcept;

/// A default-constructed body of the request type of an operation.
request_body empty_request_body(operation op);

/// A default-constructed body of the reply type of an operation.
response_body empty_response_body(operation op);

/// True when `body` is monostate or the reply type of `op`.
bool reply_matches(operation op, const response_body& body) noexcept;

/// What a request names (the reservation or grid job id of an operation on one; the ids of
/// a co-allocation's parts, comma-separated), or "".
std::string subject_of(const request_body& body);

/// What a reply made or names (a granted reservation, a co-reservation's parts, a grid job,
/// bound jobs), or "".
std::string subject_of(const response_body& body);

/// Whether an error reply's body says more than its code and message: a refused elastic
/// request's earliest alternative and statistics, a co-reservation's attempts, the
/// reservation or grid job a refused transition left as it was. Any other error reply is
/// sent with a nil body (docs/protocol.md).
bool carries_detail(const response_body& body) noexcept;

struct request {
  std::uint64_t id = 0;
  request_body body;
  operation op() const noexcept { return operation_of(body); }
  friend bool operator==(const request&, const request&) = default;
};

struct response {
  std::uint64_t id = 0;
  operation op = operation::elastic;
  std::uint8_t code = 0;  ///< 0 = ok, else an arbroker::errc value
  std::string message;
  response_body body;

  bool ok() const noexcept { return code == 0; }
  friend bool operator==(const response&, const response&) = default;
};

/// An error response to request `id` of operation `op`.
response error_response(std::uint64_t id, operation op, const error& e);

}  // namespace arbroker::api
