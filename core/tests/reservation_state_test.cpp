#include "arbroker/core/reservation_state.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace arbroker {
namespace {

using st = reservation_state;
using ev = reservation_event;

const std::vector<st> all_states{st::requested,        st::rejected, st::accepted,  st::committed,
                                 st::change_requested, st::active,   st::cancelled, st::completed,
                                 st::terminated,       st::expired};
const std::vector<ev> all_events{
    ev::accept,         ev::reject, ev::commit, ev::expire, ev::request_change, ev::change_granted,
    ev::change_refused, ev::start,  ev::finish, ev::cancel, ev::terminate};

// The legal transitions of paper 001, Fig. 3 (as specified in reservation_state.hpp).
const std::map<std::pair<st, ev>, st> legal{
    {{st::requested, ev::accept}, st::accepted},
    {{st::requested, ev::reject}, st::rejected},
    {{st::requested, ev::cancel}, st::cancelled},
    {{st::accepted, ev::commit}, st::committed},
    {{st::accepted, ev::expire}, st::expired},
    {{st::accepted, ev::cancel}, st::cancelled},
    {{st::committed, ev::request_change}, st::change_requested},
    {{st::committed, ev::start}, st::active},
    {{st::committed, ev::cancel}, st::cancelled},
    {{st::change_requested, ev::change_granted}, st::committed},
    {{st::change_requested, ev::change_refused}, st::committed},
    {{st::change_requested, ev::start}, st::active},
    {{st::change_requested, ev::cancel}, st::cancelled},
    {{st::active, ev::finish}, st::completed},
    {{st::active, ev::terminate}, st::terminated},
};

TEST(ReservationState, EveryPairIsLegalOrATypedError) {
  for (auto s : all_states) {
    for (auto e : all_events) {
      auto next = next_state(s, e);
      auto it = legal.find({s, e});
      if (it != legal.end()) {
        ASSERT_TRUE(next) << to_string(s) << " + " << to_string(e);
        EXPECT_EQ(*next, it->second) << to_string(s) << " + " << to_string(e);
      } else {
        ASSERT_FALSE(next) << to_string(s) << " + " << to_string(e) << " should be illegal";
        EXPECT_EQ(next.err().code, errc::illegal_transition);
        EXPECT_NE(next.err().message.find(std::string(to_string(s))), std::string::npos);
      }
    }
  }
}

TEST(ReservationState, TerminalStatesHaveNoWayOut) {
  for (auto s : all_states) {
    if (!is_terminal(s)) continue;
    EXPECT_FALSE(holds_capacity(s));
    for (auto e : all_events)
      EXPECT_FALSE(next_state(s, e)) << to_string(s);
  }
  EXPECT_TRUE(holds_capacity(st::accepted));
  EXPECT_TRUE(holds_capacity(st::active));
  EXPECT_FALSE(holds_capacity(st::requested));
}

TEST(ReservationState, QueryAnswersOfPaper001) {
  EXPECT_EQ(to_string(to_query_status(st::accepted)), "not committed");
  EXPECT_EQ(to_string(to_query_status(st::committed)), "not started");
  EXPECT_EQ(to_string(to_query_status(st::change_requested)), "not started");
  EXPECT_EQ(to_string(to_query_status(st::expired)), "expired");
  EXPECT_EQ(to_string(to_query_status(st::terminated)), "terminated");
}

TEST(ReservationLifecycle, HoldCommitActivateComplete) {
  auto r = *reservation_lifecycle::create(1000, 2000);
  EXPECT_EQ(r.state(), st::requested);
  ASSERT_TRUE(r.accept(100, 160));
  EXPECT_EQ(r.state(), st::accepted);
  ASSERT_TRUE(r.apply(ev::commit, 159));
  EXPECT_EQ(r.state(), st::committed);
  r.advance(999);
  EXPECT_EQ(r.state(), st::committed);
  r.advance(1000);
  EXPECT_EQ(r.state(), st::active);
  r.advance(2000);
  EXPECT_EQ(r.state(), st::completed);
}

TEST(ReservationLifecycle, CommitAtOrAfterExpiryFindsItExpired) {
  auto r = *reservation_lifecycle::create(1000, 2000);
  ASSERT_TRUE(r.accept(100, 160));
  auto late = r.apply(ev::commit, 160);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.err().code, errc::illegal_transition);
  EXPECT_EQ(r.state(), st::expired);
}

TEST(ReservationLifecycle, ChangeKeepsOrReplacesTerms) {
  auto r = *reservation_lifecycle::create(1000, 2000);
  ASSERT_TRUE(r.accept(0, 10));
  ASSERT_TRUE(r.apply(ev::commit, 1));
  ASSERT_TRUE(r.apply(ev::request_change, 2));
  ASSERT_TRUE(r.apply(ev::change_refused, 3));
  EXPECT_EQ(r.start(), 1000);
  ASSERT_TRUE(r.apply(ev::request_change, 4));
  EXPECT_EQ(r.change_terms(5, 3000, 2000).err().code, errc::invalid_window);
  EXPECT_EQ(r.state(), st::change_requested);  // a bad change changes nothing
  ASSERT_TRUE(r.change_terms(5, 3000, 4000));
  EXPECT_EQ(r.state(), st::committed);
  EXPECT_EQ(r.start(), 3000);
  EXPECT_EQ(r.end(), 4000);
  r.advance(2500);
  EXPECT_EQ(r.state(), st::committed);  // the old start time no longer applies
}

TEST(ReservationLifecycle, AnOverrunExtendsAnActiveReservationInPlace) {
  auto r = *reservation_lifecycle::create(1000, 2000);
  ASSERT_TRUE(r.accept(0, 10));
  auto hold = r;
  EXPECT_EQ(hold.extend(5, 3000).err().code, errc::illegal_transition);  // a hold: no
  ASSERT_TRUE(r.apply(ev::commit, 1));
  ASSERT_TRUE(r.extend(1900, 2300));  // active at 1900: it stays active, 300 s longer
  EXPECT_EQ(r.state(), st::active);
  EXPECT_EQ(r.start(), 1000);
  EXPECT_EQ(r.end(), 2300);
  EXPECT_EQ(r.extend(2000, 2300).err().code, errc::invalid_window);  // not later
  EXPECT_EQ(r.extend(2000, 2200).err().code, errc::invalid_window);  // earlier
  EXPECT_EQ(r.end(), 2300);
  r.advance(2299);
  EXPECT_EQ(r.state(), st::active);
  r.advance(2300);
  EXPECT_EQ(r.state(), st::completed);
  EXPECT_EQ(r.extend(2300, 2600).err().code, errc::illegal_transition);  // over
}

TEST(ReservationLifecycle, CancelBeforeStartTerminateWhileActive) {
  auto r = *reservation_lifecycle::create(1000, 2000);
  ASSERT_TRUE(r.accept(0, 10));
  ASSERT_TRUE(r.apply(ev::commit, 1));
  auto r2 = r;
  ASSERT_TRUE(r.apply(ev::cancel, 500));
  EXPECT_EQ(r.state(), st::cancelled);
  EXPECT_FALSE(r2.apply(ev::cancel, 1500));  // active: cancel is not the word
  EXPECT_EQ(r2.state(), st::active);
  ASSERT_TRUE(r2.apply(ev::terminate, 1500));
  EXPECT_EQ(r2.state(), st::terminated);
}

TEST(ReservationLifecycle, RejectsBadInput) {
  EXPECT_EQ(reservation_lifecycle::create(5, 5).err().code, errc::invalid_window);
  auto r = *reservation_lifecycle::create(1000, 2000);
  EXPECT_EQ(r.accept(100, 100).err().code, errc::invalid_parameter);
  EXPECT_EQ(r.state(), st::requested);
  EXPECT_EQ(r.apply(ev::accept, 1).err().code, errc::invalid_parameter);
  EXPECT_EQ(r.apply(ev::commit, 1).err().code, errc::illegal_transition);
  EXPECT_EQ(r.state(), st::requested);
}

}  // namespace
}  // namespace arbroker
