#pragma once

// Runs operations on a simulated cluster and checks the batch policies' invariants after
// each one (shared by the randomized and the trace-driven policy tests):
// - capacity never exceeded and reservations honoured (consistent());
// - EASY: no queued job that could backfill beside the head's shadow waits, and the head's
//   earliest start never moves later;
// - conservative: every queued job holds a plan after now, committed capacity plus plans fit
//   the cluster, and no plan ever moves later.
// Operations that create or modify a reservation are exempt from the "never later" checks:
// reservations come before queued jobs.

#include <functional>

#include "simulated_lrms_fixture.hpp"

namespace arbroker::testing_sim {

// The queue, the running jobs and the reservations, for failure messages.
inline std::string describe(const lrms_snapshot& s) {
  auto job_text = [](const lrms_job& j) {
    std::string t = j.id + "(" + std::to_string(j.np) + "x" + std::to_string(j.walltime);
    if (j.started) t += "@" + std::to_string(*j.started);
    return t + (j.reservation ? " in " + *j.reservation : "") + ") ";
  };
  std::string out = "queued ";
  for (const auto& j : s.queued)
    out += job_text(j);
  out += "| running ";
  for (const auto& j : s.running)
    out += job_text(j);
  out += "| reservations ";
  for (const auto& r : s.reservations)
    out += r.id + "[" + std::to_string(r.start) + ", " + std::to_string(r.end) + ")x" +
           std::to_string(r.np) + " ";
  return out;
}

class policy_checker {
 public:
  policy_checker(int cpus, scheduling_policy policy)
      : cpus_(cpus), policy_(policy), c_(cpus, {}, policy, [this](const simulated_job_event& e) {
          if (e.what == simulated_job_event::kind::started)
            first_start_.try_emplace("J" + std::to_string(e.job), e.time);
        }) {}

  cluster& c() { return c_; }

  /// Runs `op` (which returns true if it created or modified a reservation), then checks.
  void step(const std::function<bool()>& op, const std::string& what) {
    const lrms_snapshot before = *c_->snapshot();
    const auto shadow_before = head_shadow(before);
    const auto plans_before = plans(before);
    first_start_.clear();
    const bool reservation_step = op();
    ASSERT_TRUE(consistent(*c_)) << "after " << what;
    const lrms_snapshot after = *c_->snapshot();
    if (policy_ == scheduling_policy::easy) check_easy(after, what);
    if (policy_ == scheduling_policy::conservative) check_plans_fit(after);
    if (reservation_step) return;
    if (shadow_before) {  // EASY: the head's reservation never moves later
      const auto& [head, when] = *shadow_before;
      if (auto s = first_start_.find(head); s != first_start_.end()) {
        ASSERT_LE(s->second, when) << head << " started after its shadow, after " << what;
      } else if (!after.queued.empty() && after.queued.front().id == head) {
        const auto now_shadow = head_shadow(after);
        ASSERT_TRUE(now_shadow && now_shadow->second <= when)
            << head << " shadow moved later, after " << what;
      }
    }
    for (const auto& p : plans_before) {  // conservative: no plan moves later
      if (auto s = first_start_.find(p.id); s != first_start_.end()) {
        ASSERT_LE(s->second, p.start) << p.id << " started after its plan, after " << what;
      } else if (auto now_plan = c_->planned_start(p.id)) {
        ASSERT_LE(*now_plan, p.start) << p.id << " plan moved later, after " << what;
      }
    }
  }

 private:
  struct plan_view {
    std::string id;
    timestamp start;
    duration walltime;
    int np;
  };

  // EASY: the queue head and its earliest start in the committed profile.
  std::optional<std::pair<std::string, timestamp>> head_shadow(const lrms_snapshot& s) {
    if (policy_ != scheduling_policy::easy) return std::nullopt;
    for (const auto& j : s.queued) {
      if (j.reservation) continue;
      auto at = c_->profile().earliest_start(s.now, j.walltime, j.np);
      if (!at) return std::nullopt;
      return std::pair{j.id, *at};
    }
    return std::nullopt;
  }

  std::vector<plan_view> plans(const lrms_snapshot& s) {
    std::vector<plan_view> out;
    if (policy_ != scheduling_policy::conservative) return out;
    for (const auto& j : s.queued)
      if (!j.reservation)
        if (auto p = c_->planned_start(j.id)) out.push_back({j.id, *p, j.walltime, j.np});
    return out;
  }

  // EASY: with the head's shadow in place, no queued job behind it fits now.
  void check_easy(const lrms_snapshot& s, const std::string& what) {
    availability_profile p = c_->profile();
    bool behind_head = false;
    for (const auto& j : s.queued) {
      if (j.reservation) continue;
      if (!behind_head) {
        auto at = p.earliest_start(s.now, j.walltime, j.np);
        if (at) {
          ASSERT_TRUE(p.add(*at, *at + j.walltime, j.np));
        }
        behind_head = true;
        continue;
      }
      ASSERT_LT(*p.min_free(s.now, s.now + j.walltime), j.np)
          << j.id << " could backfill at " << s.now << " after " << what << ": " << describe(s);
    }
  }

  // Conservative: every queued job has a plan after now, and committed capacity plus all
  // plans never exceed the cluster (recounted by brute force).
  void check_plans_fit(const lrms_snapshot& s) {
    auto all = committed(s);
    for (const auto& p : plans(s)) {
      ASSERT_GT(p.start, s.now) << p.id << " should have started";
      all.push_back({p.start, p.start + p.walltime, p.np});
    }
    for (const auto& j : s.queued) {
      if (!j.reservation) {
        ASSERT_TRUE(c_->planned_start(j.id)) << j.id << " has no plan";
      }
    }
    for (const auto& x : all)
      ASSERT_LE(max_used(all, x.start, x.start + 1), cpus_) << "plans overbook at " << x.start;
  }

  int cpus_;
  scheduling_policy policy_;
  std::map<std::string, timestamp> first_start_;  // jobs started during the current step
  cluster c_;
};

/// Every batch policy, for INSTANTIATE_TEST_SUITE_P, with the policies' names as test names.
inline auto every_policy() {
  return ::testing::Values(scheduling_policy::fcfs, scheduling_policy::easy,
                           scheduling_policy::conservative);
}
inline std::string policy_test_name(const ::testing::TestParamInfo<scheduling_policy>& p) {
  return std::string(to_string(p.param));
}

}  // namespace arbroker::testing_sim
