// A whole node in-process: requests through the C++ API, durable state across restarts,
// and recovery of what a crash can leave behind (rows written straight into the store).

#include "arbroker/node/node.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "arbroker/actors/engine.hpp"
#include "arbroker/messages/grid_job_record.hpp"
#include "arbroker/store/sqlite_journal.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;

class node_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("arb-node-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    now = wall_clock()();
  }
  void TearDown() override { fs::remove_all(dir); }

  node_config config() const {
    auto cfg = default_node_config();
    cfg.data_dir = dir.string();
    for (auto& c : cfg.clusters)
      c.local_jobs.clear();  // an empty grid: the tests know exactly what is reserved
    return cfg;
  }

  std::unique_ptr<node> start(node_config cfg) {
    auto n = node::start(std::move(cfg));
    EXPECT_TRUE(n) << (n ? "" : to_string(n.err()));
    return n ? std::move(*n) : nullptr;
  }

  // A grid job that ended at `ended`, written into the store of `dir` as the manager writes
  // one (before the node starts).
  void save_ended_grid_job(const std::string& id, const std::string& owner, grid_job_state state,
                           timestamp ended) {
    fs::create_directories(dir);
    auto j = sqlite_journal::open((dir / "arbroker.db").string());
    ASSERT_TRUE(j) << j.err().message;
    msg::grid_job_record rec;
    rec.request.user = owner;
    rec.request.np = 2;
    rec.request.walltime = 60;
    rec.job.id = id;
    rec.job.owner = owner;
    rec.job.state = state;
    rec.job.submitted = ended - 540;
    rec.job.ended = ended;
    ASSERT_TRUE((*j)->save_grid_job({id, owner, false, msg::encode_record(rec), ended}));
  }

  // Alice's grid job of one CPU for a minute.
  static msg::grid_submit_request small_grid_job(const std::string& name) {
    msg::grid_submit_request r;
    r.user = "alice";
    r.name = name;
    r.command = "true";
    r.np = 1;
    r.walltime = 60;
    return r;
  }

  msg::elastic_request elastic(const std::string& user, int np, duration offset = 3600) const {
    msg::elastic_request r;
    r.user = user;
    r.est = now + offset;
    r.let = now + offset + 6 * 3600;
    r.np_min = np;
    r.np_max = np;
    r.dur_ref = 3600;
    r.pp_ref = 1500;
    r.np_ref = np;
    r.prefer = *parse_preferences("start,cost");
    return r;
  }

  msg::coreservation_request coreservation(const std::string& user) const {
    msg::coreservation_request r;
    r.user = user;
    r.est = now + 2 * 3600;
    r.let = now + 10 * 3600;
    for (int i = 0; i < 2; ++i) {
      msg::coreservation_component c;
      c.np_min = c.np_max = c.np_ref = 8;
      c.dur_ref = 3600;
      c.pp_ref = 1500;
      r.components.push_back(c);
    }
    return r;
  }

  // The LRMS reservation names on a cluster, from its status report.
  static std::set<std::string> lrms_names(const std::vector<msg::cluster_status>& st,
                                          const std::string& cluster) {
    std::set<std::string> out;
    for (const auto& s : st)
      if (s.cluster == cluster)
        for (const auto& r : s.lrms_reservations)
          out.insert(r.id);
    return out;
  }

  fs::path dir;
  timestamp now = 0;
};

TEST_F(node_test, ReservesListsEstimatesAndCancelsThroughTheApi) {
  auto n = start(config());
  ASSERT_TRUE(n);
  auto rep = n->elastic(elastic("alice", 8));
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  const auto& r = rep.reservation;
  EXPECT_EQ(r.owner, "alice");
  EXPECT_EQ(r.state, reservation_state::committed);

  auto mine = n->list({"alice"});
  ASSERT_EQ(mine.reservations.size(), 1u);
  EXPECT_EQ(mine.reservations[0].id, r.id);
  EXPECT_TRUE(n->list({"bob"}).reservations.empty());
  // Another user's id is "not found", exactly like a missing one.
  EXPECT_EQ(n->query({"bob", r.id}).error.code, static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(n->cancel({"bob", r.id}).error.code, static_cast<std::uint8_t>(errc::not_found));

  std::promise<std::vector<msg::estimate_reply>> p;
  n->estimate({.np = 16, .walltime = 3600}, {"berlin", "nowhere"},
              [&](std::vector<msg::estimate_reply> e) { p.set_value(std::move(e)); });
  auto est = p.get_future().get();
  ASSERT_EQ(est.size(), 2u);
  EXPECT_TRUE(est[0].error.ok()) << est[0].error.message;
  EXPECT_EQ(est[0].cluster, "berlin");
  EXPECT_GE(est[0].start, now);
  EXPECT_LE(est[0].start, now + 5);  // an empty cluster starts it at once
  EXPECT_EQ(est[1].error.code, static_cast<std::uint8_t>(errc::not_found));

  EXPECT_TRUE(n->cancel({"alice", r.id}).error.ok());
  EXPECT_EQ(n->query({"alice", r.id}).info.state, reservation_state::cancelled);
}

TEST_F(node_test, CommittedReservationsSurviveARestartUnderTheirIds) {
  std::vector<msg::reservation_info> before;
  {
    auto n = start(config());
    ASSERT_TRUE(n);
    auto a = n->elastic(elastic("alice", 8));
    ASSERT_TRUE(a.error.ok()) << a.error.message;
    auto co = n->coreserve(coreservation("bob"));
    ASSERT_TRUE(co.error.ok()) << co.error.message;
    for (const auto& part : co.parts)
      EXPECT_GT(part.cost, 0) << part.id << ": the reply carries what the part costs";
    before = n->list({""}).reservations;  // every user's
    ASSERT_EQ(before.size(), 3u);
  }
  auto n = start(config());
  ASSERT_TRUE(n);
  // A simulated LRMS starts empty: recovery made all three again.
  EXPECT_EQ(n->recovery().clusters.recreated, 3);
  EXPECT_EQ(n->recovery().clusters.lost, 0);
  auto after = n->list({""}).reservations;
  ASSERT_EQ(after.size(), before.size());
  auto by_id = [](const auto& a, const auto& b) { return a.id < b.id; };
  std::sort(before.begin(), before.end(), by_id);  // the broker merges clusters' lists
  std::sort(after.begin(), after.end(), by_id);
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].owner, before[i].owner);
    EXPECT_EQ(after[i].start, before[i].start);
    EXPECT_EQ(after[i].end, before[i].end);
    EXPECT_EQ(after[i].np, before[i].np);
    EXPECT_EQ(after[i].state, reservation_state::committed);
  }
  // ... and they hold capacity in the LRMS again.
  auto st = n->status();
  std::size_t in_lrms = 0;
  for (const auto& s : st)
    in_lrms += s.lrms_reservations.size();
  EXPECT_EQ(in_lrms, before.size());
  // New ids never reuse old ones.
  auto c = n->elastic(elastic("alice", 8));
  ASSERT_TRUE(c.error.ok());
  for (const auto& b : before)
    EXPECT_NE(c.reservation.id, b.id);
}

// Two nodes on one batch system never share names: a node's reservations in every LRMS are
// "arb-<its id>-<n>", the id made once and kept in its store (or configured), and the store
// claims each cluster's prefix, so that a configured prefix that differs is refused.
TEST_F(node_test, ANodeNamesItsReservationsWithItsOwnIdKeptInTheStore) {
  std::string prefix;
  {
    auto n = start(config());
    ASSERT_TRUE(n);
    ASSERT_TRUE(n->elastic(elastic("alice", 8)).error.ok());
    const auto id = n->config().id;
    ASSERT_EQ(id.size(), 8u);
    prefix = "arb-" + id + "-";
    for (const auto& s : n->status()) {
      EXPECT_EQ(s.name_prefix, prefix) << s.cluster;
      for (const auto& r : s.lrms_reservations)
        EXPECT_EQ(r.id.rfind(prefix, 0), 0u) << r.id;
    }
  }
  {
    auto n = start(config());
    ASSERT_TRUE(n);
    EXPECT_EQ(n->config().id + "-", prefix.substr(4));
    for (const auto& s : n->status())
      EXPECT_EQ(s.name_prefix, prefix) << s.cluster;
  }
  auto other = config();
  other.clusters[0].name_prefix = "site-";
  auto refused = node::start(other);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::invalid_parameter);
  EXPECT_NE(refused.err().message.find(other.clusters[0].info.name + ": recovery"),
            std::string::npos)
      << refused.err().message;

  // A configured id, on a new store.
  fs::remove_all(dir);
  auto named = config();
  named.id = "x1";
  auto n = start(named);
  ASSERT_TRUE(n);
  for (const auto& s : n->status())
    EXPECT_EQ(s.name_prefix, "arb-x1-") << s.cluster;
}

// A store written before claims keeps the old names ("arb-<n>") where it may have something
// in an LRMS: its grid jobs' copies are queued under them. A cluster added to a store that
// already has its id gets the node's own names.
TEST_F(node_test, AStoreFromBeforeClaimsKeepsTheOldNames) {
  {
    fs::create_directories(dir);
    auto j = sqlite_journal::open((dir / "arbroker.db").string());
    ASSERT_TRUE(j) << j.err().message;
    ASSERT_TRUE((*j)->save_grid_job({"arbd/g1", "alice", false, "", now - 60}));
  }
  auto cfg = config();
  auto added = cfg.clusters.back();
  cfg.clusters.pop_back();
  {
    auto n = start(cfg);
    ASSERT_TRUE(n);
    for (const auto& s : n->status())
      EXPECT_EQ(s.name_prefix, "arb-") << s.cluster;
  }
  cfg.clusters.push_back(added);
  auto n = start(cfg);
  ASSERT_TRUE(n);
  for (const auto& s : n->status())
    EXPECT_EQ(s.name_prefix, s.cluster == added.info.name ? "arb-" + n->config().id + "-" : "arb-")
        << s.cluster;
}

// Named broker instances (paper 000: one GRS per VO): a request goes to the instance of its
// user's VO, with that instance's defaults (here the length of a hold); a user no instance
// serves gets a clear refusal until a catch-all instance exists.
TEST_F(node_test, RequestsGoToTheBrokerInstanceOfTheirUsersVirtualOrganization) {
  auto cfg = config();
  for (auto& u : cfg.users)
    if (u.name == "bob") u.vo = "atlas";
  broker_entry atlas;
  atlas.name = "atlas";
  atlas.vo = "atlas";
  atlas.hold_seconds = 600;
  cfg.brokers = {atlas};
  auto hold = [&](node& n, const std::string& user) {
    auto r = elastic(user, 8);
    r.mode = msg::request_mode::hold;
    return n.elastic(r);
  };
  {
    auto n = start(cfg);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->broker_instance_of("bob"), "atlas");
    EXPECT_EQ(n->broker_instance_of("alice"), "");
    auto b = hold(*n, "bob");
    ASSERT_TRUE(b.error.ok()) << b.error.message;
    EXPECT_NEAR(static_cast<double>(b.reservation.expiry - now), 600, 10);
    auto a = hold(*n, "alice");
    EXPECT_EQ(a.error.code, static_cast<std::uint8_t>(errc::permission_denied));
    EXPECT_NE(a.error.message.find("no broker instance of this node serves user 'alice'"),
              std::string::npos)
        << a.error.message;
    // Her reservations are still hers to list and cancel: those reach the clusters anyway.
    EXPECT_TRUE(n->list({"alice"}).error.ok());
    // A grid job of strategy reserve makes a reservation: refused alike, and nothing is
    // made; a job that only queues is hers to submit.
    auto reserve = small_grid_job("held");
    reserve.strategy = grid_strategy::reserve;
    auto refused = n->grid_submit(reserve);
    EXPECT_EQ(refused.error.code, static_cast<std::uint8_t>(errc::permission_denied));
    EXPECT_NE(refused.error.message.find("no broker instance of this node serves user 'alice'"),
              std::string::npos)
        << refused.error.message;
    EXPECT_TRUE(n->list({"alice"}).reservations.empty());
    EXPECT_TRUE(n->grid_submit(small_grid_job("queued")).error.ok());
    // ... and so is a request of several jobs with a reserve job among them, as a whole.
    auto then = small_grid_job("then");
    then.user.clear();
    then.after = {"held"};
    reserve.user.clear();
    auto many = n->grid_submit_many({"alice", {reserve, then}});
    EXPECT_EQ(many.error.code, static_cast<std::uint8_t>(errc::permission_denied));
    EXPECT_TRUE(many.jobs.empty());
    reserve.strategy = grid_strategy::single;
    many = n->grid_submit_many({"alice", {reserve, then}});
    ASSERT_TRUE(many.error.ok()) << many.error.message;
    ASSERT_EQ(many.jobs.size(), 2u);
    EXPECT_EQ(many.jobs[1].state, grid_job_state::pending);
    reserve.user = "alice";
    reserve.strategy = grid_strategy::reserve;
    auto bobs = reserve;
    bobs.user = "bob";
    const auto granted = n->grid_submit(bobs);
    EXPECT_TRUE(granted.error.ok()) << granted.error.message;
    EXPECT_FALSE(granted.job.reservation.empty());
  }
  broker_entry rest;
  rest.name = "everyone";
  rest.hold_seconds = 120;
  cfg.brokers.push_back(rest);
  auto n = start(cfg);
  ASSERT_TRUE(n);
  auto a = hold(*n, "alice");
  ASSERT_TRUE(a.error.ok()) << a.error.message;
  EXPECT_NEAR(static_cast<double>(a.reservation.expiry - now), 120, 10);
}

// A user's VO reaches the clusters' cost agreements (paper 000): bob of VO "atlas" pays
// atlas's factor, alice (no VO) the base price, for the same reservation.
TEST_F(node_test, AUsersVirtualOrganizationPricesTheirReservations) {
  auto cfg = config();
  for (auto& u : cfg.users)
    if (u.name == "bob") u.vo = "atlas";
  for (auto& c : cfg.clusters)
    c.cost = *cost_model::create(1.0, 3600, {}, 0, {{"atlas", 0.5}});
  auto n = start(cfg);
  ASSERT_TRUE(n);
  auto a = n->elastic(elastic("alice", 8));
  auto b = n->elastic(elastic("bob", 8));
  ASSERT_TRUE(a.error.ok()) << a.error.message;
  ASSERT_TRUE(b.error.ok()) << b.error.message;
  ASSERT_EQ(a.reservation.end - a.reservation.start, b.reservation.end - b.reservation.start);
  ASSERT_EQ(a.reservation.np, b.reservation.np);
  EXPECT_GT(a.reservation.cost, 0);
  EXPECT_DOUBLE_EQ(b.reservation.cost, a.reservation.cost * 0.5);
}

// Finished reservations leave the engine's memory at once and live in the store's history:
// pages of `list --history`, and requests that name one get the answer they got while it
// was in memory (the same owner rule, the same errors).
TEST_F(node_test, FinishedReservationsAreReadFromTheStoresHistory) {
  std::vector<std::string> ids;
  {
    auto n = start(config());
    ASSERT_TRUE(n);
    for (int i = 0; i < 3; ++i) {
      auto rep = n->elastic(elastic("alice", 8, 3600 * (i + 1)));
      ASSERT_TRUE(rep.error.ok()) << rep.error.message;
      ids.push_back(rep.reservation.id);
    }
    ASSERT_TRUE(n->cancel({"alice", ids[0]}).error.ok());
    ASSERT_TRUE(n->cancel({"alice", ids[2]}).error.ok());

    auto live = n->list({"alice"});
    ASSERT_EQ(live.reservations.size(), 1u);  // live ones only, unless history is asked for
    EXPECT_EQ(live.reservations[0].id, ids[1]);
    EXPECT_TRUE(live.next.empty());

    // Pages of one: the live one and the latest finished, then the other finished one.
    std::set<std::string> seen;
    auto page = n->list({"alice", true, 1, ""});
    ASSERT_TRUE(page.error.ok()) << page.error.message;
    ASSERT_EQ(page.reservations.size(), 2u);
    EXPECT_EQ(page.reservations[0].id, ids[1]);
    EXPECT_EQ(page.reservations[1].state, reservation_state::cancelled);
    EXPECT_GT(page.reservations[1].finished, 0);
    ASSERT_FALSE(page.next.empty());
    seen.insert(page.reservations[1].id);
    while (!page.next.empty()) {
      page = n->list({"alice", true, 1, page.next});
      ASSERT_TRUE(page.error.ok()) << page.error.message;
      for (const auto& r : page.reservations) {
        EXPECT_EQ(r.state, reservation_state::cancelled) << r.id;
        EXPECT_TRUE(seen.insert(r.id).second) << r.id << " on two pages";
      }
    }
    EXPECT_EQ(seen, (std::set<std::string>{ids[0], ids[2]}));
    EXPECT_TRUE(n->list({"bob", true, 0, ""}).reservations.empty());
    EXPECT_EQ(n->list({"", true, 0, ""}).reservations.size(), 3u);  // an admin: everyone's
    EXPECT_EQ(n->list({"alice", true, 0, "yesterday"}).error.code,
              static_cast<std::uint8_t>(errc::invalid_parameter));

    // One that ended is shown, and cannot be cancelled, changed or committed again.
    auto shown = n->query({"alice", ids[0]});
    ASSERT_TRUE(shown.error.ok()) << shown.error.message;
    EXPECT_EQ(shown.info.state, reservation_state::cancelled);
    EXPECT_EQ(shown.info.owner, "alice");
    auto again = n->cancel({"alice", ids[0]});
    EXPECT_EQ(again.error.code, static_cast<std::uint8_t>(errc::illegal_transition));
    EXPECT_NE(again.error.message.find("nothing to cancel"), std::string::npos)
        << again.error.message;
    msg::modify_request m;
    m.user = "alice";
    m.reservation_id = ids[0];
    m.start = now + 7200;
    EXPECT_EQ(n->modify(m).error.code, static_cast<std::uint8_t>(errc::illegal_transition));
    // Another user's finished reservation looks exactly like a missing one; an admin's not.
    EXPECT_EQ(n->query({"bob", ids[0]}).error.code, static_cast<std::uint8_t>(errc::not_found));
    EXPECT_EQ(n->cancel({"bob", ids[0]}).error.code, static_cast<std::uint8_t>(errc::not_found));
    EXPECT_TRUE(n->query({"", ids[0]}).error.ok());
    EXPECT_EQ(n->query({"alice", "berlin/999"}).error.code,
              static_cast<std::uint8_t>(errc::not_found));
    // The newest id is a finished one: a restart must not give it again.
    auto last = n->elastic(elastic("alice", 8));
    ASSERT_TRUE(last.error.ok());
    ASSERT_TRUE(n->cancel({"alice", last.reservation.id}).error.ok());
    ids.push_back(last.reservation.id);
  }
  auto n = start(config());
  ASSERT_TRUE(n);
  EXPECT_EQ(n->recovery().clusters.recreated, 1);  // only the live one is recovered
  auto fresh = n->elastic(elastic("alice", 8));
  ASSERT_TRUE(fresh.error.ok());
  for (const auto& id : ids)
    EXPECT_NE(fresh.reservation.id, id);
  EXPECT_EQ(n->query({"alice", ids[2]}).info.state, reservation_state::cancelled);
}

// An ended grid job is not in the manager's memory after a restart (recovery reads the
// active ones): the node answers show and cancel from the store, to its owner and admins
// only, and new ids go on after it.
TEST_F(node_test, EndedGridJobsAreReadFromTheStore) {
  const std::string id = config().name + "/g7";
  save_ended_grid_job(id, "alice", grid_job_state::completed, now - 60);
  auto n = start(config());
  ASSERT_TRUE(n);
  auto shown = n->grid_query({"alice", id});
  ASSERT_TRUE(shown.error.ok()) << shown.error.message;
  EXPECT_EQ(shown.job.state, grid_job_state::completed);
  EXPECT_EQ(shown.job.ended, now - 60);
  EXPECT_EQ(n->grid_query({"bob", id}).error.err(), errc::not_found);  // as if missing
  EXPECT_TRUE(n->grid_query({"", id}).error.ok());                     // an admin
  auto cancel = n->grid_cancel({"alice", id});
  EXPECT_EQ(cancel.error.err(), errc::illegal_transition);
  EXPECT_NE(cancel.error.message.find("has already ended (completed)"), std::string::npos)
      << cancel.error.message;
  EXPECT_EQ(n->grid_cancel({"bob", id}).error.err(), errc::not_found);
  EXPECT_EQ(n->grid_query({"alice", config().name + "/g404"}).error.err(), errc::not_found);
  auto fresh = n->grid_submit(small_grid_job("after"));
  ASSERT_TRUE(fresh.error.ok()) << fresh.error.message;
  EXPECT_EQ(fresh.job.id, config().name + "/g8");
}

// `jobs --history`: the active grid jobs, then the ended ones from the store by pages, most
// recently ended first, every one exactly once, a user's own only (an admin's: everyone's),
// filters applied before a page is cut (a page is short only when the store has no more).
TEST_F(node_test, EndedGridJobsAreListedFromTheStoreByPages) {
  struct seeded {
    std::string id, owner;
    grid_job_state state;
    timestamp ended;
  };
  std::vector<seeded> all;
  const grid_job_state states[] = {grid_job_state::completed, grid_job_state::failed,
                                   grid_job_state::cancelled};
  for (int i = 1; i <= 9; ++i)  // two pairs end in the same second: the id breaks the tie
    all.push_back({config().name + "/g" + std::to_string(i), i % 4 == 0 ? "bob" : "alice",
                   states[i % 3], now - 1000 + (i / 2) * 100});
  for (const auto& g : all)
    save_ended_grid_job(g.id, g.owner, g.state, g.ended);
  auto n = start(config());
  ASSERT_TRUE(n);
  auto live = n->grid_submit(small_grid_job("live"));
  ASSERT_TRUE(live.error.ok()) << live.error.message;

  // Every page of `user`'s history in `state`, by pages of `limit`: the ids in page order.
  auto pages = [&](const std::string& user, const std::string& state, int limit) {
    std::vector<std::string> ids;
    std::string before;
    for (int page = 0; page < 20; ++page) {
      auto l = n->grid_list({user, state, "", true, limit, before});
      EXPECT_TRUE(l.error.ok()) << l.error.message;
      std::size_t ended = 0;
      for (const auto& j : l.jobs) {
        ids.push_back(j.id);
        ended += j.ended > 0 ? 1 : 0;  // -1 while it has not ended
      }
      // Full pages of ended ones, but the last.
      EXPECT_LE(ended, static_cast<std::size_t>(limit));
      if (l.next.empty()) return ids;
      EXPECT_EQ(ended, static_cast<std::size_t>(limit));
      before = l.next;
    }
    ADD_FAILURE() << "no last page";
    return ids;
  };
  // The expected order: the live one first (only on the first page), then (ended, id) down.
  auto expected = [&](const std::string& user, std::optional<grid_job_state> state) {
    std::vector<seeded> picked;
    for (const auto& g : all)
      if ((user.empty() || g.owner == user) && (!state || g.state == *state)) picked.push_back(g);
    std::sort(picked.begin(), picked.end(), [](const seeded& a, const seeded& b) {
      return std::pair{a.ended, a.id} > std::pair{b.ended, b.id};
    });
    std::vector<std::string> ids;
    for (const auto& g : picked)
      ids.push_back(g.id);
    return ids;
  };
  auto with_live = [&](std::vector<std::string> ids) {
    ids.insert(ids.begin(), live.job.id);
    return ids;
  };
  EXPECT_EQ(pages("alice", "", 2), with_live(expected("alice", std::nullopt)));
  EXPECT_EQ(pages("alice", "", 100), with_live(expected("alice", std::nullopt)));
  EXPECT_EQ(pages("", "", 4), with_live(expected("", std::nullopt)));  // an admin
  EXPECT_EQ(pages("bob", "", 1), expected("bob", std::nullopt));
  EXPECT_EQ(pages("alice", "failed", 1), expected("alice", grid_job_state::failed));
  EXPECT_FALSE(expected("alice", grid_job_state::failed).empty());

  // Without history: what the manager holds (the ended ones left it at the restart).
  auto held = n->grid_list({"alice", "", ""});
  ASSERT_EQ(held.jobs.size(), 1u);
  EXPECT_EQ(held.jobs[0].id, live.job.id);
  EXPECT_TRUE(held.next.empty());
  // A state that is none (the API refuses it before; an embedding program may not): refused
  // on a later page, read from the store alone, as on the first.
  auto later = n->grid_list(
      {"alice", "runing", "", true, 2, std::to_string(all[0].ended) + ":" + all[0].id});
  EXPECT_EQ(later.error.err(), errc::invalid_parameter);
  EXPECT_EQ(n->grid_list({"alice", "runing", "", true, 2, ""}).error.err(),
            errc::invalid_parameter);
  auto bad = n->grid_list({"alice", "", "", true, 2, "yesterday"});
  EXPECT_EQ(bad.error.err(), errc::invalid_parameter);
  EXPECT_NE(bad.error.message.find("grid_list.before"), std::string::npos) << bad.error.message;
}

// What a crash in the middle of co-reservations leaves in the store, settled on restart:
// a transaction without a commit decision is aborted (presumed abort); one with a decision
// is completed when every part is still there, and compensated when a part was lost.
TEST_F(node_test, RecoverySettlesTransactionsLeftInDoubt) {
  {
    fs::create_directories(dir);
    auto j = sqlite_journal::open((dir / "arbroker.db").string());
    ASSERT_TRUE(j) << j.err().message;
    auto row = [&](std::string id, std::string txn, reservation_state s, timestamp start) {
      reservation_row r;
      r.id = std::move(id);
      r.cluster = r.id.substr(0, r.id.find('/'));
      r.owner = "alice";
      r.txn = std::move(txn);
      r.lrms_id = "R-gone";  // the simulated LRMS died with the process
      r.start = start;
      r.end = start + 3600;
      r.np = r.cluster == "boston" ? 16 : 8;  // boston reserves bunches of 16
      r.state = s;
      r.expiry = s == reservation_state::accepted ? now + 20 : 0;
      ASSERT_TRUE((*j)->save(r));
    };
    using rs = reservation_state;
    const timestamp t = now + 4 * 3600;
    row("berlin/1", "undecided.a1", rs::accepted, t);  // no decision: abort
    row("potsdam/1", "undecided.a1", rs::accepted, t);
    row("berlin/2", "decided.a1", rs::committed, t);  // decision, whole: commit
    row("potsdam/2", "decided.a1", rs::accepted, t);
    row("berlin/3", "broken.a1", rs::committed, t);  // decision, a part lost: compensate
    row("boston/7", "broken.a1", rs::expired, t);
    row("boston/9", "w9", rs::committed, t + 3600);  // a plain elastic reservation
    ASSERT_TRUE((*j)->log_commit("decided.a1"));
    ASSERT_TRUE((*j)->log_commit("broken.a1"));
  }
  auto n = start(config());
  ASSERT_TRUE(n);
  const auto& rec = n->recovery();
  EXPECT_EQ(rec.commit_decisions, 2);
  EXPECT_EQ(rec.clusters.aborted_holds, 2);
  EXPECT_EQ(rec.clusters.completed_holds, 1);
  EXPECT_EQ(rec.clusters.compensated, 1);
  EXPECT_EQ(rec.clusters.recreated, 3);  // berlin/2, potsdam/2, boston/9

  auto state = [&](const std::string& id) {
    auto q = n->query({"alice", id});
    EXPECT_TRUE(q.error.ok()) << id << ": " << q.error.message;
    return static_cast<reservation_state>(q.info.state);
  };
  using rs = reservation_state;
  EXPECT_EQ(state("berlin/1"), rs::cancelled);
  EXPECT_EQ(state("potsdam/1"), rs::cancelled);
  EXPECT_EQ(state("berlin/2"), rs::committed);
  EXPECT_EQ(state("potsdam/2"), rs::committed);
  EXPECT_EQ(state("berlin/3"), rs::cancelled);
  EXPECT_EQ(state("boston/7"), rs::expired);
  EXPECT_EQ(state("boston/9"), rs::committed);

  // The LRMS holds exactly the committed ones.
  auto st = n->status();
  EXPECT_EQ(lrms_names(st, "berlin"), std::set<std::string>{"arb-2"});
  EXPECT_EQ(lrms_names(st, "potsdam"), std::set<std::string>{"arb-2"});
  EXPECT_EQ(lrms_names(st, "boston"), std::set<std::string>{"arb-9"});
  for (const auto& s : st)
    EXPECT_EQ(s.holds, 0) << s.cluster << ": no hold survives a restart";

  // Settled for good: a second restart finds nothing left to decide.
  n.reset();
  auto again = start(config());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->recovery().commit_decisions, 0);
  EXPECT_EQ(again->recovery().clusters.aborted_holds, 0);
  EXPECT_EQ(again->recovery().clusters.compensated, 0);
  EXPECT_EQ(again->recovery().clusters.recreated, 3);
}

TEST_F(node_test, ADataDirectoryServesOneNodeAtATime) {
  auto first = start(config());
  ASSERT_TRUE(first);
  auto second = node::start(config());
  ASSERT_FALSE(second);
  EXPECT_EQ(second.err().code, errc::in_use);
}

TEST_F(node_test, ABadConfigurationStartsNothing) {
  auto cfg = config();
  cfg.clusters[1].info.name = cfg.clusters[0].info.name;
  auto n = node::start(cfg);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.err().code, errc::invalid_parameter);
  EXPECT_FALSE(fs::exists(dir)) << "a refused configuration must not touch the data directory";
}

TEST_F(node_test, AfterShutdownBeganRequestsAreRefusedAtOnce) {
  auto n = start(config());
  ASSERT_TRUE(n);
  EXPECT_EQ(n->shutdown(5), 0u);
  auto rep = n->elastic(elastic("alice", 8));
  EXPECT_EQ(rep.error.code, static_cast<std::uint8_t>(errc::unreachable));
  EXPECT_EQ(n->in_flight(), 0u);
}

}  // namespace
}  // namespace arbroker
