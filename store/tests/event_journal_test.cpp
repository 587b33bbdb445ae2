// Which changes of a reservation's row record which events (events.hpp). How every store
// writes them (ids in commit order, never given twice, the listener told once durable):
// journal_contract.hpp.
#include <gtest/gtest.h>

#include "arbroker/store/events.hpp"
#include "arbroker/store/journal.hpp"
#include "test_rows.hpp"

namespace arbroker {
namespace {

using namespace testing::test_rows;

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

}  // namespace
}  // namespace arbroker
