// The names a cluster service gives in its LRMS and the lease on them, on their own (the
// service's use of them: lrms_claim_test.cpp, with several nodes on one batch system).

#include "arbroker/actors/lrms_names.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace arbroker {
namespace {

using unclaimed = lrms_names::unclaimed;

TEST(lrms_names, ANameIsThePrefixAndTheSerialAndReadsBack) {
  lrms_names names("arb-a-");
  EXPECT_EQ(names.name_of(42), "arb-a-42");
  EXPECT_EQ(names.number_in_name("arb-a-42"), 42u);
  // Not names this service gives: another prefix, no number, more than a number, none at all.
  for (const char* other : {"arb-b-42", "arb-a-", "arb-a-4x", "arb-a--4", "arb-a", "", "42"})
    EXPECT_EQ(names.number_in_name(other), 0u) << other;
}

TEST(lrms_names, TheLeaseIsWrittenOncePerBlockAheadOfTheSerials) {
  lrms_names names("p");
  EXPECT_EQ(names.lease(), 0u);
  ASSERT_EQ(names.lease_for(1), 1 + lrms_names::lease_block);  // nothing leased yet
  names.leased(1 + lrms_names::lease_block);
  for (std::uint64_t n = 2; n <= lrms_names::lease_block; ++n)
    ASSERT_FALSE(names.lease_for(n)) << n;  // covered: no write
  EXPECT_EQ(names.lease_for(1 + lrms_names::lease_block), 1 + 2 * lrms_names::lease_block);
  names.leased(5);  // a lease never shrinks
  EXPECT_EQ(names.lease(), 1 + lrms_names::lease_block);
}

TEST(lrms_names, TheRestartsLeaseComesFromTheClaimOrTheStoresAge) {
  lrms_names names("p-");
  EXPECT_EQ(*names.lease_at_restart(lrms_claim{"p-", 2048}, 1500), 2048u);
  EXPECT_EQ(*names.lease_at_restart(std::nullopt, 0), 0u);  // a new store: nothing is ours
  // A store from before claims, with rows: every name under the prefix counts as ours.
  EXPECT_EQ(*names.lease_at_restart(std::nullopt, 7), std::numeric_limits<std::uint64_t>::max());
  auto other = names.lease_at_restart(lrms_claim{"q-", 2048}, 1500);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.err().code, errc::invalid_parameter);
  EXPECT_NE(other.err().message.find("set name_prefix = \"q-\""), std::string::npos)
      << other.err().message;
}

TEST(lrms_names, AnUnclaimedNameIsAnOrphanBelowTheLeaseAndForeignFromIt) {
  lrms_names names("p-");
  EXPECT_EQ(names.classify("p-99", 100), std::pair(unclaimed::orphan, std::uint64_t{99}));
  EXPECT_EQ(names.classify("p-100", 100), std::pair(unclaimed::foreign, std::uint64_t{100}));
  EXPECT_EQ(names.classify("q-5", 100), std::pair(unclaimed::not_ours, std::uint64_t{0}));
  EXPECT_EQ(names.classify("p-x", 100), std::pair(unclaimed::not_ours, std::uint64_t{0}));
  EXPECT_EQ(names.classify("p-5", 0).first, unclaimed::foreign);  // a new store owns nothing
}

}  // namespace
}  // namespace arbroker
