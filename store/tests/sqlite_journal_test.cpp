#include "arbroker/store/sqlite_journal.hpp"
#include "scratch_dir.hpp"

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

class sqlite_journal_test : public ::testing::Test {
 protected:
  std::string db() const { return (dir_ / "arb.db").string(); }
  testing::scratch_dir scratch_{"arb-store"};
  const fs::path& dir_ = scratch_.path();
};

reservation_row row(std::string id, reservation_state s = reservation_state::committed) {
  reservation_row r;
  r.cluster = id.substr(0, id.find('/'));
  r.id = std::move(id);
  r.owner = "alice";
  r.txn = "t-" + r.id;
  r.lrms_id = "arb-" + r.id.substr(r.id.find('/') + 1);
  r.start = 1000;
  r.end = 4600;
  r.np = 8;
  r.state = s;
  r.expiry = s == reservation_state::accepted ? 1030 : 0;
  r.admitted_after = 900;
  r.cost = 12.5;
  r.account = "physics";
  r.earliest = 500;  // movable within [500, 9000] (paper 002)
  r.deadline = 9000;
  r.created = 700;  // schema 6: made at 700 for a request asking for [800, 9500]
  r.window_start = 800;
  r.window_end = 9500;
  return r;
}

TEST_F(sqlite_journal_test, SavesReplacesAndForgetsRowsPerClusterInIdOrder) {
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j) << j.err().message;
  for (auto id : {"berlin/10", "berlin/9", "potsdam/1", "berlin/2"})
    ASSERT_TRUE((*j)->save(row(id)));
  auto changed = row("berlin/9", reservation_state::cancelled);
  changed.np = 4;
  ASSERT_TRUE((*j)->save(changed));
  ASSERT_TRUE((*j)->forget("berlin/2"));
  ASSERT_TRUE((*j)->forget("berlin/404"));  // unknown ids are fine

  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], changed);  // 9 before 10: by number, not by text
  EXPECT_EQ((*rows)[1], row("berlin/10"));
  EXPECT_EQ((*j)->rows_of("potsdam")->size(), 1u);
  EXPECT_TRUE((*j)->rows_of("boston")->empty());
}

TEST_F(sqlite_journal_test, CommitDecisionsAreLoggedOnceAndForgotten) {
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->log_commit("c1.a1"));
  ASSERT_TRUE((*j)->log_commit("c1.a1"));  // idempotent
  ASSERT_TRUE((*j)->log_commit("c2.a3"));
  ASSERT_TRUE((*j)->forget_commit("c1.a1"));
  auto c = (*j)->commits();
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, std::vector<std::string>{"c2.a3"});
}

TEST_F(sqlite_journal_test, RowsSurviveReopening) {
  {
    auto j = sqlite_journal::open(db());
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->save(row("berlin/1", reservation_state::accepted)));
    ASSERT_TRUE((*j)->log_commit("x"));
  }
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0], row("berlin/1", reservation_state::accepted));
  EXPECT_EQ((*j)->commits()->size(), 1u);
}

// The guarantee a broker node relies on: once save() returned, the row survives the process
// being killed without any chance to clean up.
TEST_F(sqlite_journal_test, ASavedRowSurvivesKillMinus9) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto j = sqlite_journal::open(db());
    if (!j) ::_exit(3);
    for (int i = 1; i <= 100; ++i)
      if (!(*j)->save(row("berlin/" + std::to_string(i)))) ::_exit(4);
    if (!(*j)->log_commit("co.a1")) ::_exit(5);
    char c = 'x';
    if (::write(ready[1], &c, 1) != 1) ::_exit(6);
    for (;;)
      ::pause();  // killed here, connection still open, WAL not checkpointed
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the writer failed before it was ready";
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  ASSERT_TRUE(WIFSIGNALED(st));

  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j) << j.err().message;
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 100u);
  EXPECT_EQ(rows->back(), row("berlin/100"));
  EXPECT_EQ(*(*j)->commits(), std::vector<std::string>{"co.a1"});
}

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

// The node's identity and its claims in each LRMS survive reopening; a claim is replaced.
TEST_F(sqlite_journal_test, ClaimsAndTheNodeIdSurviveReopening) {
  {
    auto j = sqlite_journal::open(db());
    ASSERT_TRUE(j);
    EXPECT_FALSE(*(*j)->claim_of("berlin"));
    ASSERT_TRUE((*j)->save_claim("berlin", {"arb-k3x9-", 1025}));
    ASSERT_TRUE((*j)->save_claim("berlin", {"arb-k3x9-", 2049}));
    ASSERT_TRUE((*j)->save_claim("potsdam", {"site-", 7}));
    ASSERT_TRUE((*j)->save_node_id("k3x9"));
  }
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  EXPECT_EQ(**(*j)->claim_of("berlin"), (lrms_claim{"arb-k3x9-", 2049}));
  EXPECT_EQ(**(*j)->claim_of("potsdam"), (lrms_claim{"site-", 7}));
  EXPECT_FALSE(*(*j)->claim_of("boston"));
  EXPECT_EQ(*(*j)->node_id(), "k3x9");
}

// Finished rows are history: not recovered, read by pages (newest end first, keyset cursor),
// by owner or everyone's, found by id, and purged past a time except the last id given.
TEST_F(sqlite_journal_test, FinishedRowsAreHistoryReadByPagesAndPurgedByTime) {
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j) << j.err().message;
  for (int n = 1; n <= 7; ++n) {
    auto r = row("berlin/" + std::to_string(n),
                 n <= 5 ? reservation_state::completed : reservation_state::committed);
    r.owner = n % 2 ? "alice" : "bob";
    r.finished = n <= 5 ? 5000 + (n >= 3 ? 100 : 0) : 0;  // 1,2 at 5000; 3,4,5 at 5100
    ASSERT_TRUE((*j)->save(r));
  }
  auto live = (*j)->rows_of("berlin");
  ASSERT_TRUE(live);
  ASSERT_EQ(live->size(), 2u);  // 6 and 7
  EXPECT_EQ(live->front().id, "berlin/6");

  history_query q;
  q.limit = 2;
  auto p1 = (*j)->finished_rows(q);
  ASSERT_TRUE(p1) << p1.err().message;
  ASSERT_EQ(p1->size(), 2u);
  EXPECT_EQ((*p1)[0].id, "berlin/5");  // latest end first, then id (as text) descending
  EXPECT_EQ((*p1)[1].id, "berlin/4");
  q.before = p1->back().finished;
  q.before_id = p1->back().id;
  auto p2 = (*j)->finished_rows(q);
  ASSERT_EQ(p2->size(), 2u);
  EXPECT_EQ((*p2)[0].id, "berlin/3");
  EXPECT_EQ((*p2)[1].id, "berlin/2");  // across the change of end time
  q.before = p2->back().finished;
  q.before_id = p2->back().id;
  auto p3 = (*j)->finished_rows(q);
  ASSERT_EQ(p3->size(), 1u);
  EXPECT_EQ((*p3)[0].id, "berlin/1");

  history_query bobs;
  bobs.owner = "bob";
  auto b = (*j)->finished_rows(bobs);
  ASSERT_EQ(b->size(), 2u);  // 4 and 2; 6 is bob's but live
  EXPECT_EQ((*b)[0].id, "berlin/4");

  history_query elsewhere;  // one cluster's history only
  elsewhere.cluster = "paris";
  EXPECT_TRUE((*j)->finished_rows(elsewhere)->empty());
  elsewhere.cluster = "berlin";
  EXPECT_EQ((*j)->finished_rows(elsewhere)->size(), 5u);

  EXPECT_EQ((*(*j)->find("berlin/6"))->finished, 0);
  EXPECT_FALSE(*(*j)->find("berlin/404"));

  ASSERT_TRUE((*j)->purge_finished("berlin", 5100));  // 1 and 2 ended before 5100
  EXPECT_FALSE(*(*j)->find("berlin/1"));
  EXPECT_FALSE(*(*j)->find("berlin/2"));
  EXPECT_TRUE(*(*j)->find("berlin/3"));
  // Everything finished: all but the row of the last id go, so ids are never given again.
  auto last = row("berlin/8", reservation_state::cancelled);
  last.finished = 5200;
  ASSERT_TRUE((*j)->save(last));
  ASSERT_TRUE((*j)->purge_finished("berlin", 1'000'000));
  EXPECT_FALSE(*(*j)->find("berlin/5"));
  EXPECT_TRUE(*(*j)->find("berlin/8"));
  EXPECT_EQ(*(*j)->last_serial("berlin"), 8u);
  EXPECT_EQ(*(*j)->last_serial("potsdam"), 0u);
  EXPECT_EQ((*j)->rows_of("berlin")->size(), 2u);  // the live ones stay
}

TEST_F(sqlite_journal_test, OpenRefusesASchemaFromANewerBuild) {
  {
    auto j = sqlite_journal::open(db());
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->save(row("berlin/1")));
  }
  // A later build bumped the schema.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto j = sqlite_journal::open(db());
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::storage_failure);
  EXPECT_NE(j.err().message.find("newer than this build"), std::string::npos) << j.err().message;
}

TEST_F(sqlite_journal_test, GridJobsSurviveReopeningInIdOrderWithBinaryBodies) {
  const std::string body("\x92\x00\xff binary", 10);
  {
    auto j = sqlite_journal::open(db());
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->save_grid_job({"n/g10", "alice", true, body}));
    ASSERT_TRUE((*j)->save_grid_job({"n/g9", "bob", true, "x"}));
    ASSERT_TRUE((*j)->save_grid_job({"n/g11", "bob", true, "z"}));
    ASSERT_TRUE((*j)->save_grid_job({"n/g9", "bob", false, "y", 5000}));  // replaced: ended
  }
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  auto rows = (*j)->grid_jobs();  // what recovery watches: the active ones
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], (grid_job_row{"n/g10", "alice", true, body}));
  EXPECT_EQ((*rows)[1], (grid_job_row{"n/g11", "bob", true, "z"}));
  auto ended = (*j)->find_grid_job("n/g9");  // history, by id
  ASSERT_TRUE(ended && *ended);
  EXPECT_EQ(**ended, (grid_job_row{"n/g9", "bob", false, "y", 5000}));
  EXPECT_FALSE(*(*j)->find_grid_job("n/g404"));
  EXPECT_EQ(*(*j)->last_grid_job_serial(), 11u);
}

// The jobs of one request are written together (one transaction) and read back each.
TEST_F(sqlite_journal_test, SeveralGridJobsAreSavedAtOnce) {
  {
    auto j = sqlite_journal::open(db());
    ASSERT_TRUE(j);
    const std::vector<grid_job_row> rows{
        {"n/g1", "alice", true, "a"}, {"n/g2", "alice", true, "b"}, {"n/g3", "alice", true, "c"}};
    ASSERT_TRUE((*j)->save_grid_jobs(rows));
    ASSERT_TRUE((*j)->save_grid_jobs({}));
  }
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  auto rows = (*j)->grid_jobs();
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[2], (grid_job_row{"n/g3", "alice", true, "c"}));
  EXPECT_EQ(*(*j)->last_grid_job_serial(), 3u);
}

// Ended grid jobs are history for the retention: purged after it, but for the row of the
// highest id (a restarted node must not give an id again), and active ones never.
TEST_F(sqlite_journal_test, EndedGridJobsArePurgedPastTheRetentionButTheLastId) {
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->save_grid_job({"n/g1", "alice", false, "a", 1000}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g2", "alice", false, "b", 3000}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g3", "alice", true, "c"}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g4", "alice", false, "d", 1500}));
  ASSERT_TRUE((*j)->purge_grid_jobs(2000));
  EXPECT_FALSE(*(*j)->find_grid_job("n/g1"));  // ended before 2000
  EXPECT_TRUE(*(*j)->find_grid_job("n/g2"));   // within the retention
  EXPECT_TRUE(*(*j)->find_grid_job("n/g3"));   // active
  EXPECT_TRUE(*(*j)->find_grid_job("n/g4"));   // the last id
  EXPECT_EQ(*(*j)->last_grid_job_serial(), 4u);
}

// A page of ended grid jobs: not the active ones, an owner's only (everyone's for ""), the
// most recently ended first and the id down for a tie, from a keyset cursor.
TEST_F(sqlite_journal_test, EndedGridJobsComeInPagesByEndTime) {
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->save_grid_job({"n/g1", "alice", false, "a", 1000}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g2", "alice", false, "b", 3000}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g3", "alice", true, "c"}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g4", "bob", false, "d", 2000}));
  ASSERT_TRUE((*j)->save_grid_job({"n/g5", "alice", false, "e", 3000}));
  auto ids = [](const result<std::vector<grid_job_row>>& rows) {
    std::vector<std::string> out;
    for (const auto& r : *rows)
      out.push_back(r.id);
    return out;
  };
  history_query q;
  q.owner = "alice";
  q.limit = 2;
  auto first = (*j)->ended_grid_jobs(q);
  ASSERT_TRUE(first);
  EXPECT_EQ(ids(first), (std::vector<std::string>{"n/g5", "n/g2"}));
  q.before = 3000;
  q.before_id = "n/g2";
  EXPECT_EQ(ids((*j)->ended_grid_jobs(q)), (std::vector<std::string>{"n/g1"}));
  q.owner = "";
  q.limit = 10;
  EXPECT_EQ(ids((*j)->ended_grid_jobs(q)), (std::vector<std::string>{"n/g4", "n/g1"}));
  q.before = 0;
  q.before_id = "";
  EXPECT_EQ(ids((*j)->ended_grid_jobs(q)),
            (std::vector<std::string>{"n/g5", "n/g2", "n/g4", "n/g1"}));
}

}  // namespace
}  // namespace arbroker
