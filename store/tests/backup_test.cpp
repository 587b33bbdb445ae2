// An online backup is one consistent snapshot of a store in use, a store a node can open.

#include "arbroker/store/backup.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "arbroker/store/sqlite_journal.hpp"
#include "scratch_dir.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;

class backup_test : public ::testing::Test {
 protected:
  std::string path(const char* name) const { return (dir_ / name).string(); }
  testing::scratch_dir scratch_{"arb-backup"};
  const fs::path& dir_ = scratch_.path();
};

reservation_row row(int n) {
  reservation_row r;
  r.id = "berlin/" + std::to_string(n);
  r.cluster = "berlin";
  r.owner = "alice";
  r.txn = "t" + std::to_string(n);
  r.start = 1000 * n;
  r.end = 1000 * n + 600;
  r.np = 4;
  r.state = reservation_state::committed;
  return r;
}

TEST_F(backup_test, CopiesAStoreInUseAsOneConsistentSnapshot) {
  auto j = sqlite_journal::open(path("arb.db"));
  ASSERT_TRUE(j) << j.err().message;
  for (int n = 1; n <= 50; ++n)
    ASSERT_TRUE((*j)->save(row(n)));
  ASSERT_TRUE((*j)->log_commit("t7"));
  // The node keeps writing, in order, while the backups are taken.
  std::atomic<bool> stop{false};
  std::atomic<int> written{50};
  std::thread writer([&] {
    for (int n = 51; !stop && n < 100000; ++n) {
      if (!(*j)->save(row(n))) break;
      written = n;
    }
    stop = true;
  });
  auto take_backup = [&](int k) {
    while (!stop && written < 50 + 200 * (k + 1))
      std::this_thread::yield();  // writes go on
    ASSERT_FALSE(stop) << "the writer stopped after " << written << " rows";
    const auto dest = path(("copy" + std::to_string(k) + ".db").c_str());
    auto r = backup_store(path("arb.db"), dest);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_GT(r->pages, 0);
    EXPECT_GE(r->reservations, 50 + 200 * (k + 1));
    EXPECT_EQ(r->commit_decisions, 1);
    // The copy opens as a store and holds a prefix of the writes: no gap, nothing torn.
    auto copy = sqlite_journal::open(dest);
    ASSERT_TRUE(copy) << copy.err().message;
    auto rows = (*copy)->rows_of("berlin");
    ASSERT_TRUE(rows);
    ASSERT_EQ(static_cast<std::int64_t>(rows->size()), r->reservations);
    for (std::size_t i = 0; i < rows->size(); ++i)
      ASSERT_EQ((*rows)[i], row(static_cast<int>(i) + 1));
  };
  for (int k = 0; k < 3 && !HasFatalFailure(); ++k)
    take_backup(k);
  stop = true;
  writer.join();
}

TEST_F(backup_test, RefusesAnExistingDestinationAndLeavesItAlone) {
  ASSERT_TRUE(sqlite_journal::open(path("arb.db")));
  std::ofstream(path("old.db")) << "yesterday's backup";
  auto r = backup_store(path("arb.db"), path("old.db"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_parameter);
  EXPECT_NE(r.err().message.find("old.db exists"), std::string::npos) << r.err().message;
  std::ifstream in(path("old.db"));
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "yesterday's backup");
}

TEST_F(backup_test, NamesAMissingOrForeignSourceAndLeavesNoCopy) {
  auto missing = backup_store(path("nothing.db"), path("copy.db"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find("no store at"), std::string::npos);
  EXPECT_FALSE(fs::exists(path("nothing.db")));  // not created by trying

  std::ofstream(path("notes.txt")) << "not a database at all, just some text here";
  auto foreign = backup_store(path("notes.txt"), path("copy.db"));
  ASSERT_FALSE(foreign);
  EXPECT_NE(foreign.err().message.find("notes.txt"), std::string::npos) << foreign.err().message;
  EXPECT_FALSE(fs::exists(path("copy.db")));
}

}  // namespace
}  // namespace arbroker
