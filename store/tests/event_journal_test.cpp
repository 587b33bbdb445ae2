// The events a store writes with its rows (events.hpp): which changes record which events,
// ids in commit order that are never given twice, and the listener told once they are durable.
#include "arbroker/store/sqlite_journal.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <mutex>

namespace arbroker {
namespace {

reservation_row hold(std::string id) {
  reservation_row r;
  r.cluster = id.substr(0, id.find('/'));
  r.id = std::move(id);
  r.owner = "alice";
  r.txn = "t1";
  r.start = 3600;
  r.end = 7200;
  r.np = 8;
  r.state = reservation_state::accepted;
  r.expiry = 60;
  return r;
}

std::vector<std::string> kinds_of(const std::vector<event_row>& es) {
  std::vector<std::string> out;
  for (const auto& e : es)
    out.push_back(e.kind);
  return out;
}

using kinds = std::vector<std::string>;

TEST(reservation_events, EachChangeOfARowRecordsWhatChanged) {
  auto h = hold("berlin/1");
  EXPECT_EQ(kinds_of(reservation_events(std::nullopt, h, 5)), kinds{"reservation.created"});

  auto c = h;
  c.state = reservation_state::committed;
  c.expiry = 0;
  EXPECT_EQ(kinds_of(reservation_events(h, c, 5)), kinds{"reservation.committed"});
  // Made committed at once: created, then committed, as a hold and its commit.
  EXPECT_EQ(kinds_of(reservation_events(std::nullopt, c, 5)),
            (kinds{"reservation.created", "reservation.committed"}));

  auto moved = c;  // a laxity cluster moves it, same length
  moved.start += 600;
  moved.end += 600;
  auto e = reservation_events(c, moved, 9);
  ASSERT_EQ(kinds_of(e), kinds{"reservation.moved"});
  EXPECT_EQ(e[0].start, 4200);
  EXPECT_EQ(e[0].end, 7800);
  EXPECT_EQ(e[0].at, 9);
  EXPECT_EQ(e[0].state, "committed");
  EXPECT_EQ(e[0].owner, "alice");
  EXPECT_EQ(e[0].cluster, "berlin");

  auto longer = c;  // an overrun quantum
  longer.end += 900;
  EXPECT_EQ(kinds_of(reservation_events(c, longer, 5)), kinds{"reservation.extended"});
  auto shorter = c;
  shorter.end -= 900;
  EXPECT_EQ(kinds_of(reservation_events(c, shorter, 5)), kinds{"reservation.modified"});
  auto wider = c;
  wider.np = 16;
  EXPECT_EQ(kinds_of(reservation_events(c, wider, 5)), kinds{"reservation.modified"});

  auto relabelled = c;  // nothing a watcher sees
  relabelled.lrms_id = "arb-1";
  EXPECT_TRUE(reservation_events(c, relabelled, 5).empty());

  auto ended = c;
  ended.state = reservation_state::completed;
  ended.finished = 7200;
  EXPECT_EQ(kinds_of(reservation_events(c, ended, 7200)), kinds{"reservation.ended"});
  EXPECT_TRUE(reservation_events(ended, ended, 7300).empty());  // written again: no new end

  auto expired = h;
  expired.state = reservation_state::expired;
  expired.finished = 60;
  auto x = reservation_events(h, expired, 60);
  ASSERT_EQ(kinds_of(x), kinds{"reservation.ended"});
  EXPECT_EQ(x[0].state, "expired");
}

class event_journal_test : public ::testing::Test {
 protected:
  std::string db() const { return (scratch_.path() / "arb.db").string(); }
  testing::scratch_dir scratch_{"arb-events"};
};

TEST_F(event_journal_test, EventsAreWrittenWithTheirRowsInCommitOrderAndToldOnceDurable) {
  auto j = sqlite_journal::open(db());
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

TEST_F(event_journal_test, IdsAreNeverGivenTwiceAfterAPurgeOrAReopen) {
  {
    auto j = sqlite_journal::open(db());
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
  auto j = sqlite_journal::open(db());
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->save(hold("berlin/4")));
  auto all = (*j)->events_after(0, 10);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().id, 4u);
  EXPECT_EQ(all->front().subject, "berlin/4");
}

}  // namespace
}  // namespace arbroker
