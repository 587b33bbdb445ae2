#include "arbroker/actors/fan_in.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace arbroker {
namespace {

TEST(fan_in, TheLastAnswerRunsDoneOnceWhateverTheOrder) {
  int done = 0;
  fan_in join(3, [&] { ++done; });
  const auto copy = join;  // a reply handler's
  join.arrived();
  copy.arrived();
  EXPECT_EQ(done, 0);
  EXPECT_EQ(join.left(), 1u);
  copy.arrived();
  EXPECT_EQ(done, 1);
  join.arrived();  // one more than awaited: nothing
  EXPECT_EQ(done, 1);
}

TEST(fan_in, NothingToWaitForRunsDoneAtOnce) {
  int done = 0;
  fan_in join(0, [&] { ++done; });
  EXPECT_EQ(done, 1);
  join.arrived();
  EXPECT_EQ(done, 1);
}

TEST(fan_in, DoneMayDropTheLastCopyOfTheCount) {
  // A handler that owns the only copy and ends the fan-out from `done` (as a reply handler
  // erasing its round does) must not use the freed count afterwards.
  auto holder = std::make_unique<fan_in>(1, [] {});
  bool ran = false;
  holder = std::make_unique<fan_in>(1, [&] {
    ran = true;
    holder.reset();
  });
  const fan_in local = *holder;
  local.arrived();
  EXPECT_TRUE(ran);
  EXPECT_EQ(holder, nullptr);
}

}  // namespace
}  // namespace arbroker
