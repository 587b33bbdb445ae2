// The LRMS view of a cluster service on its own: when it reads the LRMS (whole, or the jobs
// only), and the admission rule it gives for each site policy.

#include "arbroker/actors/lrms_view.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "arbroker/adapters/owned_lrms.hpp"
#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker {
namespace {

struct lrms_view_test : ::testing::Test {
  timestamp now = 1'000'000;
  simulated_lrms* sim = nullptr;  // owned by backend
  std::unique_ptr<lrms> backend;
  std::map<lrms_call, int> calls;

  void SetUp() override {
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, [this] { return now; }});
    ASSERT_TRUE(l);
    sim = l->get();
    backend = std::make_unique<timed_lrms>(std::move(*l),
                                           [this](lrms_call c, auto, bool) { ++calls[c]; });
  }

  lrms_view make(ljp_policy ljp = ljp_policy::off, ljp_method check = ljp_method::ese) {
    cluster_policy p;
    p.refresh = 10;
    p.full_refresh = 60;
    p.ljp = ljp;
    p.ljp_check = check;
    auto v = lrms_view::create({"c1", 64, p});
    EXPECT_TRUE(v) << to_string(v.err());
    return std::move(*v);
  }
  // Which reads a refresh at `t` made: "whole", "jobs" or "none".
  std::string read_at(lrms_view& v, timestamp t) {
    now = t;
    calls.clear();
    EXPECT_TRUE(v.refresh(*backend, now));
    if (calls[lrms_call::snapshot]) return "whole";
    return calls[lrms_call::jobs_snapshot] ? "jobs" : "none";
  }
};

TEST_F(lrms_view_test, ReadsTheJobsEveryRefreshAndTheWholeEveryFullRefresh) {
  auto v = make();
  const timestamp t0 = now;
  EXPECT_EQ(read_at(v, t0), "whole");  // the first use
  EXPECT_EQ(read_at(v, t0 + 9), "none");
  EXPECT_EQ(read_at(v, t0 + 10), "jobs");
  EXPECT_EQ(read_at(v, t0 + 15), "none");
  ASSERT_TRUE(sim->create_reservation({"site", "root", t0 + 600, 600, 8}));  // not the view's
  EXPECT_EQ(read_at(v, t0 + 60), "whole");
  EXPECT_EQ(v.profile().free_at(t0 + 700), 56);
}

// The periodic full read is made only when something but the owner's own calls (through its
// owned_lrms) changed the reservations since the last: otherwise the view keeps all it would
// list, and the jobs are read instead, the ended reservations dropped.
TEST_F(lrms_view_test, TheWholeIsReadAgainOnlyWhenSomethingElseChangedTheReservations) {
  owned_lrms owner(std::move(backend));
  const auto read = [&](lrms_view& v, timestamp t) {
    now = t;
    calls.clear();
    EXPECT_TRUE(v.refresh(owner, now));
    if (calls[lrms_call::snapshot]) return "whole";
    return calls[lrms_call::jobs_snapshot] ? "jobs" : "none";
  };
  auto v = make();
  const timestamp t0 = now;
  EXPECT_EQ(read(v, t0), "whole");
  auto mine = owner.create_reservation({"arb-1", "alice", t0 + 100, 50, 16});  // ends at +150
  ASSERT_TRUE(mine);
  v.put(*mine, {t0 + 100, t0 + 150, 16}, now);
  auto moved = owner.create_reservation({"arb-2", "alice", t0 + 600, 600, 8});
  ASSERT_TRUE(moved);
  v.put(*moved, {t0 + 600, t0 + 1200, 8}, now);
  EXPECT_EQ(read(v, t0 + 60), "jobs") << "only the view's own reservations changed";
  EXPECT_EQ(v.capacity().reservations(), 2u);
  ASSERT_TRUE(owner.extend_reservation(*moved, t0 + 1500));
  v.put(*moved, {t0 + 600, t0 + 1500, 8}, now);
  EXPECT_EQ(read(v, t0 + 160), "jobs");
  EXPECT_EQ(v.capacity().reservations(), 1u) << "the one that ended at +150 is dropped";
  EXPECT_EQ(v.profile().free_at(t0 + 1400), 56);

  ASSERT_TRUE(sim->create_reservation({"site", "root", t0 + 3000, 600, 4}));  // someone else's
  EXPECT_EQ(read(v, t0 + 200), "jobs") << "not due yet: it is seen at the next full read";
  EXPECT_EQ(read(v, t0 + 220), "whole");
  EXPECT_EQ(v.profile().free_at(t0 + 3100), 60);
  auto again = owner.modify_reservation(*moved, {"arb-2", "alice", t0 + 700, 600, 8});
  ASSERT_TRUE(again);
  v.erase(*moved);
  v.put(*again, {t0 + 700, t0 + 1300, 8}, now);
  ASSERT_TRUE(owner.delete_reservation(*again));
  v.erase(*again);
  EXPECT_EQ(read(v, t0 + 280), "jobs");

  sim->fail_all_nodes("the power went");  // every reservation gone: read whole, which fails
  now = t0 + 340;
  const auto down = v.refresh(owner, now);
  ASSERT_FALSE(down);
  EXPECT_EQ(down.err().code, errc::unreachable);
}

// Whatever the owner does through its owned_lrms (and keeps in the view), and whatever jobs
// come and go, a view that skipped its full reads equals one read whole at each of them; a
// reservation made by someone else is in it from its next full read on.
TEST_F(lrms_view_test, AViewThatSkipsItsFullReadsEqualsOneReadWhole) {
  owned_lrms owner(std::move(backend));
  cluster_policy p;
  p.refresh = 0;  // as the simulator's
  p.full_refresh = 30;
  p.ljp = ljp_policy::enforce;
  p.ljp_check = ljp_method::ese;  // the queue's plan kept too
  auto made = lrms_view::create({"c1", 64, p});
  ASSERT_TRUE(made);
  auto& v = *made;
  std::mt19937 rng(7);
  const auto in = [&](int lo, int hi) { return lo + static_cast<int>(rng() % (hi - lo + 1)); };
  std::vector<std::pair<std::string, reservation_span>> mine;
  timestamp last_full = -time_infinity;
  int skipped = 0, whole = 0, compared = 0;
  for (int step = 0; step < 2000; ++step) {
    now += in(0, 12);
    const timestamp start = now + in(0, 400);
    const int np = in(1, 24);
    const std::size_t i = mine.empty() ? 0 : rng() % mine.size();
    switch (in(0, 9)) {
      case 0:
      case 1:
        if (const duration length = in(1, 400);
            auto id = owner.create_reservation({"arb", "alice", start, length, np})) {
          mine.emplace_back(*id, reservation_span{start, start + length, np});
          v.put(*id, mine.back().second, now);
        }
        break;
      case 2:
        if (!mine.empty()) {
          auto del = owner.delete_reservation(mine[i].first);
          if (del || del.err().code == errc::not_found) {
            v.erase(mine[i].first);
            mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(i));
          }
        }
        break;
      case 3:
        if (!mine.empty()) {
          const duration length = in(1, 400);
          if (auto id =
                  owner.modify_reservation(mine[i].first, {"arb", "alice", start, length, np})) {
            v.erase(mine[i].first);
            mine[i] = {*id, {start, start + length, np}};
            v.put(*id, mine[i].second, now);
          }
        }
        break;
      case 4:
        if (!mine.empty()) {
          const timestamp to = mine[i].second.end + in(1, 300);
          if (owner.extend_reservation(mine[i].first, to)) {
            mine[i].second.end = to;
            v.put(mine[i].first, mine[i].second, now);
          }
        }
        break;
      case 5:
      case 6:
        (void)sim->submit_local_job({"l", "bob", in(1, 24), in(10, 600), std::nullopt, "", ""},
                                    in(5, 700));
        break;
      case 7:
        if (in(0, 3) == 0) (void)sim->create_reservation({"site", "root", start, in(1, 300), np});
        break;
      default:
        break;
    }
    calls.clear();
    ASSERT_TRUE(v.refresh(owner, now)) << "step " << step;
    const bool due = now - last_full >= p.full_refresh;
    if (calls[lrms_call::snapshot]) last_full = now;  // (one needed at once, too)
    if (!due) continue;                               // a read of the jobs only
    last_full = now;
    ++(calls[lrms_call::snapshot] ? whole : skipped);
    auto fresh = make();
    ASSERT_TRUE(fresh.refresh(*sim, now, true));
    ++compared;
    ASSERT_EQ(v.capacity().reservations(), fresh.capacity().reservations()) << "step " << step;
    ASSERT_EQ(v.capacity().workload(now).reservations, fresh.capacity().workload(now).reservations)
        << "step " << step;
    ASSERT_EQ(v.capacity().t_wkl(), fresh.capacity().t_wkl()) << "step " << step;
    const auto& plan = v.capacity().planned(now);
    const auto& fresh_plan = fresh.capacity().planned(now);
    for (timestamp t = now; t < now + 2000; t += 5) {
      ASSERT_EQ(v.profile().free_at(t), fresh.profile().free_at(t))
          << "step " << step << " at " << t;
      ASSERT_EQ(plan.free_at(t), fresh_plan.free_at(t)) << "step " << step << " at " << t;
    }
  }
  EXPECT_GT(skipped, 100);  // both came up often
  EXPECT_GT(whole, 30);
  EXPECT_EQ(compared, skipped + whole);
}

// refresh 0 reads the jobs on every call, but not twice at one instant while the LRMS says
// none of them changed (one request makes several calls).
TEST_F(lrms_view_test, WithRefreshZeroTheJobsAreReadOncePerInstantWhileTheyStayTheSame) {
  cluster_policy p;
  p.refresh = 0;
  p.full_refresh = 60;
  auto v = lrms_view::create({"c1", 64, p});
  ASSERT_TRUE(v);
  const timestamp t0 = now;
  EXPECT_EQ(read_at(*v, t0), "whole");
  EXPECT_EQ(read_at(*v, t0), "none");
  ASSERT_TRUE(sim->create_reservation({"r", "alice", t0 + 600, 600, 8}));  // no job changed
  EXPECT_EQ(read_at(*v, t0), "none");
  ASSERT_TRUE(sim->submit_local_job({"j", "bob", 4, 600, std::nullopt, "", ""}, 600));
  EXPECT_EQ(read_at(*v, t0), "jobs");
  EXPECT_EQ(read_at(*v, t0), "none");
  EXPECT_EQ(read_at(*v, t0 + 1), "jobs");  // another instant: the remaining walltimes moved
  v->jobs_changed();
  EXPECT_EQ(read_at(*v, t0 + 1), "jobs");
}

TEST_F(lrms_view_test, ReadsAgainAtOnceWhenToldItIsWrongOrTheJobsChanged) {
  auto v = make();
  const timestamp t0 = now;
  EXPECT_EQ(read_at(v, t0), "whole");
  v.jobs_changed();
  EXPECT_EQ(read_at(v, t0 + 1), "jobs");
  v.wrong();
  EXPECT_EQ(read_at(v, t0 + 2), "whole");
  now = t0 + 3;
  calls.clear();
  ASSERT_TRUE(v.refresh(*backend, now, true));  // forced
  EXPECT_EQ(calls[lrms_call::snapshot], 1);
}

TEST_F(lrms_view_test, KeepsItsOwnReservationsBetweenReadsAndFreedCpusBringTheJobsBack) {
  auto v = make();
  ASSERT_TRUE(sim->submit_local_job({"big", "bob", 64, 3600, std::nullopt, "", ""}, 3600));
  ASSERT_TRUE(sim->submit_local_job({"next", "bob", 8, 600, std::nullopt, "", ""}, 600));
  EXPECT_EQ(read_at(v, now), "whole");
  EXPECT_EQ(v.running(), 1);
  EXPECT_EQ(v.queued(), 1);
  v.put("r1", {now + 7200, now + 9000, 16}, now);
  EXPECT_EQ(v.profile().free_at(now + 8000), 48);  // without reading the LRMS
  v.erase("r1");
  EXPECT_EQ(v.profile().free_at(now + 8000), 64);
  EXPECT_EQ(read_at(v, now + 1), "jobs");  // a queued job may take the CPUs
}

TEST_F(lrms_view_test, TheAdmissionRuleFollowsTheSitePolicy) {
  ASSERT_TRUE(sim->submit_local_job({"big", "bob", 64, 3600, std::nullopt, "", ""}, 3600));
  ASSERT_TRUE(sim->submit_local_job({"next", "bob", 32, 600, std::nullopt, "", ""}, 600));
  {
    auto v = make(ljp_policy::off);
    ASSERT_EQ(read_at(v, now), "whole");
    auto rule = v.admission_for(true, false, now);
    ASSERT_TRUE(rule);
    EXPECT_FALSE(rule->ljp);
    EXPECT_EQ(rule->free, &v.profile());
    EXPECT_EQ(rule->not_before, now);
  }
  {
    auto v = make(ljp_policy::enforce, ljp_method::twkl);
    ASSERT_EQ(read_at(v, now), "whole");
    auto rule = v.admission_for(true, false, now);
    ASSERT_TRUE(rule);
    EXPECT_TRUE(rule->ljp);
    EXPECT_EQ(rule->not_before, v.capacity().t_wkl());
    EXPECT_GT(rule->not_before, now);  // the queued job waits for the big one
    // A user may not waive it where the site enforces it; an admin may.
    EXPECT_EQ(v.admission_for(false, false, now).err().code, errc::permission_denied);
    EXPECT_FALSE(v.admission_for(false, true, now)->ljp);
  }
  {
    auto v = make(ljp_policy::enforce, ljp_method::ese);
    ASSERT_EQ(read_at(v, now), "whole");
    auto rule = v.admission_for(true, false, now);
    ASSERT_TRUE(rule);
    EXPECT_EQ(rule->free, &v.capacity().planned(now));
    // The queued job's 32 CPUs are planned after the big one: vacant there only 32.
    EXPECT_EQ(rule->free->free_at(now + 3600), 32);
    EXPECT_EQ(v.profile().free_at(now + 3600), 64);
  }
}

}  // namespace
}  // namespace arbroker
