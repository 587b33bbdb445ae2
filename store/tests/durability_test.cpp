// What a power cut can take: with durability::full no write returns (so no reply leaves)
// before its row is synced to disk, and concurrent writers share one sync (group commit).
// A recording VFS counts the writes not yet synced at any moment.

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <thread>

#include "arbroker/store/sqlite_journal.hpp"
#include "recording_vfs.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;
using testing::recording_vfs;

class durability_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("arb-durability-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    vfs_ = &recording_vfs::instance();
  }
  void TearDown() override {
    vfs_->on_sync(nullptr);
    fs::remove_all(dir_);
  }
  std::unique_ptr<sqlite_journal> open(durability d) {
    auto j = sqlite_journal::open((dir_ / "arb.db").string(), {d, recording_vfs::name});
    EXPECT_TRUE(j) << j.err().message;
    return j ? std::move(*j) : nullptr;
  }
  // The WAL of this test's database: where a commit's rows are written.
  recording_vfs::file_counts wal() const { return vfs_->counts((dir_ / "arb.db-wal").string()); }
  fs::path dir_;
  recording_vfs* vfs_ = nullptr;
};

reservation_row row(const std::string& id) {
  reservation_row r;
  r.id = id;
  r.cluster = id.substr(0, id.find('/'));
  r.owner = "alice";
  r.txn = "t-" + id;
  r.start = 1000;
  r.end = 4600;
  r.np = 4;
  r.state = reservation_state::committed;
  return r;
}

TEST_F(durability_test, UnderFullEveryKindOfWriteIsOnDiskWhenItReturns) {
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  const std::function<status()> writes[] = {
      [&] { return j->save(row("berlin/1")); },
      [&] { return j->log_commit("txn-1"); },
      [&] { return j->save(row("berlin/2")); },
      [&] { return j->forget("berlin/1"); },
      [&] { return j->forget_commit("txn-1"); },
      [&] {
        return j->save_grid_job({"n/g1", "alice", true, "body"});
      },
  };
  for (const auto& w : writes) {
    const int syncs = wal().syncs;
    ASSERT_TRUE(w());
    EXPECT_EQ(wal().unsynced_writes, 0) << "a write returned before the WAL was synced";
    EXPECT_EQ(wal().syncs, syncs + 1) << "one write alone: one sync";
  }
}

// The other side of the same check: NORMAL returns with the rows in the OS only (what the
// recorder must see, or the test above could not fail).
TEST_F(durability_test, UnderNormalAWriteReturnsBeforeItIsSynced) {
  auto j = open(durability::normal);
  ASSERT_TRUE(j);
  const int syncs = wal().syncs;
  ASSERT_TRUE(j->save(row("berlin/1")));
  ASSERT_TRUE(j->log_commit("txn-1"));
  EXPECT_GT(wal().unsynced_writes, 0);
  EXPECT_EQ(wal().syncs, syncs);
}

TEST_F(durability_test, WritesQueuedBehindASyncShareTheNextOne) {
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  // Hold the first write inside its sync, queue more writers behind it, then let it go.
  std::mutex mu;
  std::condition_variable cv;
  bool leader_in_sync = false, release = false;
  const std::string wal_path = (dir_ / "arb.db-wal").string();
  vfs_->on_sync([&](const std::string& path) {
    if (path != wal_path) return;
    std::unique_lock lock{mu};
    if (leader_in_sync) return;  // only the first one waits
    leader_in_sync = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  });
  const auto transactions = j->write_transactions();
  const int syncs = wal().syncs;

  std::thread leader([&] { EXPECT_TRUE(j->save(row("berlin/1"))); });
  {
    // A deadline, not a delay: a journal that never syncs would otherwise hang the test.
    std::unique_lock lock{mu};
    if (!cv.wait_for(lock, std::chrono::seconds(30), [&] { return leader_in_sync; })) {
      release = true;
      lock.unlock();
      leader.join();
      FAIL() << "the first write returned without syncing the WAL";
    }
  }
  constexpr int followers = 6;
  std::vector<std::thread> queued;
  for (int i = 0; i < followers; ++i)
    queued.emplace_back([&, i] {
      EXPECT_TRUE(j->save(row("berlin/" + std::to_string(i + 2))));
      EXPECT_EQ(wal().unsynced_writes, 0);
    });
  while (j->waiting_writes() < followers)
    std::this_thread::yield();
  EXPECT_EQ(wal().syncs, syncs + 1);  // nobody passed the held sync
  {
    std::lock_guard lock{mu};
    release = true;
  }
  cv.notify_all();
  leader.join();
  for (auto& t : queued)
    t.join();

  EXPECT_EQ(j->write_transactions(), transactions + 2) << "the leader's, then one for all six";
  EXPECT_EQ(wal().syncs, syncs + 2);
  EXPECT_EQ(wal().unsynced_writes, 0);
  auto rows = j->rows_of("berlin");
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 1u + followers);
}

TEST_F(durability_test, ManyConcurrentWritersLoseNothingAndShareSyncs) {
  constexpr int threads = 8, per_thread = 200;
  {
    auto j = open(durability::full);
    ASSERT_TRUE(j);
    const auto before = j->write_transactions();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          const auto id = "c" + std::to_string(t) + "/" + std::to_string(i + 1);
          EXPECT_TRUE(j->save(row(id)));
          if (i % 2) {
            EXPECT_TRUE(j->forget(id));
          }
        }
      });
    for (auto& t : ts)
      t.join();
    // How many writes shared a transaction depends on the scheduler; never more than one
    // transaction per write (200 saves and 100 forgets per thread).
    EXPECT_LE(j->write_transactions() - before, std::uint64_t{threads * per_thread * 3 / 2});
  }
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  for (int t = 0; t < threads; ++t) {
    auto rows = j->rows_of("c" + std::to_string(t));
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), std::size_t{per_thread / 2});
    for (std::size_t k = 0; k < rows->size(); ++k)
      EXPECT_EQ((*rows)[k].id, "c" + std::to_string(t) + "/" + std::to_string(2 * k + 1));
  }
}

}  // namespace
}  // namespace arbroker
