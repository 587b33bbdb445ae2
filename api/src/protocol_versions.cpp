#include "arbroker/api/protocol_versions.hpp"

#include <array>

#include "arbroker/api/codec.hpp"
#include "arbroker/messages/msgpack_codec.hpp"

namespace arbroker::api {

namespace {

// What came after the first versions, from docs/protocol.md's version history. Version 1
// stands for "before version 6", where that history starts to name operations.
struct op_version {
  operation op;
  std::uint16_t since;
};
constexpr std::array<op_version, 5> later_ops{{
    {operation::coallocate, 6},
    {operation::job_query, 16},
    {operation::job_cancel, 16},
    {operation::grid_submit_many, 17},
    {operation::watch, 19},
}};

// An error code a version does not know is shown to it as one it does (`older`): the one
// whose meaning for that client is closest (a standby is, for a client that cannot follow
// it, a node that does not serve).
struct code_version {
  errc code;
  std::uint16_t since;
  errc older;
};
constexpr std::array<code_version, 3> later_codes{{
    {errc::slow_consumer, 19, errc::busy},
    {errc::gone, 19, errc::not_found},
    {errc::not_leader, 20, errc::unreachable},
}};

/// The welcome of a version before 20: [version, node, error] (no `leader`).
struct welcome_v19 {
  std::uint16_t version = 0;
  std::string node;
  msg::wire_error error;
};
ARB_FIELDS(welcome_v19, x.version, x.node, x.error)

}  // namespace

std::string served_protocol_versions() {
  std::string out;
  for (auto v = oldest_served_protocol_version; v <= protocol_version; ++v)
    out += (out.empty() ? "" : v == protocol_version ? " and " : ", ") + std::to_string(v);
  return out;
}

std::uint16_t introduced_in(operation op) noexcept {
  for (const auto& o : later_ops)
    if (o.op == op) return o.since;
  return 1;
}

std::uint16_t introduced_in(errc code) noexcept {
  for (const auto& c : later_codes)
    if (c.code == code) return c.since;
  return 1;
}

error as_known_to(std::uint16_t version, const error& e) {
  error shown = e;
  // Each fallback is older than its code, so this ends; a chain would be followed.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& c : later_codes)
      if (c.code == shown.code && version < c.since) {
        shown.code = c.older;
        changed = true;
      }
  }
  return shown;
}

std::string encode_welcome_for(std::uint16_t version, welcome w) {
  if (!w.error.ok()) w.error = msg::to_wire(as_known_to(version, msg::from_wire(w.error)));
  w.version = version;
  if (version >= 20) return encode_welcome(w);
  // (A standby's refusal names the leader in its message too: nothing is lost.)
  return msg::encode(welcome_v19{w.version, std::move(w.node), std::move(w.error)});
}

}  // namespace arbroker::api
