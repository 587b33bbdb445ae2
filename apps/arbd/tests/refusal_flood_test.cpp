#include "refusal_flood.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

using namespace std::chrono_literals;
using clock = refusal_flood::clock;

const refusal_flood::client pipeliner{api::front_end::msgpack, "alice", "127.0.0.1:5000", 11};

TEST(refusal_flood, WritesABurstPerIntervalAndCountsTheRest) {
  refusal_flood f(10s, 3);
  const auto t0 = clock::time_point{} + 1000s;
  int written = 0;
  for (int i = 0; i < 100; ++i)
    written += f.admit(pipeliner, t0 + i * 10ms);
  EXPECT_EQ(written, 3);
  EXPECT_TRUE(f.due(t0 + 5s).empty());  // the interval is not over
  auto s = f.due(t0 + 10s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].who, pipeliner);
  EXPECT_EQ(s[0].suppressed, 97u);
  EXPECT_EQ(s[0].span, 990ms);
  EXPECT_TRUE(f.due(t0 + 20s).empty());  // each summary once
  // The next interval writes a burst again.
  EXPECT_TRUE(f.admit(pipeliner, t0 + 11s));
}

TEST(refusal_flood, ClientsAndOutcomesCountApart) {
  refusal_flood f(10s, 1);
  const auto t0 = clock::time_point{} + 1000s;
  auto other_peer = pipeliner;
  other_peer.peer = "127.0.0.1:5001";
  auto other_outcome = pipeliner;
  other_outcome.code = 6;
  auto over_http = pipeliner;
  over_http.via = api::front_end::http;
  for (const auto& c : {pipeliner, other_peer, other_outcome, over_http}) {
    EXPECT_TRUE(f.admit(c, t0));
    EXPECT_FALSE(f.admit(c, t0));
  }
  EXPECT_EQ(f.due(clock::time_point::max()).size(), 4u);
}

TEST(refusal_flood, RefusalsAfterAnIntervalAreNotLostBeforeItsSummary) {
  refusal_flood f(10s, 1);
  const auto t0 = clock::time_point{} + 1000s;
  EXPECT_TRUE(f.admit(pipeliner, t0));
  EXPECT_FALSE(f.admit(pipeliner, t0 + 1s));
  EXPECT_FALSE(f.admit(pipeliner, t0 + 12s));  // the summary is not written yet: it counts
  auto s = f.due(t0 + 12s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].suppressed, 2u);
  EXPECT_TRUE(f.admit(pipeliner, t0 + 13s));
}

TEST(refusal_flood, AQuietClientIsForgotten) {
  refusal_flood f(10s, 5);
  const auto t0 = clock::time_point{} + 1000s;
  EXPECT_TRUE(f.admit(pipeliner, t0));
  EXPECT_TRUE(f.due(t0 + 10s).empty());  // nothing suppressed: no summary, and forgotten
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(f.admit(pipeliner, t0 + 11s));
}

}  // namespace
}  // namespace arbroker
