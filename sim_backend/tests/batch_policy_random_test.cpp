#include "batch_policy_checker.hpp"

// Random job streams with reservations, cancellations, early ends, walltime kills and
// restartable jobs, under each policy. Time moves at most one event instant per step, and
// every invariant of batch_policy_checker.hpp is checked after every step.

namespace arbroker {
namespace {

using namespace testing_sim;

class random_run {
 public:
  explicit random_run(scheduling_policy policy) : check_(cpus, policy) {}

  void run(int steps) {
    for (int step = 0; step < steps; ++step) {
      const auto op = uniform(0, 99);
      check_.step([&] { return one_step(op); },
                  "step " + std::to_string(step) + " (op " + std::to_string(op) + ")");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  int reservations = 0;

 private:
  static constexpr int cpus = 24;

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }

  // One random operation; true if it created a reservation.
  bool one_step(std::int64_t op) {
    cluster& c = check_.c();
    const timestamp now = c->now();
    if (op < 30) {  // submit a local job: early end, exact, or past its walltime
      const int np = static_cast<int>(uniform(1, cpus));
      const duration wall = uniform(1, 200);
      const duration runtime = uniform(1, wall * 3 / 2 + 1);
      const bool restartable = uniform(0, 3) == 0;
      auto j = c->submit_local_job(job(np, wall), runtime, {.restartable = restartable});
      EXPECT_TRUE(j);
      if (j) jobs_.push_back(*j);
    } else if (op < 38) {  // reservation
      const timestamp start = now + uniform(0, 400);
      auto r = c->create_reservation(rsv(start, uniform(1, 200), static_cast<int>(uniform(1, 16))));
      if (r) {
        reservations_.push_back(*r);
        ++reservations;
        if (uniform(0, 2) == 0) {  // and a job inside it
          auto j = c->submit_job(job(1, 1, *r));
          if (j) jobs_.push_back(*j);
        }
      }
      return true;
    } else if (op < 41 && !reservations_.empty()) {
      const auto& id = reservations_[static_cast<std::size_t>(
          uniform(0, static_cast<std::int64_t>(reservations_.size()) - 1))];
      (void)c->delete_reservation(id);  // may have ended already
    } else if (op < 47 && !jobs_.empty()) {
      const auto& id =
          jobs_[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(jobs_.size()) - 1))];
      EXPECT_TRUE(c->cancel_job(id));
    } else if (op < 80) {  // jump to the next event
      if (auto next = c->next_event_time()) c.at(std::max(c.time(), *next));
      (void)c->snapshot();
    } else {  // let time pass, but not beyond the next event: checks run at every event
      timestamp to = c.time() + uniform(0, 60);
      if (auto next = c->next_event_time()) to = std::min(to, std::max(c.time(), *next));
      c.at(to);
      (void)c->snapshot();
    }
    return false;
  }

  std::mt19937_64 rng_{0xbac4'f111};
  policy_checker check_;
  std::vector<std::string> jobs_;
  std::vector<std::string> reservations_;
};

class BatchPolicyRandom : public ::testing::TestWithParam<scheduling_policy> {};

TEST_P(BatchPolicyRandom, InvariantsHoldAtEveryStep) {
  random_run r(GetParam());
  r.run(4000);
  EXPECT_GT(r.reservations, 50);  // the run did exercise reservations
}

INSTANTIATE_TEST_SUITE_P(Policies, BatchPolicyRandom, testing_sim::every_policy(),
                         testing_sim::policy_test_name);

}  // namespace
}  // namespace arbroker
