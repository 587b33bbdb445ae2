#include "arbroker/store/sqlite_journal.hpp"
#include "scratch_dir.hpp"
#include "test_rows.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace arbroker {
namespace {

namespace fs = std::filesystem;
using testing::test_rows::row;

class sqlite_journal_test : public ::testing::Test {
 protected:
  std::string db() const { return (dir_ / "arb.db").string(); }
  testing::scratch_dir scratch_{"arb-store"};
  const fs::path& dir_ = scratch_.path();
};

TEST_F(sqlite_journal_test, OpenFailsClearlyOnAMissingDirectory) {
  auto j = sqlite_journal::open((dir_ / "no" / "such" / "arb.db").string());
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::storage_failure);
  EXPECT_NE(j.err().message.find("cannot open"), std::string::npos) << j.err().message;
}

TEST_F(sqlite_journal_test, OpenRefusesAFileThatIsNotADatabaseAndLeavesItAlone) {
  const std::string text = "reservations: none, this is a text file\n";
  { std::ofstream{db()} << text; }
  auto j = sqlite_journal::open(db());
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::storage_failure);
  EXPECT_NE(j.err().message.find("not a database"), std::string::npos) << j.err().message;
  std::ifstream in{db()};
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, text);
}

// A store written by the build before accounts (schema 2) opens, gains the columns of
// schemas 3 and 4, and keeps its rows (their account empty, their terms rigid).
TEST_F(sqlite_journal_test, AStoreOfSchemaTwoIsUpgradedInPlace) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
  const char* v2 =
      "CREATE TABLE reservations (id TEXT PRIMARY KEY, cluster TEXT NOT NULL, seq INTEGER NOT "
      "NULL, owner TEXT NOT NULL, txn TEXT NOT NULL, lrms_id TEXT NOT NULL, start INTEGER NOT "
      "NULL, \"end\" INTEGER NOT NULL, np INTEGER NOT NULL, state INTEGER NOT NULL, expiry "
      "INTEGER NOT NULL, admitted_after INTEGER NOT NULL, cost REAL NOT NULL);"
      "INSERT INTO reservations VALUES ('berlin/1', 'berlin', 1, 'alice', 't-berlin/1', "
      "'arb-1', 1000, 4600, 8, 3, 0, 900, 12.5);"
      "INSERT INTO reservations VALUES ('berlin/3', 'berlin', 3, 'alice', 't-berlin/3', "
      "'arb-3', 1000, 4600, 8, 6, 0, 900, 12.5);"  // cancelled (6)
      "CREATE TABLE grid_jobs (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, owner TEXT NOT NULL, "
      "active INTEGER NOT NULL, body BLOB NOT NULL);"
      "INSERT INTO grid_jobs VALUES ('n/g1', 1, 'alice', 0, 'done');"
      "INSERT INTO grid_jobs VALUES ('n/g2', 2, 'alice', 1, 'queued');"
      "PRAGMA user_version=2;";
  ASSERT_EQ(sqlite3_exec(raw, v2, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j) << j.err().message;
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows) << rows.err().message;
  ASSERT_EQ(rows->size(), 1u);
  auto old = row("berlin/1");
  old.account = "";
  old.earliest = old.deadline = 0;
  old.created = old.window_start = old.window_end = 0;  // schema 6: not known before
  EXPECT_EQ((*rows)[0], old);
  // Schema 5: the cancelled one is history from its end on, no longer recovered.
  auto cancelled = (*j)->find("berlin/3");
  ASSERT_TRUE(cancelled && *cancelled);
  EXPECT_EQ((*cancelled)->finished, 4600);
  EXPECT_EQ(*(*j)->last_serial("berlin"), 3u);
  ASSERT_TRUE((*j)->save(row("berlin/2")));
  EXPECT_EQ((*j)->rows_of("berlin")->back().account, "physics");
  EXPECT_EQ((*j)->rows_of("berlin")->back().deadline, 9000);
  EXPECT_EQ((*j)->rows_of("berlin")->back().window_end, 9500);
  // Schema 7: a grid job that had ended counts as ended at the upgrade (kept for the
  // retention from then on); an active one is still what recovery reads.
  auto done = (*j)->find_grid_job("n/g1");
  ASSERT_TRUE(done && *done);
  EXPECT_GT((*done)->ended, 1'700'000'000);
  ASSERT_EQ((*j)->grid_jobs()->size(), 1u);
  EXPECT_EQ((*j)->grid_jobs()->front().id, "n/g2");
  EXPECT_EQ((*j)->grid_jobs()->front().ended, 0);
  // Schema 8: no claim and no identity yet (the node settles both at its start).
  EXPECT_FALSE(*(*j)->claim_of("berlin"));
  EXPECT_EQ(*(*j)->node_id(), "");
}

}  // namespace
}  // namespace arbroker
