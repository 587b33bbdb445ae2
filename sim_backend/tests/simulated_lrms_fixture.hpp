#pragma once

// Helpers shared by the simulated LRMS tests: a cluster on a hand-moved clock, and checks
// of its invariants recomputed by brute force from snapshots.

#include <gtest/gtest.h>

#include "arbroker/sim/simulated_lrms.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace arbroker::testing_sim {

// Test-only helpers, defined inline in the header: each test file gets its own copy.

// A simulated cluster whose clock the test moves by hand.
class cluster {
 public:
  explicit cluster(int cpus, reservable_sizes sizes = {},
                   scheduling_policy policy = scheduling_policy::fcfs,
                   std::function<void(const simulated_job_event&)> on_job_event = {}) {
    auto made = simulated_lrms::create(
        {"test", cpus, std::move(sizes), [this] { return t_; }, policy, std::move(on_job_event)});
    EXPECT_TRUE(made) << to_string(made.err());
    lrms_ = std::move(made).value();
  }
  cluster(const cluster&) = delete;
  cluster& operator=(const cluster&) = delete;

  void at(timestamp t) { t_ = t; }
  timestamp time() const { return t_; }
  simulated_lrms* operator->() { return lrms_.get(); }
  simulated_lrms& operator*() { return *lrms_; }

 private:
  timestamp t_ = 0;
  std::unique_ptr<simulated_lrms> lrms_;
};

inline reservation_spec rsv(timestamp start, duration length, int np, std::string owner = "alice") {
  return {"arb-" + std::to_string(start), std::move(owner), start, length, np};
}

inline job_spec job(int np, duration walltime, std::optional<std::string> reservation = {},
                    std::string owner = "bob") {
  return {"j", std::move(owner), np, walltime, std::move(reservation), "sleep"};
}

// The job, not to start before t (Slurm's --begin).
inline job_spec begins_at(job_spec j, timestamp t) {
  j.not_before = t;
  return j;
}

inline lrms_job_state state(simulated_lrms& l, const std::string& id) {
  auto s = l.job_status(id);
  EXPECT_TRUE(s) << id;
  return s ? *s : lrms_job_state::failed;
}

inline std::optional<timestamp> started(simulated_lrms& l, const std::string& id) {
  const lrms_snapshot s = *l.snapshot();  // a named copy: the loop must not outlive it
  for (const auto& j : s.running)
    if (j.id == id) return j.started;
  return std::nullopt;
}

inline std::vector<std::string> ids(const std::vector<lrms_job>& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs)
    out.push_back(j.id);
  return out;
}

inline std::vector<std::string> ids(const std::vector<lrms_reservation>& rs) {
  std::vector<std::string> out;
  for (const auto& r : rs)
    out.push_back(r.id);
  return out;
}

// Allocations that hold the cluster's CPUs, as the snapshot reports them.
struct allocation {
  timestamp start;
  timestamp end;
  int np;
};

inline std::vector<allocation> committed(const lrms_snapshot& s, const std::string& except = {}) {
  std::vector<allocation> out;
  for (const auto& r : s.reservations)
    if (r.id != except) out.push_back({r.start, r.end, r.np});
  for (const auto& j : s.running)
    if (!j.reservation) out.push_back({*j.started, *j.started + j.walltime, j.np});
  return out;
}

// Brute force: the most CPUs in use at any instant of [a, b).
inline int max_used(const std::vector<allocation>& all, timestamp a, timestamp b) {
  std::set<timestamp> points{a};
  for (const auto& x : all)
    if (x.start > a && x.start < b) points.insert(x.start);
  int most = 0;
  for (timestamp p : points) {
    int used = 0;
    for (const auto& x : all)
      if (x.start <= p && p < x.end) used += x.np;
    most = std::max(most, used);
  }
  return most;
}

// Everything that must hold after every call: at every instant the committed CPUs
// (recounted from the snapshot) stay within cpus and equal the profile's count; bound jobs
// run inside their reservation's CPUs and span; nothing that could start now is waiting.
inline ::testing::AssertionResult consistent(simulated_lrms& l) {
  const lrms_snapshot s = *l.snapshot();
  const availability_profile& p = l.profile();
  std::map<std::string, const lrms_reservation*> by_id;
  for (const auto& r : s.reservations) {
    if (r.end <= s.now) return ::testing::AssertionFailure() << r.id << " listed after its end";
    by_id[r.id] = &r;
  }
  std::map<std::string, int> bound_use;
  for (const auto& j : s.running) {
    if (!j.started) return ::testing::AssertionFailure() << j.id << " running, not started";
    if (!j.reservation) continue;
    auto it = by_id.find(*j.reservation);
    if (it == by_id.end())
      return ::testing::AssertionFailure() << j.id << " runs in unlisted " << *j.reservation;
    if (*j.started < it->second->start || *j.started >= it->second->end)
      return ::testing::AssertionFailure() << j.id << " started outside " << *j.reservation;
    bound_use[*j.reservation] += j.np;
  }
  for (const auto& [id, used] : bound_use)
    if (used > by_id[id]->np)
      return ::testing::AssertionFailure() << id << " runs jobs on " << used << " CPUs";

  // The profile forgets the past (availability_profile::advance_origin): it answers from
  // now on, and keeps only the change points after now.
  if (p.origin() != s.now)
    return ::testing::AssertionFailure() << "profile origin " << p.origin() << ", now " << s.now;
  const auto all = committed(s);
  std::set<timestamp> points{s.now};
  for (const auto& x : all)
    for (timestamp t : {x.start, x.end})
      if (t > s.now) points.insert(t);
  for (timestamp t : points) {
    int used = 0;
    for (const auto& x : all)
      if (x.start <= t && t < x.end) used += x.np;
    if (used > s.cpus)
      return ::testing::AssertionFailure() << used << " CPUs in use at " << t << " of " << s.cpus;
    if (s.cpus - p.free_at(t) != used)
      return ::testing::AssertionFailure() << "profile says " << s.cpus - p.free_at(t)
                                           << " used at " << t << ", recount " << used;
  }
  if (p.change_points() > points.size() - 1)
    return ::testing::AssertionFailure() << "profile has stray change points";

  for (const auto& j : s.queued) {
    if (j.reservation) {
      const auto* r = by_id.at(*j.reservation);
      if (r->start <= s.now && bound_use[r->id] + j.np <= r->np)
        return ::testing::AssertionFailure() << j.id << " could start in " << r->id;
      bound_use[r->id] = r->np;  // FCFS inside the reservation: the rest wait behind it
    }
  }
  // FCFS and EASY start the head as soon as it fits. (Under conservative backfilling a later
  // job's plan may hold the room the head would need; the policy tests check plans.)
  for (const auto& j : s.queued) {
    if (j.reservation || l.policy() == scheduling_policy::conservative) continue;
    if (*p.min_free(s.now, s.now + j.walltime) >= j.np)
      return ::testing::AssertionFailure() << "queue head " << j.id << " could start now";
    break;  // only the head matters here
  }
  return ::testing::AssertionSuccess();
}

}  // namespace arbroker::testing_sim
