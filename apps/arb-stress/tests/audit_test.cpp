#include "../audit.hpp"

#include <gtest/gtest.h>

#include "arbroker/core/reservation_state.hpp"

namespace arbroker::stress {
namespace {

constexpr auto committed = reservation_state::committed;
constexpr auto accepted = reservation_state::accepted;
constexpr auto cancelled = reservation_state::cancelled;

msg::reservation_info res(std::string id, timestamp s, timestamp e, int np, reservation_state st,
                          timestamp expiry = 0, timestamp admitted = 0) {
  return {std::move(id), "c", "u", s, e, np, st, expiry, admitted, 0};
}

msg::cluster_status status() {
  msg::cluster_status s;
  s.cluster = "c";
  s.now = 100;
  s.cpus = 16;
  return s;
}

TEST(Audit, CapacityRecountsTheLrmsOwnLists) {
  auto s = status();
  s.lrms_reservations = {res("arb-1", 200, 300, 10, committed)};
  s.lrms_running = {res("J1", 50, 250, 6, committed)};
  EXPECT_TRUE(capacity_violations(s).empty());  // 16 of 16 over [200, 250)
  s.lrms_running.push_back(res("J2", 90, 210, 1, committed));
  auto v = capacity_violations(s);
  ASSERT_EQ(v.size(), 1u);  // 17 at t = 200
  EXPECT_NE(v[0].find("17 of 16"), std::string::npos);
  s.lrms_running = {res("J1", 0, 100, 16, committed)};  // over before now: ignored
  EXPECT_TRUE(capacity_violations(s).empty());
}

TEST(Audit, HoldsExpireAndServiceAndLrmsAgree) {
  auto s = status();
  s.reservations = {res("c/1", 200, 300, 4, accepted, 99), res("c/2", 200, 300, 4, committed)};
  s.lrms_reservations = {res("arb-1", 200, 300, 4, committed),
                         res("arb-2", 200, 300, 4, committed)};
  EXPECT_TRUE(hold_violations(s, 1).empty());  // expired 1 s ago: within the tick
  s.reservations[0].expiry = 90;
  EXPECT_EQ(hold_violations(s, 1).size(), 1u);  // 10 s overdue
  s.reservations[0] = res("c/1", 200, 300, 4, cancelled);
  EXPECT_EQ(hold_violations(s, 1).size(), 1u);  // cancelled, but the LRMS still has arb-1
  s.lrms_reservations.erase(s.lrms_reservations.begin());
  EXPECT_TRUE(hold_violations(s, 1).empty());
  s.lrms_reservations.clear();
  EXPECT_EQ(hold_violations(s, 1).size(), 1u);  // c/2 live but missing in the LRMS
}

TEST(Audit, LocalJobsPreferred) {
  auto s = status();
  s.reservations = {res("c/1", 200, 300, 4, committed, 0, 200),
                    res("c/2", 200, 300, 4, committed, 0, 0)};
  EXPECT_TRUE(ljp_violations(s).empty());
  s.reservations.push_back(res("c/3", 150, 300, 4, committed, 0, 151));
  EXPECT_EQ(ljp_violations(s).size(), 1u);
}

TEST(Audit, AccountingMatchesSuccessesExactly) {
  auto a = status();
  a.reservations = {res("c/1", 200, 300, 4, committed), res("c/2", 200, 300, 4, cancelled)};
  EXPECT_TRUE(accounting_violations({a}, {"c/1"}).empty());
  EXPECT_EQ(accounting_violations({a}, {}).size(), 1u);              // committed, never told
  EXPECT_EQ(accounting_violations({a}, {"c/1", "c/9"}).size(), 1u);  // told, not there
  a.reservations.push_back(res("c/3", 200, 300, 4, accepted, 150));
  EXPECT_EQ(accounting_violations({a}, {"c/1"}).size(), 1u);  // a hold left over
}

// A reserve grid job's reservation is committed with no client told: it is the job's (the
// one it holds now), and any other (one a move let go) is a leak.
TEST(Audit, AReservationAGridJobHoldsIsAccountedForAndNoOther) {
  auto a = status();
  a.reservations = {res("c/1", 200, 300, 4, committed), res("c/2", 200, 300, 4, committed)};
  EXPECT_TRUE(accounting_violations({a}, {"c/1"}, {"c/2"}).empty());
  auto leak = accounting_violations({a}, {"c/1"}, {"c/7"});  // c/7: held, already ended
  ASSERT_EQ(leak.size(), 1u);
  EXPECT_EQ(leak[0],
            "c/2 is committed but no client was told it succeeded and no grid job holds it");
}

msg::grid_job_info flood(std::vector<msg::grid_copy_info> copies) {
  msg::grid_job_info j;
  j.id = "n/g1";
  j.owner = "u";
  j.strategy = grid_strategy::flood;
  j.copies = std::move(copies);
  return j;
}

msg::grid_copy_info copy(std::string cluster, std::string id, copy_state st) {
  msg::grid_copy_info c;
  c.cluster = std::move(cluster);
  c.lrms_id = std::move(id);
  c.state = st;
  return c;
}

TEST(Audit, GridSuspectsAreWhatBreaksAPromiseAtOneLook) {
  auto c = status();
  auto d = status();
  d.cluster = "d";
  c.lrms_running = {res("J1", 50, 250, 4, committed)};
  d.lrms_queued = {res("J2", 0, 0, 4, committed)};
  const std::set<std::string> users{"u"};
  auto job = flood({copy("c", "J1", copy_state::running), copy("d", "J2", copy_state::queued)});
  EXPECT_TRUE(grid_suspects({job}, {c, d}, users).empty());
  // The queued copy started before its cancel landed: the job runs twice (for now).
  d.lrms_running = d.lrms_queued;
  d.lrms_queued.clear();
  auto s = grid_suspects({job}, {c, d}, users);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s.begin()->second.find("runs 2 times"), std::string::npos) << s.begin()->second;
  // The node counts it cancelled while the LRMS still has it; and a job nobody placed.
  job.copies[1].state = copy_state::cancelled;
  c.lrms_queued = {res("J9", 0, 0, 1, committed)};
  s = grid_suspects({job}, {c, d}, users);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(s.count("runs n/g1 c:J1 d:J2"));
  EXPECT_TRUE(s.count("dead d:J2"));
  EXPECT_TRUE(s.count("orphan c:J9"));
  // Jobs of other users are not the node's business.
  EXPECT_TRUE(grid_suspects({job}, {c, d}, {"someone"}).empty());
}

TEST(Audit, GridWatchReportsWhatPersistsOnce) {
  grid_watch w(3);
  const std::map<std::string, std::string> dup{{"runs n/g1", "n/g1 runs twice"}};
  EXPECT_TRUE(w.look(dup).empty());
  EXPECT_TRUE(w.look(dup).empty());
  EXPECT_EQ(w.look(dup).size(), 1u);  // a third look, two settled rounds later: a violation
  EXPECT_TRUE(w.look(dup).empty());   // reported once
  grid_watch again(3);
  EXPECT_TRUE(again.look(dup).empty());
  EXPECT_TRUE(again.look({}).empty());  // it went away: a transient
  EXPECT_TRUE(again.look(dup).empty());
  EXPECT_TRUE(again.look(dup).empty());
  EXPECT_EQ(again.look(dup).size(), 1u);
}

}  // namespace
}  // namespace arbroker::stress
