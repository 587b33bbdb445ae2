#include "simulated_lrms_fixture.hpp"

namespace arbroker {
namespace {

using namespace testing_sim;

// Thousands of random operations; after each one every invariant is checked against a
// brute-force recount, and the outcome of each reservation request against the capacity
// the snapshot showed just before it.
TEST(SimulatedLrms, RandomOperationsNeverOverbook) {
  constexpr int cpus = 32;
  cluster c(cpus);
  std::mt19937_64 rng(0x5eed'a11c);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::map<std::string, timestamp> live;  // reservation id -> end, as the test expects it
  std::vector<std::string> jobs;
  auto pick_live = [&]() -> std::string {
    if (live.empty() || uniform(0, 9) == 0) return "R" + std::to_string(uniform(1, 3000));
    auto it = live.begin();
    std::advance(it, uniform(0, static_cast<std::int64_t>(live.size()) - 1));
    return it->first;
  };
  int created = 0, busy = 0, modified = 0, most_running = 0, longest_queue = 0;

  for (int step = 0; step < 10000; ++step) {
    const lrms_snapshot s = *c->snapshot();
    const timestamp now = s.now;
    if (step % 50 == 0) {  // the jobs alone are the snapshot's jobs
      const lrms_snapshot j = *c->jobs_snapshot();
      ASSERT_EQ(j.running, s.running);
      ASSERT_EQ(j.queued, s.queued);
      ASSERT_TRUE(j.reservations.empty());
    }
    const auto op = uniform(0, 99);
    if (op < 25) {  // create
      const timestamp start = now + uniform(-5, 1500);
      const duration length = uniform(-2, 300);
      const int np = static_cast<int>(uniform(0, 12));
      auto r = c->create_reservation(rsv(start, length, np));
      if (start < now || length <= 0) {
        ASSERT_EQ(r.err().code, errc::invalid_window);
      } else if (np < 1) {
        ASSERT_EQ(r.err().code, errc::invalid_processor_range);
      } else {
        const bool fits = max_used(committed(s), start, start + length) + np <= cpus;
        ASSERT_EQ(r.has_value(), fits) << (r ? *r : to_string(r.err()));
        if (r) {
          live[*r] = start + length;
          ++created;
        } else {
          ASSERT_EQ(r.err().code, errc::busy);
          ++busy;
        }
      }
    } else if (op < 33) {  // delete
      const auto id = pick_live();
      auto d = c->delete_reservation(id);
      ASSERT_EQ(d.has_value(), live.contains(id)) << id;
      if (!d) {
        ASSERT_EQ(d.err().code, errc::not_found);
      }
      live.erase(id);
    } else if (op < 48) {  // modify
      const auto id = pick_live();
      const timestamp start = now + uniform(0, 1500);
      const duration length = uniform(1, 300);
      const int np = static_cast<int>(uniform(1, 12));
      auto m = c->modify_reservation(id, rsv(start, length, np));
      if (!live.contains(id)) {
        ASSERT_EQ(m.err().code, errc::not_found);
      } else if (m) {
        ASSERT_LE(max_used(committed(s, id), start, start + length) + np, cpus);
        live.erase(id);
        live[*m] = start + length;
        ++modified;
      } else {
        ASSERT_TRUE(m.err().code == errc::busy || m.err().code == errc::in_use)
            << to_string(m.err());
        if (m.err().code == errc::busy) {
          ASSERT_GT(max_used(committed(s, id), start, start + length) + np, cpus);
        }
        const auto again = c->snapshot()->reservations;  // the old terms are intact
        auto old = std::find_if(s.reservations.begin(), s.reservations.end(),
                                [&](const auto& x) { return x.id == id; });
        auto now_listed =
            std::find_if(again.begin(), again.end(), [&](const auto& x) { return x.id == id; });
        ASSERT_NE(now_listed, again.end());
        ASSERT_EQ(*now_listed, *old);
      }
    } else if (op < 72) {  // submit a local job
      auto j = c->submit_local_job(job(static_cast<int>(uniform(1, 12)), uniform(1, 300)),
                                   uniform(1, 400));
      ASSERT_TRUE(j) << to_string(j.err());
      jobs.push_back(*j);
    } else if (op < 82) {  // submit a bound job
      const auto id = pick_live();
      auto j = c->submit_local_job(job(static_cast<int>(uniform(1, 8)), uniform(1, 200), id),
                                   uniform(1, 250));
      if (j) {
        ASSERT_TRUE(live.contains(id));
        jobs.push_back(*j);
      } else {
        const errc e = j.err().code;
        ASSERT_TRUE(e == errc::not_found || e == errc::invalid_window ||
                    e == errc::invalid_processor_range)
            << to_string(j.err());
      }
    } else if (op < 88) {  // cancel
      if (!jobs.empty()) {
        const auto& id = jobs[uniform(0, static_cast<std::int64_t>(jobs.size()) - 1)];
        ASSERT_TRUE(c->cancel_job(id)) << id;  // finished jobs too: a no-op
        const auto st = state(*c, id);
        ASSERT_TRUE(st == lrms_job_state::cancelled || st == lrms_job_state::completed ||
                    st == lrms_job_state::failed);
      }
    } else if (op < 97) {  // time passes by the clock
      c.at(c.time() + uniform(0, 260));
    } else {  // or an engine jumps to the next event
      if (auto t = c->next_event_time()) {
        c->advance_to(*t);
        c.at(std::max(c.time(), *t));
      }
    }

    ASSERT_TRUE(consistent(*c)) << "step " << step;
    const lrms_snapshot after = *c->snapshot();
    most_running = std::max<int>(most_running, static_cast<int>(after.running.size()));
    longest_queue = std::max<int>(longest_queue, static_cast<int>(after.queued.size()));
    std::set<std::string> expected;
    for (auto it = live.begin(); it != live.end();) {
      if (it->second <= after.now) {
        it = live.erase(it);  // expired
      } else {
        expected.insert(it->first);
        ++it;
      }
    }
    const auto listed = ids(after.reservations);
    ASSERT_EQ(std::set<std::string>(listed.begin(), listed.end()), expected) << "step " << step;
  }
  int completed = 0;
  for (const auto& id : jobs) {
    auto st = c->job_status(id);
    ASSERT_TRUE(st) << id;
    completed += *st == lrms_job_state::completed;
  }
  // The walk must have exercised the interesting paths, not just refusals.
  EXPECT_GT(created, 1000);
  EXPECT_GT(busy, 100);
  EXPECT_GT(modified, 500);
  EXPECT_GT(most_running, 3);
  EXPECT_GT(longest_queue, 10);
  EXPECT_GT(completed, 500);
}

}  // namespace
}  // namespace arbroker
