// Watching a whole node in-process (node::watch): what a reservation's and a grid job's life
// tells its owner and an admin, nothing of it to another user, and a watch resumed after a
// restart of the node from the last id it saw.

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>

#include "arbroker/actors/engine.hpp"
#include "arbroker/node/node.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;

struct seen {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<msg::watch_event> events;

  std::function<void(const msg::watch_event&)> callback() {
    return [this](const msg::watch_event& e) {
      std::lock_guard lock{mu};
      events.push_back(e);
      changed.notify_all();
    };
  }
  // Waits until an event of `kind` about `subject` came (ctest's timeout bounds it).
  msg::watch_event wait_for(const std::string& kind, const std::string& subject) {
    std::unique_lock lock{mu};
    msg::watch_event found;
    changed.wait(lock, [&] {
      for (const auto& e : events)
        if (e.kind == kind && e.subject == subject) {
          found = e;
          return true;
        }
      return false;
    });
    return found;
  }
  std::vector<std::string> kinds_of(const std::string& subject) {
    std::lock_guard lock{mu};
    std::vector<std::string> out;
    for (const auto& e : events)
      if (e.subject == subject) out.push_back(e.kind);
    return out;
  }
  std::vector<msg::watch_event> all() {
    std::lock_guard lock{mu};
    return events;
  }
};

class node_watch_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("arb-watch-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::unique_ptr<node> start() {
    auto cfg = default_node_config();
    cfg.data_dir = dir.string();
    for (auto& c : cfg.clusters)
      c.local_jobs.clear();
    auto n = node::start(std::move(cfg));
    EXPECT_TRUE(n) << (n ? "" : to_string(n.err()));
    return n ? std::move(*n) : nullptr;
  }

  static msg::elastic_request eight_cpus(const std::string& user) {
    const timestamp now = wall_clock()();
    msg::elastic_request r;
    r.user = user;
    r.est = now + 3600;
    r.let = now + 7 * 3600;
    r.np_min = r.np_max = r.np_ref = 8;
    r.dur_ref = 3600;
    r.pp_ref = 1500;
    r.prefer = *parse_preferences("start,cost");
    return r;
  }

  fs::path dir;
};

TEST_F(node_watch_test, AReservationsAndAGridJobsLivesAreToldToTheirOwnerAndAnAdminOnly) {
  seen alice, bob, admin;  // before the node: they outlive its feed thread
  auto n = start();
  ASSERT_TRUE(n);
  ASSERT_TRUE(n->watch({"alice", -1, {}}, alice.callback()));
  ASSERT_TRUE(n->watch({"bob", -1, {}}, bob.callback()));
  ASSERT_TRUE(n->watch({"", -1, {"reservation"}}, admin.callback()));
  EXPECT_EQ(n->watchers(), 3u);

  auto rep = n->elastic(eight_cpus("alice"));
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  const auto id = rep.reservation.id;
  ASSERT_TRUE(n->cancel({"alice", id}).error.ok());
  const auto ended = alice.wait_for("reservation.ended", id);
  EXPECT_EQ(ended.state, "cancelled");
  EXPECT_EQ(ended.owner, "alice");
  EXPECT_EQ(ended.np, 8);
  EXPECT_EQ(ended.start, rep.reservation.start);
  EXPECT_EQ(alice.kinds_of(id),
            (std::vector<std::string>{"reservation.created", "reservation.committed",
                                      "reservation.ended"}));
  admin.wait_for("reservation.ended", id);
  EXPECT_EQ(admin.kinds_of(id), alice.kinds_of(id));

  msg::grid_submit_request job;
  job.user = "alice";
  job.name = "w";
  job.command = "true";
  job.np = 1;
  job.walltime = 60;
  auto g = n->grid_submit(job);
  ASSERT_TRUE(g.error.ok()) << g.error.message;
  ASSERT_TRUE(n->grid_cancel({"alice", g.job.id}).error.ok());
  const auto job_ended = alice.wait_for("grid_job.ended", g.job.id);
  EXPECT_EQ(job_ended.state, "cancelled");
  const auto kinds = alice.kinds_of(g.job.id);
  ASSERT_GE(kinds.size(), 2u);
  EXPECT_EQ(kinds.front(), "grid_job.submitted");

  // Ids increase in the order the changes were written, one each.
  auto all = alice.all();
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_LT(all[i - 1].id, all[i].id);
  // Bob was told nothing of alice's; the admin, watching reservations only, nothing of jobs.
  EXPECT_TRUE(bob.all().empty());
  EXPECT_TRUE(admin.kinds_of(g.job.id).empty());
}

TEST_F(node_watch_test, AWatchResumesAfterARestartFromTheLastIdItSaw) {
  std::uint64_t last_seen = 0;
  std::string first_id;
  {
    seen alice;
    auto n = start();
    ASSERT_TRUE(n);
    ASSERT_TRUE(n->watch({"alice", -1, {}}, alice.callback()));
    auto rep = n->elastic(eight_cpus("alice"));
    ASSERT_TRUE(rep.error.ok()) << rep.error.message;
    first_id = rep.reservation.id;
    last_seen = alice.wait_for("reservation.committed", first_id).id;
  }  // the node stops; the watch ends with it
  seen again, bad;
  auto n = start();
  ASSERT_TRUE(n);
  auto rep = n->elastic(eight_cpus("alice"));
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  ASSERT_TRUE(n->watch({"alice", static_cast<std::int64_t>(last_seen), {}}, again.callback()));
  again.wait_for("reservation.committed", rep.reservation.id);
  const auto got = again.all();
  ASSERT_FALSE(got.empty());
  EXPECT_GT(got.front().id, last_seen);      // nothing repeated ...
  EXPECT_EQ(got.front().id, last_seen + 1);  // ... nothing lost
  EXPECT_TRUE(again.kinds_of(first_id).empty());

  // Bad input is refused at once, naming what is wrong.
  auto refused = n->watch({"alice", -2, {}}, bad.callback());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::invalid_parameter);
  auto unknown = n->watch({"alice", -1, {"reservation.teleported"}}, bad.callback());
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.err().message.find("kinds[0]"), std::string::npos);
}

}  // namespace
}  // namespace arbroker
