#pragma once

// The wire reference of the protocol, generated from the code's own field lists
// (ARB_FIELDS in messages/ and protocol.hpp), enums (enum_bounds and to_string) and error
// codes: every body's fields in wire order with their msgpack types, every enum's numbers
// and names, every operation's request and reply, every error code. docs/protocol-reference.md
// is this text; a test keeps the two equal.

#include <string>
#include <string_view>

namespace arbroker::api {

/// The reference in Markdown.
std::string protocol_reference();

/// `text` (docs/protocol.md, docs/http-api.md) with every block between
/// "<!-- generated: NAME -->" and "<!-- end of generated: NAME -->" written anew from the same
/// source as the reference: `hello`, `operations`, `error-codes`, `enums`, `statuses`. So
/// the hand-written pages' tables cannot disagree with the reference; a test checks that the
/// committed pages are their own fill. Throws std::invalid_argument naming an unknown block
/// or a block without its end.
std::string fill_generated_blocks(std::string_view text);

}  // namespace arbroker::api
