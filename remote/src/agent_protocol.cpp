#include "arbroker/remote/agent_protocol.hpp"

#include "interface_table.hpp"

namespace arbroker::remote {

std::uint64_t interface_fingerprint() {
  static const std::uint64_t digest = [] {
    // FNV-1a, 64 bits: a digest to compare, not a secret.
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char c : detail::interface_shape(detail::signatures{})) {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    return h;
  }();
  return digest;
}

}  // namespace arbroker::remote
