// Write, then answer, against a real disk: a cluster service on an SQLite journal with
// durability::full answers for a hold only once the row is synced, and meanwhile answers
// what needs no write. A recording VFS (store/tests) holds the sync and counts what is not
// yet on disk.

#include <gtest/gtest.h>
#include <unistd.h>

#include <caf/all.hpp>

#include <filesystem>

#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "arbroker/store/sqlite_journal.hpp"
#include "c1_config.hpp"
#include "recording_vfs.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;
using testing::recording_vfs;

struct engine_config : caf::actor_system_config {
  engine_config() { configure_engine(*this); }
};

TEST(durable_replies, AHoldIsAnsweredOnlyOnceItsRowIsOnDiskAndReadsDoNotWaitForIt) {
  const fs::path dir =
      fs::temp_directory_path() / ("arb-durable-replies-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string wal_path = (dir / "arb.db-wal").string();
  auto& vfs = recording_vfs::instance();
  {
    auto j =
        sqlite_journal::open((dir / "arb.db").string(), {durability::full, recording_vfs::name});
    ASSERT_TRUE(j) << j.err().message;
    std::shared_ptr<sqlite_journal> journal = std::move(*j);  // outlives the actor system

    engine_config cfg;
    caf::actor_system sys{cfg};
    const timestamp now = 1'000'000;
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, [now] { return now; }});
    ASSERT_TRUE(l);
    auto c = testing::plain_c1();
    c.journal = journal;
    auto svc = cluster_service::create(std::move(c), std::move(*l));
    ASSERT_TRUE(svc) << to_string(svc.err());
    recovery_report report;  // as a node starts it (this writes its claim: no sync held yet)
    ASSERT_TRUE((*svc)->recover({}, {}, now, report));
    // Every sync of the WAL from here on waits until the test lets it go.
    testing::sync_gate gate{wal_path};
    auto service = spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                                         [now] { return now; });
    caf::scoped_actor self{sys};

    // A hold (a row to write), then a read, to the same service: the read's answer comes
    // first, because the hold's waits for the disk.
    msg::prepare_request p;
    p.txn = "t1";
    p.owner = "alice";
    p.start = now + 3600;
    p.end = now + 7200;
    p.np = 8;
    p.expiry = now + 60;
    self->send(service, msg::call_tag{1}, p);
    self->send(service, msg::query_request{"alice", "c1/404"});
    bool prepare_first = false;
    self->receive([&](const msg::query_reply& q) { EXPECT_FALSE(q.error.ok()); },
                  [&](msg::call_tag, const msg::prepare_reply&) { prepare_first = true; });
    EXPECT_FALSE(prepare_first) << "the hold was answered before its row was synced";
    ASSERT_TRUE(gate.wait_held()) << "nobody synced the hold's row";
    gate.open();
    if (!prepare_first) {
      self->receive([&](msg::call_tag tag, const msg::prepare_reply& r) {
        EXPECT_EQ(tag, msg::call_tag{1});
        EXPECT_TRUE(r.error.ok()) << r.error.message;
        EXPECT_EQ(vfs.counts(wal_path).unsynced_writes, 0) << "answered with its row unsynced";
      });
    }
    self->send_exit(service, caf::exit_reason::user_shutdown);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace arbroker
