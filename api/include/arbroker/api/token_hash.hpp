#pragma once

// Tokens stored hashed (libsodium's argon2id, crypto_pwhash_str): a config file that leaks
// does not hand out logins. `arbd --hash-token` prints one.

#include <memory>
#include <string>
#include <string_view>

#include "arbroker/core/error.hpp"

namespace arbroker::api {

/// "$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>" for `token` (libsodium's interactive
/// limits: about 0.1 s and 64 MiB per hash or check). invalid_parameter for an empty token;
/// internal when libsodium cannot (out of memory).
result<std::string> hash_token(std::string_view token);

/// Whether `text` is an argon2id string libsodium can check tokens against.
bool is_token_hash(std::string_view text);

/// Whether `token` is the one `hash` was made from. As slow as hashing: never call it on a
/// thread that serves others (server.cpp runs it on a thread of its own).
bool token_matches(std::string_view hash, std::string_view token);

/// Tokens already found to match a hash, so that a client that logs in again costs a keyed
/// BLAKE2b instead of an argon2id check. Holds a keyed digest of the last good token per hash
/// (random key per process), never a token. Thread-safe.
class verified_tokens {
 public:
  verified_tokens();
  bool known(std::string_view hash, std::string_view token) const;
  void remember(std::string_view hash, std::string_view token);
  void clear();

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace arbroker::api
