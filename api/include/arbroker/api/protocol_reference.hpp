#pragma once

// The wire reference of the protocol, generated from the code's own field lists
// (ARB_FIELDS in messages/ and protocol.hpp), enums (enum_bounds and to_string) and error
// codes: every body's fields in wire order with their msgpack types, every enum's numbers
// and names, every operation's request and reply, every error code. docs/protocol-reference.md
// is this text; a test keeps the two equal.

#include <string>

namespace arbroker::api {

/// The reference in Markdown.
std::string protocol_reference();

}  // namespace arbroker::api
