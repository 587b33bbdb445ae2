#include "arbroker/actors/tagged_calls.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace arbroker {
namespace {

TEST(tagged_calls, EveryCallIsAnsweredOnceByItsReplyOrByItsCalleesEnd) {
  tagged_calls<std::string, int> calls;  // callees are plain numbers here
  std::vector<std::string> seen;
  auto note = [&](const char* who) {
    return [&seen, who](std::string* r) {
      seen.push_back(std::string(who) + ":" + (r ? *r : "gone"));
    };
  };
  const auto a = calls.add(1, note("a"));
  const auto b = calls.add(2, note("b"));
  const auto c = calls.add(1, note("c"));
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(calls.open(), 3u);
  std::string reply = "ok";
  calls.complete(b, reply);
  calls.complete(b, reply);  // a second answer to the same call is dropped
  EXPECT_EQ(seen, (std::vector<std::string>{"b:ok"}));
  calls.lost(1);  // callee 1 ends: both its open calls learn it
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "a:gone"), 1);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "c:gone"), 1);
  calls.complete(a, reply);  // too late: answered already
  calls.lost(2);             // nothing open to it any more
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(calls.open(), 0u);
}

TEST(tagged_calls, AnAnswerMayStartTheNextCall) {
  tagged_calls<int, int> calls;
  int last = 0;
  msg::call_tag second;
  const auto first = calls.add(7, [&](int* r) {
    last = *r;
    second = calls.add(7, [&](int* r2) { last = r2 ? *r2 : -1; });
  });
  int one = 1;
  calls.complete(first, one);
  EXPECT_EQ(last, 1);
  EXPECT_EQ(calls.open(), 1u);
  calls.lost(7);
  EXPECT_EQ(last, -1);
  EXPECT_NE(second, first);
}

}  // namespace
}  // namespace arbroker
