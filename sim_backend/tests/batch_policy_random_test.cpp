#include "simulated_lrms_fixture.hpp"

// Random job streams with reservations, cancellations, early ends, walltime kills and
// restartable jobs, under each policy. Time moves at most one event instant per step. After
// every step: capacity never exceeded and
// reservations honoured (consistent()); EASY: the head's earliest start never moves later
// and no queued job that could backfill waits; conservative: plans fit beside the committed
// capacity and no plan ever moves later. Steps that create or modify a reservation are
// exempt from the "never later" checks: reservations come before queued jobs.

namespace arbroker {
namespace {

using namespace testing_sim;

// The queue, the running jobs and the reservations, for failure messages.
std::string describe(const lrms_snapshot& s) {
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

struct plan_view {
  std::string id;
  timestamp start;
  duration walltime;
  int np;
};

class random_run {
 public:
  explicit random_run(scheduling_policy policy)
      : policy_(policy), c_(cpus, {}, policy, [this](const simulated_job_event& e) {
          if (e.what == simulated_job_event::kind::started)
            first_start_.try_emplace("J" + std::to_string(e.job), e.time);
        }) {}

  void run(int steps) {
    for (int step = 0; step < steps; ++step) {
      const lrms_snapshot before = *c_->snapshot();
      const auto shadow_before = head_shadow(before);
      const auto plans_before = plans(before);
      first_start_.clear();
      const bool reservation_step = one_step(before.now);
      ASSERT_TRUE(consistent(*c_)) << "step " << step;
      const lrms_snapshot after = *c_->snapshot();
      if (policy_ == scheduling_policy::easy) check_easy(after);
      if (policy_ == scheduling_policy::conservative) check_plans_fit(after);
      if (reservation_step) continue;
      if (shadow_before) {  // EASY: the head's reservation never moves later
        const auto& [head, when] = *shadow_before;
        if (auto s = first_start_.find(head); s != first_start_.end()) {
          ASSERT_LE(s->second, when) << head << " started after its shadow, step " << step;
        } else if (!after.queued.empty() && after.queued.front().id == head) {
          const auto now_shadow = head_shadow(after);
          ASSERT_TRUE(now_shadow && now_shadow->second <= when)
              << head << " shadow moved later, step " << step;
        }
      }
      for (const auto& p : plans_before) {  // conservative: no plan moves later
        if (auto s = first_start_.find(p.id); s != first_start_.end()) {
          ASSERT_LE(s->second, p.start) << p.id << " started after its plan, step " << step;
        } else if (auto now_plan = c_->planned_start(p.id)) {
          ASSERT_LE(*now_plan, p.start) << p.id << " plan moved later, step " << step;
        }
      }
    }
  }

  int started_jobs = 0;
  int reservations = 0;

 private:
  static constexpr int cpus = 24;

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }

  // One random operation; true if it created or modified a reservation.
  bool one_step(timestamp now) {
    const auto op = uniform(0, 99);
    last_op_ = "op " + std::to_string(op) + " at " + std::to_string(now);
    if (op < 30) {  // submit a local job: early end, exact, or past its walltime
      const int np = static_cast<int>(uniform(1, cpus));
      const duration wall = uniform(1, 200);
      const duration runtime = uniform(1, wall * 3 / 2 + 1);
      const bool restartable = uniform(0, 3) == 0;
      auto j = c_->submit_local_job(job(np, wall), runtime, {.restartable = restartable});
      EXPECT_TRUE(j);
      if (j) jobs_.push_back(*j);
    } else if (op < 38) {  // reservation
      const timestamp start = now + uniform(0, 400);
      auto r =
          c_->create_reservation(rsv(start, uniform(1, 200), static_cast<int>(uniform(1, 16))));
      if (r) {
        reservations_.push_back(*r);
        ++reservations;
        if (uniform(0, 2) == 0) {  // and a job inside it
          auto j = c_->submit_job(job(1, 1, *r));
          if (j) jobs_.push_back(*j);
        }
      }
      return true;
    } else if (op < 41 && !reservations_.empty()) {
      const auto& id = reservations_[static_cast<std::size_t>(
          uniform(0, static_cast<std::int64_t>(reservations_.size()) - 1))];
      (void)c_->delete_reservation(id);  // may have ended already
    } else if (op < 47 && !jobs_.empty()) {
      const auto& id =
          jobs_[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(jobs_.size()) - 1))];
      EXPECT_TRUE(c_->cancel_job(id));
    } else if (op < 80) {  // jump to the next event
      if (auto next = c_->next_event_time()) c_.at(std::max(c_.time(), *next));
      (void)c_->snapshot();
    } else {  // let time pass, but not beyond the next event: checks run at every event
      timestamp to = c_.time() + uniform(0, 60);
      if (auto next = c_->next_event_time()) to = std::min(to, std::max(c_.time(), *next));
      c_.at(to);
      (void)c_->snapshot();
    }
    return false;
  }

  // EASY: the queue head and its earliest start in the committed profile.
  std::optional<std::pair<std::string, timestamp>> head_shadow(const lrms_snapshot& s) {
    if (policy_ != scheduling_policy::easy) return std::nullopt;
    for (const auto& j : s.queued) {
      if (j.reservation) continue;
      auto at = c_profile().earliest_start(s.now, j.walltime, j.np);
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
  void check_easy(const lrms_snapshot& s) {
    availability_profile p = c_profile();
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
          << j.id << " could backfill at " << s.now << " after " << last_op_ << ": " << describe(s);
    }
  }

  // Conservative: every queued job has a plan at or after now, and committed capacity plus
  // all plans never exceed the cluster (recounted by brute force).
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
      ASSERT_LE(max_used(all, x.start, x.start + 1), cpus) << "plans overbook at " << x.start;
  }

  const availability_profile& c_profile() { return c_->profile(); }

  scheduling_policy policy_;
  std::mt19937_64 rng_{0xbac4'f111};
  std::map<std::string, timestamp> first_start_;  // jobs started during the current step
  cluster c_;
  std::vector<std::string> jobs_;
  std::vector<std::string> reservations_;
  std::string last_op_;
};

class BatchPolicyRandom : public ::testing::TestWithParam<scheduling_policy> {};

TEST_P(BatchPolicyRandom, InvariantsHoldAtEveryStep) {
  random_run r(GetParam());
  r.run(4000);
  EXPECT_GT(r.reservations, 50);  // the run did exercise reservations
}

INSTANTIATE_TEST_SUITE_P(Policies, BatchPolicyRandom,
                         ::testing::Values(scheduling_policy::fcfs, scheduling_policy::easy,
                                           scheduling_policy::conservative),
                         [](const ::testing::TestParamInfo<scheduling_policy>& p) {
                           return std::string(to_string(p.param));
                         });

}  // namespace
}  // namespace arbroker
