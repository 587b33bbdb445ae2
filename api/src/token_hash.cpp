#include "arbroker/api/token_hash.hpp"

#include <sodium.h>

#include <array>
#include <map>
#include <mutex>

namespace arbroker::api {
namespace {

bool sodium_ready() {
  static const bool ready = ::sodium_init() >= 0;  // thread-safe, idempotent
  return ready;
}

}  // namespace

result<std::string> hash_token(std::string_view token) {
  if (token.empty()) return fail(errc::invalid_parameter, "an empty token cannot be hashed");
  if (!sodium_ready()) return fail(errc::internal, "libsodium failed to initialise");
  char out[crypto_pwhash_STRBYTES];
  if (::crypto_pwhash_str(out, token.data(), token.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                          crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0)
    return fail(errc::internal, "argon2id hashing failed (out of memory?)");
  return std::string(out);
}

bool is_token_hash(std::string_view text) {
  if (!sodium_ready() || text.size() >= crypto_pwhash_STRBYTES) return false;
  if (text.substr(0, 10) != "$argon2id$") return false;
  const std::string s(text);
  // -1 for a string it cannot read; 0 or 1 (needs rehash) for a usable one.
  return ::crypto_pwhash_str_needs_rehash(s.c_str(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                                          crypto_pwhash_MEMLIMIT_INTERACTIVE) >= 0;
}

bool token_matches(std::string_view hash, std::string_view token) {
  if (!sodium_ready() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  const std::string h(hash);
  return ::crypto_pwhash_str_verify(h.c_str(), token.data(), token.size()) == 0;
}

struct verified_tokens::impl {
  using digest = std::array<unsigned char, crypto_generichash_BYTES>;
  std::array<unsigned char, crypto_generichash_KEYBYTES> key{};
  mutable std::mutex mu;
  std::map<std::string, digest, std::less<>> good;  // hash string -> digest of its token

  digest of(std::string_view token) const {
    digest d{};
    ::crypto_generichash(d.data(), d.size(), reinterpret_cast<const unsigned char*>(token.data()),
                         token.size(), key.data(), key.size());
    return d;
  }
};

verified_tokens::verified_tokens() : impl_(std::make_shared<impl>()) {
  if (sodium_ready()) ::crypto_generichash_keygen(impl_->key.data());
}

bool verified_tokens::known(std::string_view hash, std::string_view token) const {
  if (!sodium_ready()) return false;
  const auto d = impl_->of(token);
  std::lock_guard lock(impl_->mu);
  auto it = impl_->good.find(hash);
  return it != impl_->good.end() && ::sodium_memcmp(it->second.data(), d.data(), d.size()) == 0;
}

void verified_tokens::remember(std::string_view hash, std::string_view token) {
  if (!sodium_ready()) return;
  const auto d = impl_->of(token);
  std::lock_guard lock(impl_->mu);
  impl_->good.insert_or_assign(std::string(hash), d);
}

void verified_tokens::clear() {
  std::lock_guard lock(impl_->mu);
  impl_->good.clear();
}

}  // namespace arbroker::api
