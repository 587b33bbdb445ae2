#include "arbroker/core/error.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

result<int> half(int x) {
  if (x % 2 != 0) return fail(errc::invalid_parameter, "odd: " + std::to_string(x));
  return x / 2;
}

TEST(Result, CarriesValueOrTypedError) {
  auto ok = half(8);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 4);
  auto bad = half(3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_parameter);
  EXPECT_EQ(bad.err().message, "odd: 3");
  EXPECT_THROW((void)bad.value(), bad_result_access);
}

TEST(Result, VoidStatus) {
  status good;
  EXPECT_TRUE(good);
  status bad = fail(errc::not_found, "x");
  EXPECT_FALSE(bad);
  EXPECT_EQ(to_string(bad.err()), "not_found: x");
}

}  // namespace
}  // namespace arbroker
