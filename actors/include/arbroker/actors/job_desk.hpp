#pragma once

// The job desk of a cluster service: the best-effort jobs the grid-job manager places in the
// cluster's batch queue (grid jobs' copies), as a part of the service with its own header
// and tests. It submits, reports states from one look at the LRMS's jobs (a job gone from
// that look is asked about alone), cancels (a queued one only, for a migration's
// withdrawal), finds jobs by name (recovery), and answers outlooks: planned starts from one
// plan of the queue (paper 004's ESE, local jobs first), with paper 004's SED inputs.
//
// It owns nothing: the LRMS is the service's, and every change of the queue is told to the
// service (`queue_changed`: its view reads the queue again before the next probe). The
// calls about jobs read the LRMS's jobs alone (jobs_snapshot), never its reservations, except
// the outlook, which plans around them.
//
// Scoped callers (at an agent): a cancel's id is "<broker>:<lrms id>", and a job is that
// broker's when its LRMS name starts with "<prefix><broker>+" (broker_scope.hpp); another
// broker's job answers like a missing one.

#include <cstdint>
#include <functional>
#include <string>

#include "arbroker/adapters/lrms.hpp"
#include "arbroker/messages/job_protocol.hpp"

namespace arbroker {

/// A job's state as the LRMS says it, as the grid-job rules and clients see it.
observed_state observed(lrms_job_state s);

class job_desk {
 public:
  struct settings {
    std::string cluster;
    std::int32_t cpus = 0;
    std::string name_prefix;      ///< before every job name in the LRMS
    bool scoped_callers = false;  ///< ids and names carry the calling broker
  };

  /// `backend` outlives the desk; `queue_changed` runs after every submit and cancel.
  job_desk(settings s, lrms& backend, std::function<void()> queue_changed)
      : s_(std::move(s)), lrms_(backend), queue_changed_(std::move(queue_changed)) {}

  /// Queues a job without a reservation: invalid_parameter without np or walltime,
  /// infeasible for more CPUs than the cluster has.
  msg::job_submit_reply submit(const msg::job_submit_request& req);
  /// The states of jobs, in the order asked, from one look at the LRMS's jobs.
  msg::job_states_reply states(const msg::job_states_request& req);
  /// Cancels a job (a queued one only, with only_if_queued) and says what it found.
  msg::job_cancel_reply cancel(const msg::job_cancel_request& req);
  /// Queued or running jobs by name ("" for a name not found), from one look.
  msg::job_find_reply find(const msg::job_find_request& req);
  /// Planned starts of shapes and of queued jobs from one plan of the queue.
  msg::job_outlook_reply outlook(const msg::job_outlook_request& req);

 private:
  /// Whether the live job `lrms_id` is `broker`'s.
  result<bool> submitted_by(const std::string& lrms_id, std::string_view broker);

  settings s_;
  lrms& lrms_;
  std::function<void()> queue_changed_;
};

}  // namespace arbroker
