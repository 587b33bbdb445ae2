#pragma once

// What every store promises (store.hpp, journal.hpp, events.hpp), as tests of one backend:
// a test program instantiates journal_contract with the place its backend keeps a store
// (an SQLite file, a PostgreSQL schema), and every test runs on a fresh, empty one.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "arbroker/store/store.hpp"
#include "store_place.hpp"
#include "test_rows.hpp"

namespace arbroker::testing {

inline void PrintTo(const store_backend& b, std::ostream* os) {
  *os << b.name;
}

// Whether the writes up to `ticket` became durable (as when_durable tells) within 30 s, and
// their outcome was a success.
inline bool durable_within_30s(reservation_journal& j, write_ticket ticket) {
  bool durable = false, ok = false;
  std::mutex mu;
  std::condition_variable cv;
  j.when_durable(ticket, [&](status outcome) {
    std::lock_guard lock{mu};
    ok = outcome.has_value();
    durable = true;
    cv.notify_all();
  });
  std::unique_lock lock{mu};
  return cv.wait_for(lock, std::chrono::seconds(30), [&] { return durable; }) && ok;
}

inline std::string backend_name(const ::testing::TestParamInfo<store_backend>& info) {
  return info.param.name;
}

class journal_contract : public ::testing::TestWithParam<store_backend> {
 protected:
  void SetUp() override { place_ = GetParam().fresh(); }
  result<std::unique_ptr<node_store>> open(durability d = durability::full) {
    return open_store(place_->where(), {d, ""});
  }
  std::unique_ptr<store_place> place_;
};

using namespace test_rows;

TEST_P(journal_contract, SavesReplacesAndForgetsRowsPerClusterInIdOrder) {
  auto j = open();
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

TEST_P(journal_contract, CommitDecisionsAreLoggedOnceAndForgotten) {
  auto j = open();
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->log_commit("c1.a1"));
  ASSERT_TRUE((*j)->log_commit("c1.a1"));  // idempotent
  ASSERT_TRUE((*j)->log_commit("c2.a3"));
  ASSERT_TRUE((*j)->forget_commit("c1.a1"));
  auto c = (*j)->commits();
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, std::vector<std::string>{"c2.a3"});
}

TEST_P(journal_contract, RowsSurviveReopening) {
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->save(row("berlin/1", reservation_state::accepted)));
    ASSERT_TRUE((*j)->log_commit("x"));
  }
  auto j = open();
  ASSERT_TRUE(j);
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0], row("berlin/1", reservation_state::accepted));
  EXPECT_EQ((*j)->commits()->size(), 1u);
}

// The guarantee a broker node relies on: once save() returned, the row survives the process
// being killed without any chance to clean up.
TEST_P(journal_contract, ASavedRowSurvivesKillMinus9) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto j = open();
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

  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 100u);
  EXPECT_EQ(rows->back(), row("berlin/100"));
  EXPECT_EQ(*(*j)->commits(), std::vector<std::string>{"co.a1"});
}

// The node's identity and its claims in each LRMS survive reopening; a claim is replaced.
TEST_P(journal_contract, ClaimsAndTheNodeIdSurviveReopening) {
  {
    auto j = open();
    ASSERT_TRUE(j);
    EXPECT_FALSE(*(*j)->claim_of("berlin"));
    ASSERT_TRUE((*j)->save_claim("berlin", {"arb-k3x9-", 1025}));
    ASSERT_TRUE((*j)->save_claim("berlin", {"arb-k3x9-", 2049}));
    ASSERT_TRUE((*j)->save_claim("potsdam", {"site-", 7}));
    ASSERT_TRUE((*j)->save_node_id("k3x9"));
  }
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(**(*j)->claim_of("berlin"), (lrms_claim{"arb-k3x9-", 2049}));
  EXPECT_EQ(**(*j)->claim_of("potsdam"), (lrms_claim{"site-", 7}));
  EXPECT_FALSE(*(*j)->claim_of("boston"));
  EXPECT_EQ(*(*j)->node_id(), "k3x9");
}

// Finished rows are history: not recovered, read by pages (newest end first, keyset cursor),
// by owner or everyone's, found by id, and purged past a time except the last id given.
TEST_P(journal_contract, FinishedRowsAreHistoryReadByPagesAndPurgedByTime) {
  auto j = open();
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

TEST_P(journal_contract, OpenRefusesASchemaFromANewerBuild) {
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->save(row("berlin/1")));
  }
  // A later build bumped the schema.
  place_->set_schema_version(99);
  auto j = open();
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::storage_failure);
  EXPECT_NE(j.err().message.find("newer than this build"), std::string::npos) << j.err().message;
}

TEST_P(journal_contract, GridJobsSurviveReopeningInIdOrderWithBinaryBodies) {
  const std::string body("\x92\x00\xff binary", 10);
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->save_grid_job({"n/g10", "alice", true, body}));
    ASSERT_TRUE((*j)->save_grid_job({"n/g9", "bob", true, "x"}));
    ASSERT_TRUE((*j)->save_grid_job({"n/g11", "bob", true, "z"}));
    ASSERT_TRUE((*j)->save_grid_job({"n/g9", "bob", false, "y", 5000}));  // replaced: ended
  }
  auto j = open();
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
TEST_P(journal_contract, SeveralGridJobsAreSavedAtOnce) {
  {
    auto j = open();
    ASSERT_TRUE(j);
    const std::vector<grid_job_row> rows{
        {"n/g1", "alice", true, "a"}, {"n/g2", "alice", true, "b"}, {"n/g3", "alice", true, "c"}};
    ASSERT_TRUE((*j)->save_grid_jobs(rows));
    ASSERT_TRUE((*j)->save_grid_jobs({}));
  }
  auto j = open();
  ASSERT_TRUE(j);
  auto rows = (*j)->grid_jobs();
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[2], (grid_job_row{"n/g3", "alice", true, "c"}));
  EXPECT_EQ(*(*j)->last_grid_job_serial(), 3u);
}

// Ended grid jobs are history for the retention: purged after it, but for the row of the
// highest id (a restarted node must not give an id again), and active ones never.
TEST_P(journal_contract, EndedGridJobsArePurgedPastTheRetentionButTheLastId) {
  auto j = open();
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
TEST_P(journal_contract, EndedGridJobsComeInPagesByEndTime) {
  auto j = open();
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

TEST_P(journal_contract, EventsAreWrittenWithTheirRowsInCommitOrderAndToldOnceDurable) {
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  std::mutex mu;
  std::vector<event_row> told;
  (*j)->set_event_listener([&](std::vector<event_row> es) {
    std::lock_guard lock{mu};
    told.insert(told.end(), es.begin(), es.end());
  });

  auto h = hold("berlin/1");
  ASSERT_TRUE((*j)->save(h));
  h.state = reservation_state::committed;
  ASSERT_TRUE((*j)->save(h));
  grid_job_row g{"n1/g1", "bob", true, "body", 0, {}};
  g.events.push_back({0, 10, "grid_job.submitted", "n1/g1", "bob", "", "pending", 0, 0, 2, "x"});
  g.events.push_back({0, 10, "grid_job.placed", "n1/g1", "bob", "potsdam", "queued", 0, 0, 2, ""});
  ASSERT_TRUE((*j)->save_grid_job(g));

  auto all = (*j)->events_after(0, 100);
  ASSERT_TRUE(all) << all.err().message;
  ASSERT_EQ(kinds_of(*all), (kinds{"reservation.created", "reservation.committed",
                                   "grid_job.submitted", "grid_job.placed"}));
  for (std::size_t i = 0; i < all->size(); ++i)
    EXPECT_EQ((*all)[i].id, i + 1);
  EXPECT_EQ((*all)[3].cluster, "potsdam");
  EXPECT_EQ((*all)[3].owner, "bob");

  {  // each blocking save returned once durable, and its batch was told before
    std::lock_guard lock{mu};
    EXPECT_EQ(told, *all);
  }
  auto page = (*j)->events_after(2, 1);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ(page->front().id, 3u);
  auto span = (*j)->events_kept();
  ASSERT_TRUE(span);
  EXPECT_EQ(*span, (event_span{1, 4}));
}

// Whatever an event's text holds comes back as it was written: quotes, backslashes, braces
// and commas (a backend may pass many events as one array), NULL as a word, empty fields,
// UTF-8.
TEST_P(journal_contract, AnEventsTextComesBackByteForByte) {
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  const std::vector<std::string> texts{R"(say "hi")",     R"(C:\dir\)",    "{a,b}", "NULL", "",
                                       "Zürich → Genève", "a, \"b\"\\ {c}"};
  grid_job_row g{"n1/g1", "bob", true, "body", 0, {}};
  for (const auto& t : texts)
    g.events.push_back({0, 10, "grid_job.placed", "n1/g1", t, t, t, -5, 7, 2, t});
  ASSERT_TRUE((*j)->save_grid_job(g));
  auto all = (*j)->events_after(0, 100);
  ASSERT_TRUE(all) << all.err().message;
  ASSERT_EQ(all->size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& e = (*all)[i];
    EXPECT_EQ(e.what, texts[i]);
    EXPECT_EQ(e.owner, texts[i]);
    EXPECT_EQ(e.cluster, texts[i]);
    EXPECT_EQ(e.state, texts[i]);
    EXPECT_EQ(e.subject, "n1/g1");
    EXPECT_EQ(e.start, -5);
    EXPECT_EQ(e.end, 7);
    EXPECT_EQ(e.np, 2);
  }
}

TEST_P(journal_contract, IdsAreNeverGivenTwiceAfterAPurgeOrAReopen) {
  {
    auto j = open();
    ASSERT_TRUE(j);
    auto span = (*j)->events_kept();
    ASSERT_TRUE(span);
    EXPECT_EQ(*span, (event_span{1, 0}));  // none ever
    for (int i = 1; i <= 3; ++i)
      ASSERT_TRUE((*j)->save(hold("berlin/" + std::to_string(i))));
    // Every event so far is older than the retention: all of them go.
    ASSERT_TRUE((*j)->purge_events(std::numeric_limits<timestamp>::max()));
    span = (*j)->events_kept();
    ASSERT_TRUE(span);
    EXPECT_EQ(*span, (event_span{4, 3}));
  }
  auto j = open();
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->save(hold("berlin/4")));
  auto all = (*j)->events_after(0, 10);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().id, 4u);
  EXPECT_EQ(all->front().subject, "berlin/4");
}

// One reservation written again and again, pipelined (one batch or several, as the writer
// takes them): each write records what changed from the one before it, also when the one
// before is not committed yet, and a row forgotten then written again is new.
TEST_P(journal_contract, EventsFollowEveryWriteOfARowWhateverTheBatches) {
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  auto h = hold("berlin/7");
  auto committed = h;
  committed.state = reservation_state::committed;
  auto moved = committed;
  moved.start += 600;
  moved.end += 600;
  auto ended = moved;
  ended.state = reservation_state::cancelled;
  ended.finished = 5000;
  write_ticket last = 0;
  for (const auto& r : {h, committed, moved, ended})
    last = *(*j)->save_pipelined(r);
  ASSERT_TRUE((*j)->forget("berlin/7"));
  last = *(*j)->save_pipelined(h);
  ASSERT_TRUE(durable_within_30s(**j, last));
  auto all = (*j)->events_after(0, 100);
  ASSERT_TRUE(all) << all.err().message;
  EXPECT_EQ(kinds_of(*all),
            (kinds{"reservation.created", "reservation.committed", "reservation.moved",
                   "reservation.ended", "reservation.created"}));
  EXPECT_EQ(**(*j)->find("berlin/7"), h);
}

// A row written many times at once, pipelined (batches of several writes of it, as a
// backend may send one statement per batch): what is stored is its last write.
TEST_P(journal_contract, ARowWrittenManyTimesAtOnceKeepsItsLastWrite) {
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  auto r = hold("berlin/3");
  write_ticket last = 0;
  for (int i = 1; i <= 50; ++i) {
    r.np = i;
    r.cost = i / 3.0;
    last = *(*j)->save_pipelined(r);
  }
  ASSERT_TRUE(durable_within_30s(**j, last));
  EXPECT_EQ(**(*j)->find("berlin/3"), r);
  auto rows = (*j)->rows_of("berlin");
  ASSERT_TRUE(rows) << rows.err().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front(), r);
}

// A row written before a restart: its next write after it records what changed from it (a
// store must not take it for a new row), and a new row beside it is new.
TEST_P(journal_contract, AfterAReopenARowsEventsFollowFromItsStoredRow) {
  {
    auto j = open();
    ASSERT_TRUE(j) << j.err().message;
    ASSERT_TRUE((*j)->save(hold("berlin/5")));
    ASSERT_TRUE((*j)->save(hold("berlin/9")));
  }
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  auto c = hold("berlin/5");
  c.state = reservation_state::committed;
  ASSERT_TRUE((*j)->save(c));
  ASSERT_TRUE((*j)->save(hold("berlin/10")));
  ASSERT_TRUE((*j)->save(hold("potsdam/1")));
  auto all = (*j)->events_after(2, 100);
  ASSERT_TRUE(all) << all.err().message;
  EXPECT_EQ(kinds_of(*all),
            (kinds{"reservation.committed", "reservation.created", "reservation.created"}));
}

// Many threads writing at once (the cluster services): every blocking save returns once
// durable, and none is lost or mixed up across a reopen.
TEST_P(journal_contract, ManyConcurrentWritersLoseNothingAcrossAReopen) {
  constexpr int threads = 8, per_thread = 100;
  {
    auto j = open();
    ASSERT_TRUE(j) << j.err().message;
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          const auto id = "c" + std::to_string(t) + "/" + std::to_string(i + 1);
          EXPECT_TRUE((*j)->save(row(id)));
          if (i % 2) {
            EXPECT_TRUE((*j)->forget(id));
          }
        }
      });
    for (auto& t : ts)
      t.join();
  }
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  for (int t = 0; t < threads; ++t) {
    auto rows = (*j)->rows_of("c" + std::to_string(t));
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), std::size_t{per_thread / 2});
    for (std::size_t k = 0; k < rows->size(); ++k)
      EXPECT_EQ((*rows)[k].id, "c" + std::to_string(t) + "/" + std::to_string(2 * k + 1));
  }
}

// What a cluster service does: a pipelined write is answered for by its callback once
// durable, in ticket order, and a ticket known durable is answered at once.
TEST_P(journal_contract, PipelinedWritesAreAnsweredOnceDurableInOrder) {
  auto j = open();
  ASSERT_TRUE(j) << j.err().message;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> answered;
  write_ticket last = 0;
  for (int i = 1; i <= 50; ++i) {
    auto t = i % 5 ? (*j)->save_pipelined(row("berlin/" + std::to_string(i)))
                   : (*j)->log_commit_pipelined("c" + std::to_string(i));
    ASSERT_TRUE(t) << t.err().message;
    EXPECT_GT(*t, last);
    last = *t;
    (*j)->when_durable(*t, [&, i](status ok) {
      EXPECT_TRUE(ok);
      std::lock_guard lock{mu};
      answered.push_back(i);
      cv.notify_all();
    });
  }
  {
    std::unique_lock lock{mu};
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return answered.size() == 50; }))
        << answered.size() << " of 50 answered";
    for (std::size_t k = 0; k < answered.size(); ++k)
      EXPECT_EQ(answered[k], static_cast<int>(k + 1));
  }
  EXPECT_EQ((*j)->rows_of("berlin")->size(), 40u);
  EXPECT_EQ((*j)->commits()->size(), 10u);
  bool at_once = false;
  (*j)->when_durable(last, [&](status ok) { at_once = ok.has_value(); });
  EXPECT_TRUE(at_once);
}

}  // namespace arbroker::testing
