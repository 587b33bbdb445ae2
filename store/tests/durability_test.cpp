// What a power cut can take: with durability::full no write is answered for before its row
// is synced to disk, and one sync covers every write made before it (group commit).
// A recording VFS counts the writes not yet synced at any moment.

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <thread>

#include "arbroker/store/sqlite_journal.hpp"
#include "recording_vfs.hpp"
#include "scratch_dir.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;
using testing::recording_vfs;

class durability_test : public ::testing::Test {
 protected:
  void SetUp() override { vfs_ = &recording_vfs::instance(); }
  void TearDown() override { vfs_->on_sync(nullptr); }
  std::unique_ptr<sqlite_journal> open(durability d) {
    auto j = sqlite_journal::open((dir_ / "arb.db").string(), {d, recording_vfs::name});
    EXPECT_TRUE(j) << j.err().message;
    return j ? std::move(*j) : nullptr;
  }
  // The WAL of this test's database: where a commit's rows are written.
  recording_vfs::file_counts wal() const { return vfs_->counts((dir_ / "arb.db-wal").string()); }
  testing::scratch_dir scratch_{"arb-durability"};
  const fs::path& dir_ = scratch_.path();
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

TEST_F(durability_test, UnderFullEveryWriteThatIsAnsweredForIsOnDiskWhenItReturns) {
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  const std::function<status()> writes[] = {
      [&] { return j->save(row("berlin/1")); },
      [&] { return j->log_commit("txn-1"); },
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
  // Forgetting waits for nothing (a forgotten row that comes back is settled by recovery
  // again); a write queued after it is durable only with it.
  ASSERT_TRUE(j->forget("berlin/1"));
  ASSERT_TRUE(j->forget_commit("txn-1"));
  ASSERT_TRUE(j->save(row("berlin/2")));
  EXPECT_EQ(wal().unsynced_writes, 0);
  auto rows = j->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().id, "berlin/2");
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

// What a cluster service does: write, and answer only when the journal calls back. The
// callback never comes before the sync, and one sync covers every write queued before it.
TEST_F(durability_test, APipelinedWriteIsAnsweredForOnlyAfterTheSyncThatCoversIt) {
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  // Every sync of the WAL from here on waits until the test lets it go.
  testing::sync_gate gate{(dir_ / "arb.db-wal").string()};
  std::mutex mu;
  std::condition_variable cv;
  int answered = 0;
  int unsynced_at_answer = -1;
  auto answer = [&](status ok) {
    EXPECT_TRUE(ok);
    std::lock_guard lock{mu};
    ++answered;
    unsynced_at_answer = std::max(unsynced_at_answer, wal().unsynced_writes);
    cv.notify_all();
  };
  const auto syncs = j->syncs();

  // The writer takes a first write and is held in its sync ...
  auto first = j->save_pipelined(row("berlin/1"));
  ASSERT_TRUE(first);
  j->when_durable(*first, answer);
  ASSERT_TRUE(gate.wait_held()) << "nobody synced the WAL for a waiting write";
  // ... while twenty more queue behind it.
  constexpr int more = 20;
  for (int i = 2; i <= 1 + more; ++i) {
    auto t = j->save_pipelined(row("berlin/" + std::to_string(i)));
    ASSERT_TRUE(t) << t.err().message;
    j->when_durable(*t, answer);
  }
  {
    std::unique_lock lock{mu};
    EXPECT_EQ(answered, 0) << "answered while the sync was still running";
    EXPECT_EQ(j->waiting_for_sync(), std::size_t{1 + more});
  }
  gate.open();
  {
    std::unique_lock lock{mu};
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return answered == 1 + more; }));
  }
  EXPECT_EQ(unsynced_at_answer, 0);
  EXPECT_EQ(j->syncs(), syncs + 2) << "one sync for the first, one for the twenty";
  // Known durable: answered at once, on the caller's thread.
  bool at_once = false;
  j->when_durable(*first, [&](status ok) { at_once = ok.has_value(); });
  EXPECT_TRUE(at_once);
}

// A failed sync is never retried (the OS may have dropped the pages): the write that waited
// for it fails, and so does every later one, even once the disk seems fine again.
TEST_F(durability_test, AFailedSyncBreaksTheJournalForGood) {
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->save(row("berlin/1")));
  struct heal {
    ~heal() { recording_vfs::instance().fail_syncs(false); }
  } healed_at_exit;
  vfs_->fail_syncs(true);
  auto lost = j->save(row("berlin/2"));
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.err().code, errc::storage_failure);
  EXPECT_NE(lost.err().message.find("cannot sync"), std::string::npos) << lost.err().message;
  vfs_->fail_syncs(false);
  auto later = j->save(row("berlin/3"));
  ASSERT_FALSE(later);
  EXPECT_EQ(later.err().code, errc::storage_failure);
  auto t = j->save_pipelined(row("berlin/4"));
  EXPECT_FALSE(t);
  bool told = false;
  j->when_durable(1'000'000, [&](status ok) { told = !ok.has_value(); });
  EXPECT_TRUE(told) << "a waiter on a broken journal hears it at once";
}

TEST_F(durability_test, ConcurrentBlockingWritersAllReturnSynced) {
  auto j = open(durability::full);
  ASSERT_TRUE(j);
  constexpr int threads = 8, per_thread = 50;
  const auto syncs = j->syncs();
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i)
        EXPECT_TRUE(j->save(row("c" + std::to_string(t) + "/" + std::to_string(i + 1))));
    });
  for (auto& t : ts)
    t.join();
  // Every save returned synced; how many shared a sync depends on the scheduler, but never
  // more syncs than saves.
  EXPECT_EQ(wal().unsynced_writes, 0);
  EXPECT_LE(j->syncs() - syncs, std::uint64_t{threads * per_thread});
  EXPECT_GE(j->syncs() - syncs, 1u);
}

TEST_F(durability_test, ManyConcurrentWritersLoseNothingAndShareSyncs) {
  constexpr int threads = 8, per_thread = 200;
  {
    auto j = open(durability::full);
    ASSERT_TRUE(j);
    const auto before = j->syncs();
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
    // Forgets wait for no sync: at most one per save.
    EXPECT_LE(j->syncs() - before, std::uint64_t{threads * per_thread});
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
