#include "arbroker/api/token_hash.hpp"

#include <gtest/gtest.h>

namespace arbroker::api {
namespace {

TEST(token_hash, MatchesItsTokenOnlyAndIsSalted) {
  auto h = hash_token("alice-secret-token");
  ASSERT_TRUE(h) << to_string(h.err());
  EXPECT_EQ(h->rfind("$argon2id$", 0), 0u) << *h;
  EXPECT_EQ(h->find("alice"), std::string::npos);
  EXPECT_TRUE(is_token_hash(*h));
  EXPECT_TRUE(token_matches(*h, "alice-secret-token"));
  EXPECT_FALSE(token_matches(*h, "alice-secret-tokeN"));
  EXPECT_FALSE(token_matches(*h, ""));
  auto again = hash_token("alice-secret-token");
  ASSERT_TRUE(again);
  EXPECT_NE(*again, *h);  // another salt
  EXPECT_TRUE(token_matches(*again, "alice-secret-token"));
}

TEST(token_hash, RefusesWhatIsNoHashAndEmptyTokens) {
  EXPECT_EQ(hash_token("").err().code, errc::invalid_parameter);
  for (const char* bad : {"", "alice-secret", "$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aGFzaA",
                          "$argon2id$v=19$garbage", "$2y$10$abcdefghijklmnopqrstuv"})
    EXPECT_FALSE(is_token_hash(bad)) << bad;
  EXPECT_FALSE(token_matches("alice-secret", "alice-secret"));  // a clear token is no hash
  EXPECT_FALSE(token_matches(std::string(500, '$'), "x"));
}

TEST(verified_tokens, RemembersTheLastGoodTokenPerHashUntilCleared) {
  verified_tokens v;
  EXPECT_FALSE(v.known("$h1", "t1"));
  v.remember("$h1", "t1");
  EXPECT_TRUE(v.known("$h1", "t1"));
  EXPECT_FALSE(v.known("$h1", "t2"));
  EXPECT_FALSE(v.known("$h2", "t1"));
  v.remember("$h1", "t2");
  EXPECT_TRUE(v.known("$h1", "t2"));
  EXPECT_FALSE(v.known("$h1", "t1"));
  v.clear();
  EXPECT_FALSE(v.known("$h1", "t2"));
}

}  // namespace
}  // namespace arbroker::api
