#pragma once

// A broker node in-process: the engine (GIS, one cluster reservation service per cluster,
// the broker with its workers and co-reservation agents) started from a node_config, with
// its durable store recovered, behind a plain C++ API. The daemon arbd puts the network API
// in front of it; embedding applications call it directly (docs/embedding.md).

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "arbroker/actors/cluster_service_config.hpp"
#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/coallocation_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"
#include "arbroker/messages/watch_protocol.hpp"
#include "arbroker/node/node_config.hpp"

namespace arbroker {

/// What the store held at start and what recovery did with it, over all clusters.
struct node_recovery {
  recovery_report clusters;  ///< summed over the cluster services
  int commit_decisions = 0;  ///< co-reservation commit records found in the log
  int grid_jobs = 0;         ///< grid jobs still active, watched again (docs/grid-jobs.md)
};

struct grid_job_counters;

/// What a node tells its host while it runs (all optional; called on engine threads, so
/// quick and thread-safe).
struct node_hooks {
  /// Every recorded change of a reservation (cluster_service_config::on_change).
  std::function<void(const reservation_row&)> reservation_changed;
  /// If set, called once per cluster at start; every call to that cluster's LRMS is then
  /// reported to the observer it returns (timed_lrms).
  std::function<lrms_call_observer(const std::string& cluster)> lrms_observer;
  /// If set, asked before every change the node makes in a batch system (fenced_lrms): its
  /// error refuses the change. arbd on a shared store: while it holds the store's lease.
  std::function<status()> lrms_may_change;
  /// Links with agents and brokers in other processes made, refused and lost, in words
  /// (remote/README.md): for the log.
  std::function<void(const std::string&)> remote_event;
};

class node {
 public:
  template <class Reply>
  using callback = std::function<void(Reply)>;

  /// Opens (or creates) the store in cfg.data_dir, recovers it against the clusters' LRMSs,
  /// then starts the engine. Fails with a specific error for a bad config, a store that
  /// cannot be opened or is in use by another node, or an LRMS that cannot be read.
  static result<std::unique_ptr<node>> start(node_config cfg, node_hooks hooks = {});

  /// Stops the engine (after shutdown(), if it was not called).
  ~node();
  node(const node&) = delete;
  node& operator=(const node&) = delete;

  const node_config& config() const noexcept;
  /// The name of the broker instance that serves `user`'s new reservations ("": none).
  std::string broker_instance_of(const std::string& user) const;
  const node_recovery& recovery() const noexcept;
  /// The clusters the node brokers for, as the information service knows them (remote
  /// ones once their agents have described them).
  std::vector<msg::cluster_info> clusters() const;
  /// The port its [agent] server listens on (the real one when it asked for 0); 0: none.
  unsigned short agent_port() const;

  // Asynchronous operations: `done` is called exactly once, on an engine thread (keep it
  // short, do not block in it). After shutdown() began, every call is answered at once with
  // errc::unreachable. The `user` fields are taken as given: authenticate before calling.
  void elastic(msg::elastic_request r, callback<msg::elastic_reply> done);
  void coreserve(msg::coreservation_request r, callback<msg::coreservation_reply> done);
  void commit(msg::commit_request r, callback<msg::query_reply> done);
  void cancel(msg::cancel_request r, callback<msg::ack_reply> done);
  void modify(msg::modify_request r, callback<msg::query_reply> done);
  void query(msg::query_request r, callback<msg::query_reply> done);
  void list(msg::list_request r, callback<msg::list_reply> done);
  void bind_job(msg::bind_job_request r, callback<msg::bind_job_reply> done);
  /// One job bound to a reservation (by its LRMS id), shown or cancelled alone; the
  /// reservation and its other jobs stay (paper 004, Sec. III-B).
  void bound_job(msg::bound_job_query_request r, callback<msg::bound_job_reply> done);
  void cancel_bound_job(msg::bound_job_cancel_request r, callback<msg::bound_job_reply> done);
  /// Grid jobs (docs/grid-jobs.md): best-effort jobs placed by strategy. An empty user in
  /// query, cancel and list reaches every owner's jobs (for admins: authorize before).
  void grid_submit(msg::grid_submit_request r, callback<msg::grid_job_reply> done);
  /// Several jobs that may wait for each other (their `after` names each other), all or none.
  void grid_submit_many(msg::grid_submit_many_request r,
                        callback<msg::grid_submit_many_reply> done);
  void grid_query(msg::grid_query_request r, callback<msg::grid_job_reply> done);
  void grid_cancel(msg::grid_cancel_request r, callback<msg::grid_job_reply> done);
  void grid_list(msg::grid_list_request r, callback<msg::grid_list_reply> done);
  /// Starts jobs in every part of a co-reservation, all or nothing (paper 002, Sec. 3).
  void coallocate(msg::coallocate_request r, callback<msg::coallocate_reply> done);
  /// Counters of the grid-job manager, for metrics (readable from any thread).
  const grid_job_counters& grid_counters() const noexcept;
  /// Earliest start of a batch job on each named cluster (all when `clusters` is empty);
  /// an unknown cluster name answers not_found in its entry.
  void estimate(msg::estimate_request r, std::vector<std::string> clusters,
                callback<std::vector<msg::estimate_reply>> done);
  /// Every cluster's status, in configuration order.
  void status(callback<std::vector<msg::cluster_status>> done);

  /// Watches the changes of r.user's reservations and grid jobs (an empty user: every
  /// owner's; authorize before), of r.kinds, after event r.since (docs/watch.md). Refused at
  /// once, with nothing started: invalid_parameter (an unknown kind, a since before -1 or
  /// after the last event), gone (the events after since were purged), busy (max_watchers),
  /// unreachable (shutting down). A node without a store has no events to tell.
  result<std::shared_ptr<watch_handle>> watch(const msg::watch_request& r, watch_sink sink);
  /// The same with one call per event (on the feed's thread: keep it short).
  result<std::shared_ptr<watch_handle>> watch(const msg::watch_request& r,
                                              std::function<void(const msg::watch_event&)> on_event,
                                              std::function<void(error)> on_end = {});
  /// Watches under way.
  std::size_t watchers() const;

  // Blocking forms, for embedding applications (never call them from an engine thread).
  msg::elastic_reply elastic(msg::elastic_request r) { return wait(&node::elastic, std::move(r)); }
  msg::coreservation_reply coreserve(msg::coreservation_request r) {
    return wait(&node::coreserve, std::move(r));
  }
  msg::query_reply commit(msg::commit_request r) { return wait(&node::commit, std::move(r)); }
  msg::ack_reply cancel(msg::cancel_request r) { return wait(&node::cancel, std::move(r)); }
  msg::query_reply modify(msg::modify_request r) { return wait(&node::modify, std::move(r)); }
  msg::query_reply query(msg::query_request r) { return wait(&node::query, std::move(r)); }
  msg::list_reply list(msg::list_request r) { return wait(&node::list, std::move(r)); }
  msg::bind_job_reply bind_job(msg::bind_job_request r) {
    return wait(&node::bind_job, std::move(r));
  }
  msg::bound_job_reply bound_job(msg::bound_job_query_request r) {
    return wait(&node::bound_job, std::move(r));
  }
  msg::bound_job_reply cancel_bound_job(msg::bound_job_cancel_request r) {
    return wait(&node::cancel_bound_job, std::move(r));
  }
  std::vector<msg::cluster_status> status();
  msg::grid_job_reply grid_submit(msg::grid_submit_request r) {
    return wait(&node::grid_submit, std::move(r));
  }
  msg::grid_submit_many_reply grid_submit_many(msg::grid_submit_many_request r) {
    return wait(&node::grid_submit_many, std::move(r));
  }
  msg::grid_job_reply grid_query(msg::grid_query_request r) {
    return wait(&node::grid_query, std::move(r));
  }
  msg::grid_job_reply grid_cancel(msg::grid_cancel_request r) {
    return wait(&node::grid_cancel, std::move(r));
  }
  msg::grid_list_reply grid_list(msg::grid_list_request r) {
    return wait(&node::grid_list, std::move(r));
  }
  msg::coallocate_reply coallocate(msg::coallocate_request r) {
    return wait(&node::coallocate, std::move(r));
  }

  /// Refuses new requests, waits up to `grace` for the ones in flight to be answered (a
  /// co-reservation in two-phase commit finishes or aborts; holds it leaves expire by
  /// themselves and are aborted on the next start), then stops the engine. Idempotent.
  /// Returns the number of requests still unanswered when the grace ran out.
  std::size_t shutdown(duration grace);

  /// Requests accepted and not yet answered.
  std::size_t in_flight() const;

 private:
  struct impl;
  explicit node(std::unique_ptr<impl> p);

  template <class Reply, class Request>
  Reply wait(void (node::*op)(Request, callback<Reply>), Request r) {
    std::promise<Reply> p;
    auto f = p.get_future();
    (this->*op)(std::move(r), [&p](Reply rep) { p.set_value(std::move(rep)); });
    return f.get();
  }

  std::unique_ptr<impl> impl_;
};

}  // namespace arbroker
