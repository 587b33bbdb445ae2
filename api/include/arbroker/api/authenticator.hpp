#pragma once

// Who a (user, token) pair is, for every front end of a node (the msgpack server and the HTTP
// API share one, so that a reload reaches both). Tokens in clear compare in constant time;
// hashed ones (token_hash.hpp) take an argon2id check on the one thread of the process that
// does them, unless the same token was found good before.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "arbroker/api/handler.hpp"
#include "arbroker/api/token_hash.hpp"

namespace arbroker::api {

struct credential {
  std::string token;  ///< in clear (tests, the demo); when empty, token_hash is checked
  bool admin = false;
  std::string token_hash = {};  ///< argon2id (token_hash.hpp), checked on a thread of its own
};

/// user -> credential.
using token_table = std::map<std::string, credential>;

class authenticator {
 public:
  explicit authenticator(token_table tokens = {});

  /// Replaces the users and tokens (a reload) and forgets the tokens found good. Checks already
  /// under way finish against the table they started with. Thread-safe.
  void set_tokens(token_table tokens);

  /// Calls `done` exactly once with the caller, or nothing for an unknown user or a wrong
  /// token (the same answer for both): at once on this thread when no argon2id check is
  /// needed, else later on the checking thread. Thread-safe.
  void check(const std::string& user, std::string token,
             std::function<void(std::optional<caller>)> done);

 private:
  std::shared_ptr<const token_table> tokens() const;

  mutable std::mutex mu_;
  std::shared_ptr<const token_table> tokens_;
  verified_tokens verified_;
};

}  // namespace arbroker::api
