#pragma once

// Which protocol versions a node serves, and what each of them knows (docs/compatibility.md).
// A node serves its own version and the two before it. A session speaks the version of its
// client's hello: its welcome says so, an operation or error code newer than that version is
// never shown to it, a welcome field newer than it is left out, and a struct it sends with
// fewer trailing fields than this build knows keeps the defaults of the missing ones (the
// fields are only ever appended, and a new field's default is what the release before meant).

#include <cstdint>
#include <string>

#include "arbroker/api/protocol.hpp"
#include "arbroker/core/error.hpp"

namespace arbroker::api {

/// The oldest version a node serves: protocol_version and the two before it.
inline constexpr std::uint16_t oldest_served_protocol_version = protocol_version - 2;

constexpr bool serves_protocol_version(std::uint16_t v) noexcept {
  return v >= oldest_served_protocol_version && v <= protocol_version;
}

/// "18, 19 and 20": what a refusal of another version names.
std::string served_protocol_versions();

/// The protocol version that introduced the operation (1 for those of the first version).
std::uint16_t introduced_in(operation op) noexcept;
/// The protocol version that introduced the error code (1 for those of the first version).
std::uint16_t introduced_in(errc code) noexcept;

/// The error a client of `version` is shown for `e`: the code itself when that version knows
/// it, else the nearest older code it does know, with the same message.
error as_known_to(std::uint16_t version, const error& e);

/// The welcome as a client of `version` reads it: that version in it, an error code it knows,
/// and the fields of its release only (a version-19 welcome has no `leader`: a standby's
/// refusal names the leader in its message as well).
std::string encode_welcome_for(std::uint16_t version, welcome w);

}  // namespace arbroker::api
