#include "arbroker/api/authenticator.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>

namespace arbroker::api {
namespace {

/// Compares without an early exit, so the time taken does not reveal a token's prefix.
bool same_secret(std::string_view a, std::string_view b) noexcept {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

/// The one thread that checks hashed tokens, for every front end of the process: argon2id
/// takes ~0.1 s and 64 MiB, so checks queue instead of stalling I/O threads or memory. Never
/// destroyed: a check in progress may hold a connection, which holds its server.
boost::asio::thread_pool& token_checker() {
  static auto* pool = new boost::asio::thread_pool(1);
  return *pool;
}

}  // namespace

authenticator::authenticator(token_table tokens)
    : tokens_(std::make_shared<const token_table>(std::move(tokens))) {}

void authenticator::set_tokens(token_table tokens) {
  auto fresh = std::make_shared<const token_table>(std::move(tokens));
  {
    std::lock_guard lock(mu_);
    tokens_ = std::move(fresh);
  }
  verified_.clear();
}

std::shared_ptr<const token_table> authenticator::tokens() const {
  std::lock_guard lock(mu_);
  return tokens_;
}

void authenticator::check(const std::string& user, std::string token,
                          std::function<void(std::optional<caller>)> done) {
  const auto table = tokens();  // a reload replaces the table, never this copy
  auto it = table->find(user);
  if (it == table->end()) return done(std::nullopt);
  const credential& cred = it->second;
  const caller who{user, cred.admin};
  if (!cred.token.empty())
    return done(same_secret(token, cred.token) ? std::optional(who) : std::nullopt);
  if (cred.token_hash.empty()) return done(std::nullopt);
  if (verified_.known(cred.token_hash, token)) return done(who);
  // The digest cache is shared with this copy: the check does not need `this` to live on.
  boost::asio::post(token_checker(),
                    [verified = verified_, hash = cred.token_hash, token = std::move(token), who,
                     done = std::move(done)]() mutable {
                      const bool ok = token_matches(hash, token);
                      if (ok) verified.remember(hash, token);
                      done(ok ? std::optional(who) : std::nullopt);
                    });
}

}  // namespace arbroker::api
