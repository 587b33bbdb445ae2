#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/earliest_start.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/esr_load.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/core/workload.hpp"

namespace arbroker {

/// A reservation as the view keeps it: its LRMS id and its terms.
struct keyed_reservation {
  std::string key;
  reservation_span span;
};

/// What a cluster service believes about its cluster's capacity between two reads of its
/// LRMS: the availability profile of the running jobs and the reservations, the queue, the
/// queue's plan (ESE) and T_wkl (paper 000, Sec. 3.2.3).
///
/// Reading everything from the LRMS costs in the number of reservations, which grows with
/// the service's own success; the jobs change on their own and are cheap to read again. So
/// the view is made whole from a full read (reset), its jobs are replaced by a jobs-only read
/// (set_jobs), and the service keeps the reservations it makes, changes and ends in it
/// itself (put, erase), by LRMS id. A reservation someone else makes in the LRMS is seen at
/// the next full read; until then a prepare that collides with it is refused by the LRMS,
/// and the service reads everything again.
///
/// The view is a hint for probes and for refusing obvious conflicts early; the LRMS is the
/// authority on capacity. An allocation the profile cannot take is left out: after a reset
/// (a stale or overbooked read) silently, after set_jobs or put by marking the view wrong()
/// so that its owner reads everything again.
///
/// Complexity, with n reservations kept, j running and q queued jobs: reset O(n + (c + d)
/// log n + j log j) with c the reservations whose terms changed and d the jobs that started or
/// ended since the last read (it reconciles, it does not rebuild); set_jobs O(d log n + j log j
/// + q) (a job that runs on keeps its hold; when the jobs do not all fit, O(j log n) to hold
/// them in the LRMS's order, as a new read does); put, erase O(log n); drop_ended O(n); t_wkl() O(j
/// + q + k log n) with k the reservations that count, cached until a change that can move it;
/// planned() O(n + plan) once after a change it cannot absorb, and no copy at all while the queue
/// is empty.
class capacity_view {
 public:
  /// An empty view of a cluster of `cpus` CPUs; invalid_processor_range unless cpus > 0,
  /// invalid_parameter for load factors t_wkl() would refuse.
  static result<capacity_view> create(int cpus, const load_params& load = {});

  /// Everything anew from a full read at `now`: the running jobs that do not use reserved
  /// CPUs (remaining walltimes), the queue (FIFO) and every reservation by LRMS id.
  void reset(timestamp now, std::vector<running_job> running, std::vector<waiting_job> queued,
             const std::vector<keyed_reservation>& reservations);

  /// The jobs anew from a jobs-only read at `now`; the reservations stay as kept. A running
  /// job is known by its end (now + remaining) and CPUs: one that was running at the last read
  /// keeps its hold. False (and wrong()) when a running job does not fit beside them.
  bool set_jobs(timestamp now, std::vector<running_job> running, std::vector<waiting_job> queued);

  /// Reservation `key` holds `span` from now on (added, or its terms changed); its CPUs
  /// count from `now`. False (and wrong()) when the profile cannot take it.
  bool put(const std::string& key, const reservation_span& span, timestamp now);

  /// Reservation `key` holds nothing any more (unknown keys are ignored).
  void erase(const std::string& key);

  /// Forgets the reservations that have ended by `now`, as a full read then no longer lists
  /// them. O(n) for n kept.
  void drop_ended(timestamp now);

  /// Whether the last full read left nothing out and nothing failed to fit since: then, if
  /// the LRMS's reservations changed only as put and erase said, drop_ended and set_jobs at
  /// `now` make the view a full read at `now` would make (lrms_view skips such reads).
  bool holds_all() const noexcept { return complete_ && !wrong_; }

  /// Whether something did not fit since the last reset: read everything again.
  bool wrong() const noexcept { return wrong_; }

  /// Free CPUs over time: running jobs and reservations.
  const availability_profile& profile() const noexcept { return profile_; }

  /// The profile with the queue planned into it at `now` (ESE: FIFO, each job at its
  /// earliest fit, worst-case walltimes): its free CPUs are the vacancies an LJP hold must fit
  /// to postpone no queued job (paper 004, Listing 1). The profile itself while the queue is
  /// empty, or when an entry of the queue cannot be planned (np < 1, walltime <= 0). Made
  /// again on demand after a change the plan cannot simply absorb; valid until the next
  /// change.
  const availability_profile& planned(timestamp now) const;

  /// T_wkl at the time of the last read of the jobs, over the jobs and the reservations kept.
  timestamp t_wkl() const;

  /// The workload as a read of the LRMS at `now` would give it (to_workload): the running
  /// jobs with what is left of their walltimes at `now` (at least 1 s, as a job past its
  /// walltime still runs), the queue, and every reservation kept that has not ended by `now`,
  /// by start then key. O(j + q + n log n).
  cluster_workload workload(timestamp now) const;

  const std::vector<waiting_job>& queue() const noexcept { return queue_; }
  /// The running jobs as the last read of them gave them (set_jobs' or reset's), at jobs_read().
  const std::vector<running_job>& running() const noexcept { return running_; }
  timestamp jobs_read() const noexcept { return jobs_read_; }
  std::size_t reservations() const noexcept { return entries_.size(); }

 private:
  struct entry {
    reservation_span span;   // the terms (T_wkl counts from their start)
    reservation_span held;   // what the profile holds for it (np 0: nothing)
    std::uint64_t seen = 0;  // the last full read that listed it
  };

  capacity_view(availability_profile p, int cpus, const load_params& load)
      : profile_(std::move(p)), cpus_(cpus), load_(load) {}

  bool hold(reservation_span& held, timestamp start, timestamp end, int np);
  void release(reservation_span& held);
  bool valid(const reservation_span& s) const noexcept;
  /// Whether a change to a reservation of these terms can move T_wkl.
  bool moves_t_wkl(const reservation_span& s) const noexcept;
  void changed() noexcept { planned_.reset(); }

  availability_profile profile_;
  int cpus_;
  load_params load_;
  timestamp jobs_read_ = 0;
  std::vector<running_job> running_;
  bool jobs_valid_ = true;  // t_wkl() takes the jobs as they are
  // What the profile holds for the running jobs, sorted by end and np.
  std::vector<reservation_span> running_held_;
  std::vector<waiting_job> queue_;
  std::unordered_map<std::string, entry> entries_;
  std::set<std::pair<timestamp, std::string>> by_start_;  // valid terms, for T_wkl
  // Made on demand (hence mutable), dropped by a change they cannot absorb.
  mutable std::optional<availability_profile> planned_;
  mutable bool plan_failed_ = false;  // the queue cannot be planned: planned() is the profile
  mutable std::optional<timestamp> t_wkl_;
  bool wrong_ = false;
  bool complete_ = false;         // the last reset held everything it read
  std::uint64_t generation_ = 0;  // of full reads
};

}  // namespace arbroker
