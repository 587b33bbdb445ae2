// The PostgreSQL store against a real PostgreSQL 15 (the ctest fixture postgresql starts
// one on loopback: scripts/postgresql/start.sh): every promise of journal_contract.hpp, each
// test in a schema of its own, and what only a server has (a second node, a session ended
// under the store, a password in the URI).
#include <cstdlib>
#include <filesystem>

#include "arbroker/store/postgresql_journal.hpp"
#include "journal_contract.hpp"
#include "pg_test_server.hpp"

namespace arbroker::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(backend, journal_contract,
                         ::testing::Values(store_backend{
                             "postgresql", [] { return std::make_unique<postgresql_place>(); }}),
                         backend_name);

class postgresql_journal_test : public ::testing::Test {
 protected:
  postgresql_place place_;
};

// One node writes a store at a time: a second one is refused, and says why; once the first
// closed, the store opens again.
TEST_F(postgresql_journal_test, ASecondNodeOnTheSameStoreIsRefusedUntilTheFirstCloses) {
  auto first = open_store(place_.where());
  ASSERT_TRUE(first) << first.err().message;
  ASSERT_TRUE((*first)->save(row("berlin/1")));
  auto second = open_store(place_.where());
  ASSERT_FALSE(second);
  EXPECT_EQ(second.err().code, errc::storage_failure);
  EXPECT_NE(second.err().message.find("in use by another node"), std::string::npos)
      << second.err().message;
  first->reset();
  auto again = open_store(place_.where());
  ASSERT_TRUE(again) << again.err().message;
  EXPECT_EQ((*again)->rows_of("berlin")->size(), 1u);
}

// The writer's session ended under it (the server restarted, an administrator killed it):
// the write fails with the server's reason, and so does every later one (never retried: the
// engine may be ahead of the store); what was committed before stays.
TEST_F(postgresql_journal_test, AWriterWhoseSessionEndedBreaksTheStoreForGood) {
  auto j = open_store(place_.where());
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_TRUE((*j)->save(row("berlin/1")));
  place_.admin().exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
      "'arbroker writer' AND pid <> pg_backend_pid()");
  auto lost = (*j)->save(row("berlin/2"));
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.err().code, errc::storage_failure);
  EXPECT_NE(lost.err().message.find("store postgresql://"), std::string::npos)
      << lost.err().message;
  auto later = (*j)->save_pipelined(row("berlin/3"));
  EXPECT_FALSE(later);
  j->reset();
  auto reopened = open_store(place_.where());
  ASSERT_TRUE(reopened) << reopened.err().message;
  auto rows = (*reopened)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front(), row("berlin/1"));
}

// Reads change nothing: the reading session ended under the store is simply opened again.
TEST_F(postgresql_journal_test, AReaderWhoseSessionEndedReconnects) {
  auto j = open_store(place_.where());
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_TRUE((*j)->save(row("berlin/1")));
  place_.admin().exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
      "'arbroker reader' AND pid <> pg_backend_pid()");
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows) << rows.err().message;
  EXPECT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*j)->save(row("berlin/2")));  // the writer was not touched
}

// Group commit: writes queued while a batch commits go together into the next one, one
// transaction and one round trip for many rows (the pipeline), so 200 pipelined saves take
// far fewer commits than saves; every row is there after them.
TEST_F(postgresql_journal_test, QueuedWritesShareTheirCommits) {
  auto j = postgresql_journal::open(place_.where());
  ASSERT_TRUE(j) << j.err().message;
  const auto before = (*j)->commits_made();
  write_ticket last = 0;
  for (int i = 1; i <= 200; ++i) {
    auto t = (*j)->save_pipelined(row("berlin/" + std::to_string(i)));
    ASSERT_TRUE(t) << t.err().message;
    last = *t;
  }
  ASSERT_TRUE((*j)->log_commit("after-all"));  // a blocking write after them: all durable
  EXPECT_GT(last, 0u);
  EXPECT_LT((*j)->commits_made() - before, 100u);
  EXPECT_EQ((*j)->rows_of("berlin")->size(), 200u);
}

// A password in the URI never reaches an error message (they end up in logs).
TEST_F(postgresql_journal_test, ErrorsNeverShowThePassword) {
  auto j = open_store("postgresql://arb:s3cret@127.0.0.1:1/arb?connect_timeout=5");
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::storage_failure);
  EXPECT_EQ(j.err().message.find("s3cret"), std::string::npos) << j.err().message;
  EXPECT_NE(j.err().message.find("postgresql://arb:***@127.0.0.1:1/arb"), std::string::npos)
      << j.err().message;
}

// The backup docs/operations.md promises: pg_dump of the node's database, loaded into an
// empty one, is a store with every row, decision, grid job and event, whose next event id
// follows the last one dumped.
TEST_F(postgresql_journal_test, APgDumpRestoredIntoAnEmptyDatabaseIsTheStore) {
  const std::string src = "arb_dump_src_" + std::to_string(::getpid());
  const std::string dst = "arb_dump_dst_" + std::to_string(::getpid());
  const auto dump = std::filesystem::temp_directory_path() / (src + ".dump");
  struct drop {
    admin_session& admin;
    std::vector<std::string> dbs;
    std::filesystem::path file;
    ~drop() {
      for (const auto& db : dbs)
        admin.exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
      std::filesystem::remove(file);
    }
  } dropped{place_.admin(), {src, dst}, dump};
  for (const auto& db : {src, dst}) {
    place_.admin().exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    place_.admin().exec("CREATE DATABASE " + db);
  }
  auto uri = server_uri();
  const auto base = uri.substr(0, uri.rfind('/') + 1);
  {
    auto j = open_store(base + src);
    ASSERT_TRUE(j) << j.err().message;
    ASSERT_TRUE((*j)->save(hold("berlin/1")));
    ASSERT_TRUE((*j)->save(row("berlin/2")));
    ASSERT_TRUE((*j)->log_commit("co.1"));
    ASSERT_TRUE((*j)->save_grid_job({"n/g1", "bob", true, std::string("\0\xff", 2)}));
    ASSERT_TRUE((*j)->save_node_id("k3x9"));
  }
  const std::string dump_cmd = "pg_dump -Fc -f '" + dump.string() + "' '" + base + src + "'";
  ASSERT_EQ(std::system(dump_cmd.c_str()), 0) << dump_cmd;
  const std::string restore_cmd =
      "pg_restore --no-owner -d '" + base + dst + "' '" + dump.string() + "'";
  ASSERT_EQ(std::system(restore_cmd.c_str()), 0) << restore_cmd;
  auto j = open_store(base + dst);
  ASSERT_TRUE(j) << j.err().message;
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], hold("berlin/1"));
  EXPECT_EQ((*rows)[1], row("berlin/2"));
  EXPECT_EQ(*(*j)->commits(), std::vector<std::string>{"co.1"});
  EXPECT_EQ((*(*j)->grid_jobs())[0].body, std::string("\0\xff", 2));
  EXPECT_EQ(*(*j)->node_id(), "k3x9");
  const auto kept = *(*j)->events_kept();
  ASSERT_TRUE((*j)->save(hold("berlin/3")));
  auto after = (*j)->events_after(kept.last, 10);
  ASSERT_TRUE(after);
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ(after->front().id, kept.last + 1);
  EXPECT_GE(kept.last, 3u);  // created, created and committed, at least
}

// Ids and transaction names order as bytes whatever the database's collation, as in SQLite:
// here a database that sorts by ICU's English rules ("_z" < "a.1" < "b-1" < "B-2").
TEST_F(postgresql_journal_test, TheServersCollationDoesNotChangeTheOrder) {
  const std::string db = "arb_icu_" + std::to_string(::getpid());
  place_.admin().exec("DROP DATABASE IF EXISTS " + db);
  place_.admin().exec(
      "CREATE DATABASE " + db +
      " TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'");
  struct drop {
    admin_session& admin;
    std::string db;
    ~drop() { admin.exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"); }
  } dropped{place_.admin(), db};
  auto uri = server_uri();
  uri = uri.substr(0, uri.rfind('/') + 1) + db;
  ASSERT_EQ(place_.admin().value("SELECT 'B-2' < 'b-1' COLLATE \"en-US-x-icu\""), "f")
      << "the server's ICU does not sort as this test expects";
  {
    auto j = open_store(uri);
    ASSERT_TRUE(j) << j.err().message;
    for (auto txn : {"b-1", "B-2", "a.1", "_z"})
      ASSERT_TRUE((*j)->log_commit(txn));
    EXPECT_EQ(*(*j)->commits(), (std::vector<std::string>{"B-2", "_z", "a.1", "b-1"}));
  }
}

}  // namespace
}  // namespace arbroker::testing
