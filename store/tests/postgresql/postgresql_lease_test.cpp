// The lease of a shared PostgreSQL store (postgresql_lease.hpp) against the test server: one
// holder at a time, a new epoch for each taking, and no write of an old epoch once a newer
// one was taken, whether the old holder is gone, paused or still running.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arbroker/store/postgresql_lease.hpp"
#include "pg_test_server.hpp"

namespace arbroker::testing {
namespace {

using namespace std::chrono_literals;

class postgresql_lease_test : public ::testing::Test {
 protected:
  std::unique_ptr<postgresql_lease> node(const std::string& name) {
    auto l = postgresql_lease::connect(
        place_.where(), name, {name + ".example.org:7400", name + ".example.org:7480"}, 30s);
    EXPECT_TRUE(l) << l.err().message;
    return l ? std::move(*l) : nullptr;
  }
  // The holder's term ran out (as if it had not renewed for a term), by the server's clock.
  void run_out() {
    place_.admin().exec("UPDATE " + place_.schema() +
                        ".arb_lease SET expires = now() - interval '1 second'");
  }
  postgresql_place place_;
};

TEST_F(postgresql_lease_test, OneNodeHoldsTheLeaseAndTheOthersSeeWhoAndWhere) {
  auto a = node("a");
  auto b = node("b");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(*b->current());  // nobody yet
  auto taken = a->try_take();
  ASSERT_TRUE(taken) << taken.err().message;
  EXPECT_EQ(*taken, std::optional<std::uint64_t>(1));
  auto other = b->try_take();
  ASSERT_TRUE(other) << other.err().message;
  EXPECT_FALSE(*other);
  auto seen = b->current();
  ASSERT_TRUE(seen && *seen);
  EXPECT_EQ((*seen)->node, "a");
  EXPECT_EQ((*seen)->address, "a.example.org:7400");
  EXPECT_EQ((*seen)->http_address, "a.example.org:7480");
  EXPECT_EQ((*seen)->epoch, 1u);
  EXPECT_TRUE((*seen)->live);
  EXPECT_TRUE(*a->renew());
  EXPECT_FALSE(*b->renew());                                   // never took it
  EXPECT_EQ(*a->try_take(), std::optional<std::uint64_t>(1));  // its own, still
}

// A lease table made before the HTTP address was kept (the first release of the table) gains
// the column at the next connect, its holder kept, with no HTTP address.
TEST_F(postgresql_lease_test, ALeaseTableWithoutTheHttpAddressIsUpgradedInPlace) {
  const auto t = place_.schema() + ".arb_lease";
  place_.admin().exec("CREATE TABLE " + t +
                      " (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), node TEXT NOT NULL, "
                      "address TEXT NOT NULL, epoch BIGINT NOT NULL, expires TIMESTAMPTZ NOT "
                      "NULL, session INTEGER NOT NULL, writer INTEGER NOT NULL DEFAULT 0)");
  place_.admin().exec("INSERT INTO " + t +
                      " (node, address, epoch, expires, session) VALUES ('old', 'old:7400', 7, "
                      "now() + interval '1 hour', 0)");
  auto b = node("b");
  ASSERT_TRUE(b);
  auto seen = b->current();
  ASSERT_TRUE(seen && *seen) << (seen ? "none" : seen.err().message);
  EXPECT_EQ((*seen)->node, "old");
  EXPECT_EQ((*seen)->address, "old:7400");
  EXPECT_EQ((*seen)->http_address, "");
  EXPECT_EQ((*seen)->epoch, 7u);
  run_out();
  EXPECT_EQ(*b->try_take(), std::optional<std::uint64_t>(8));
  EXPECT_EQ((*b->current())->http_address, "b.example.org:7480");
}

// A holder whose term ran out is taken over with the next epoch; its lease session is ended,
// so it can neither renew nor take it back.
TEST_F(postgresql_lease_test, ATermThatRanOutIsTakenOverWithTheNextEpoch) {
  auto a = node("a");
  auto b = node("b");
  ASSERT_TRUE(a && b);
  ASSERT_EQ(*a->try_take(), std::optional<std::uint64_t>(1));
  run_out();
  auto taken = b->try_take();
  ASSERT_TRUE(taken) << taken.err().message;
  EXPECT_EQ(*taken, std::optional<std::uint64_t>(2));
  auto renewed = a->renew();
  EXPECT_TRUE(!renewed || !*renewed);
  EXPECT_EQ((*b->current())->node, "b");
  EXPECT_EQ((*b->current())->epoch, 2u);
}

// A holder stopping on purpose gives the lease up: the next node takes it at once.
TEST_F(postgresql_lease_test, AReleasedLeaseIsTakenAtOnce) {
  auto a = node("a");
  auto b = node("b");
  ASSERT_TRUE(a && b);
  ASSERT_EQ(*a->try_take(), std::optional<std::uint64_t>(1));
  EXPECT_FALSE(*b->try_take());
  ASSERT_TRUE(a->release());
  EXPECT_FALSE(*a->renew());  // no longer its own
  EXPECT_EQ(*b->try_take(), std::optional<std::uint64_t>(2));
}

// A batch under way (its fence held until it commits) does not hold up its node's renewal,
// and does hold off a takeover: the holder's renewals are never stuck behind its own writes
// (the failover trials saw a new leader step down so), and every batch of an old epoch
// commits before a new epoch is taken.
TEST_F(postgresql_lease_test, ARenewalDoesNotWaitForABatchUnderWayButATakeoverDoes) {
  auto a = node("a");
  auto b = node("b");
  ASSERT_TRUE(a && b);
  ASSERT_EQ(*a->try_take(), std::optional<std::uint64_t>(1));
  admin_session batch;  // a journal's batch of epoch 1, under way
  batch.exec("SET search_path = " + place_.schema());
  batch.exec("BEGIN");
  batch.exec("SELECT arb_fence(1)");
  const auto asked = std::chrono::steady_clock::now();
  auto renewed = a->renew();
  ASSERT_TRUE(renewed) << renewed.err().message;
  EXPECT_TRUE(*renewed);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 2s);  // not after the 5 s lock timeout
  run_out();
  auto taken = b->try_take();  // waits for the batch, until the lease's 5 s lock timeout
  ASSERT_FALSE(taken);
  EXPECT_NE(taken.err().message.find("lock timeout"), std::string::npos) << taken.err().message;
  batch.exec("COMMIT");
  EXPECT_EQ(*b->try_take(), std::optional<std::uint64_t>(2));
}

// The fence alone (as if the old holder's sessions could not be ended): a batch of an old
// epoch fails and the journal is broken; the rows written before stay.
TEST_F(postgresql_lease_test, AJournalOfAnOldEpochCannotWriteOnceTheEpochMoved) {
  auto a = node("a");
  ASSERT_TRUE(a);
  ASSERT_EQ(*a->try_take(), std::optional<std::uint64_t>(1));
  auto j = open_store(place_.where(), {durability::full, "", 1});
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_TRUE((*j)->save(row("berlin/1")));
  place_.admin().exec("UPDATE " + place_.schema() + ".arb_lease SET epoch = 2");
  auto fenced = (*j)->save(row("berlin/2"));
  ASSERT_FALSE(fenced);
  EXPECT_NE(fenced.err().message.find("the lease moved past epoch 1"), std::string::npos)
      << fenced.err().message;
  EXPECT_FALSE((*j)->save(row("berlin/3")));  // broken for good
  j->reset();
  auto again = open_store(place_.where(), {durability::full, "", 2});
  ASSERT_TRUE(again) << again.err().message;
  auto rows = (*again)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().id, "berlin/1");
}

TEST_F(postgresql_lease_test, AJournalOpensOnlyUnderTheLeasesEpoch) {
  auto a = node("a");
  ASSERT_TRUE(a);
  ASSERT_EQ(*a->try_take(), std::optional<std::uint64_t>(1));
  auto j = open_store(place_.where(), {durability::full, "", 7});
  ASSERT_FALSE(j);
  EXPECT_NE(j.err().message.find("epoch 7 is not the lease's"), std::string::npos)
      << j.err().message;
}

// The holder stopped (SIGSTOP) with its journal open: the node taking over ends its sessions,
// opens the store at once (the old writer's lock went with its session), and the old holder,
// continued, cannot write any more.
TEST_F(postgresql_lease_test, APausedHolderIsTakenOverAndCannotWriteWhenItWakes) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto a = postgresql_lease::connect(place_.where(), "a", {"a:7400", ""}, 30s);
    if (!a || !*(*a)->try_take()) ::_exit(3);
    auto j = open_store(place_.where(), {durability::full, "", 1});
    if (!j || !(*j)->save(row("berlin/1"))) ::_exit(4);
    char c = 'x';
    if (::write(ready[1], &c, 1) != 1) ::_exit(5);
    ::raise(SIGSTOP);  // paused here, sessions open, until the test continues it
    ::_exit((*j)->save(row("berlin/99")) ? 6 : 0);
  }
  // A failed assertion must not leave the child stopped for good.
  struct reaper {
    pid_t pid;
    bool reaped = false;
    ~reaper() {
      if (reaped) return;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } child_guard{child};
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the first holder failed before it was ready";
  ::close(ready[0]);
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, WUNTRACED), child);
  ASSERT_TRUE(WIFSTOPPED(st));
  run_out();
  auto b = node("b");
  ASSERT_TRUE(b);
  auto taken = b->try_take();
  ASSERT_TRUE(taken) << taken.err().message;
  ASSERT_EQ(*taken, std::optional<std::uint64_t>(2));
  auto j = open_store(place_.where(), {durability::full, "", 2});
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_EQ(::kill(child, SIGCONT), 0);
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  child_guard.reaped = true;
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "the paused holder wrote after it was taken over";
  EXPECT_TRUE(*(*j)->find("berlin/1"));
  EXPECT_FALSE(*(*j)->find("berlin/99"));
  EXPECT_TRUE((*j)->save(row("berlin/2")));
}

}  // namespace
}  // namespace arbroker::testing
