#pragma once

// The grid-job manager's state, apart from its actor (internal; grid_jobs.hpp has the actor,
// docs/grid-jobs.md the flow). It places, watches, cancels and moves grid jobs over the
// rules of core/grid_job.hpp and keeps them in the store; it reaches the cluster services
// only through a `grid_job_port`, one entry for every call, so that a test drives it
// without CAF (a port whose calls the test answers by hand) as the actor drives it with
// CAF requests.
//
// Ownership: the manager owns its jobs and its reserve flows; the port is the owner's and
// outlives the manager. Every answer a port hands back runs on the owner's thread (the
// actor's), as do all the methods below.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/grid_jobs.hpp"

namespace arbroker {

/// Every request the manager sends to a cluster service (all tagged, as a coordinator's,
/// but the bind and the cancel it makes on a reservation for the job's owner).
using grid_cluster_request =
    std::variant<msg::job_outlook_request, msg::job_submit_request, msg::job_states_request,
                 msg::job_cancel_request, msg::job_find_request, msg::bind_job_request,
                 msg::cancel_request, msg::prepare_request, msg::commit_txn_request,
                 msg::abort_txn_request, msg::release_txn_request>;
/// ... and its answers (cancel, commit, abort and release are answered with an ack).
using grid_cluster_reply =
    std::variant<msg::job_outlook_reply, msg::job_submit_reply, msg::job_states_reply,
                 msg::job_cancel_reply, msg::job_find_reply, msg::bind_job_reply, msg::ack_reply,
                 msg::prepare_reply>;

/// The reply a cluster service gives to each request (declared only: the overloads name the
/// pairs, reply_to picks one; the actor's typed requests check them against the service's
/// signatures at compile time).
msg::job_outlook_reply reply_of(const msg::job_outlook_request&);
msg::job_submit_reply reply_of(const msg::job_submit_request&);
msg::job_states_reply reply_of(const msg::job_states_request&);
msg::job_cancel_reply reply_of(const msg::job_cancel_request&);
msg::job_find_reply reply_of(const msg::job_find_request&);
msg::bind_job_reply reply_of(const msg::bind_job_request&);
msg::prepare_reply reply_of(const msg::prepare_request&);
msg::ack_reply reply_of(const msg::cancel_request&);
msg::ack_reply reply_of(const msg::commit_txn_request&);
msg::ack_reply reply_of(const msg::abort_txn_request&);
msg::ack_reply reply_of(const msg::release_txn_request&);
template <class Request>
using reply_to = decltype(reply_of(std::declval<const Request&>()));

/// How the manager reaches the cluster services.
class grid_job_port {
 public:
  virtual ~grid_job_port() = default;
  /// Sends `q` to the service of `cluster`. `done` gets its reply (of the request's type), or
  /// the error: not_found when the cluster is not in the directory (nothing reached it),
  /// unreachable when the call failed on its way (it may have run).
  virtual void call(const std::string& cluster, grid_cluster_request q,
                    std::function<void(result<grid_cluster_reply>)> done) = 0;
  /// Asks for flush() once the message being handled is done: the submissions that arrived
  /// meanwhile share one outlook per cluster.
  virtual void flush_soon() = 0;
};

class grid_job_manager {
 public:
  using reply_fn = std::function<void(msg::grid_job_reply)>;
  using many_reply_fn = std::function<void(msg::grid_submit_many_reply)>;

  /// Adopts cfg.recovered (watched again from the first poll round). `port` outlives it.
  grid_job_manager(grid_jobs_config cfg, grid_job_port& port);
  ~grid_job_manager();
  grid_job_manager(const grid_job_manager&) = delete;
  grid_job_manager& operator=(const grid_job_manager&) = delete;

  /// A new job: refused at once (answer called before this returns), or ranked with the
  /// others of its batch at the next flush() and answered once its copies (or its
  /// reservation's job) are submitted.
  void submit(msg::grid_submit_request r, reply_fn answer);
  /// Several jobs that may wait for each other: refused as a whole (answer called before
  /// this returns), or all written and answered at once, pending; those whose parents are
  /// met are ranked at the next flush(), the others when their parents end.
  void submit_many(msg::grid_submit_many_request r, many_reply_fn answer);
  /// Ranks the submissions that arrived since the last flush (port::flush_soon).
  void flush();
  msg::grid_job_reply query(const msg::grid_query_request& r);
  msg::grid_job_reply cancel(const msg::grid_cancel_request& r);
  msg::grid_list_reply list(const msg::grid_list_request& r) const;

  /// One state request per cluster for every copy that may be in its queue (and, after a
  /// restart, the recovery of copies and cancels); returns the number of copies asked about.
  std::int32_t poll_round();
  /// Paper 003 Sec. 3.3 for every queued adaptive job; returns how many were evaluated.
  std::int32_t adapt_round();
  /// An LRMS's event hook: the copies that changed are looked at now.
  void look_at(const msg::lrms_job_events& ev);

  /// The directory the manager places by (the owner's subscription writes it) ...
  directory_view& directory();
  /// ... and after a change of it: copies on clusters that left fail.
  void directory_changed();

  /// `done(value)` once every call sent so far has been answered (and what the answers led
  /// to as well): how poll_atom and adapt_atom answer when their round is over.
  void when_settled(std::int32_t value, std::function<void(std::int32_t)> done);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace arbroker
