#pragma once

// What the protocol's fields, enums, error codes and operations mean, for people: the one
// source of the words in docs/protocol-reference.md, the generated tables of
// docs/protocol.md and docs/http-api.md, and docs/openapi.json. The shapes (names, types,
// order, defaults) come from the code's field lists (wire_model.hpp); this adds what the
// code cannot say: meaning, unit, the bounds validation enforces, and whether a request must
// give a field. api/tests/wire_docs_test.cpp holds both to the code: every field documented,
// no entry for a field that is not, every bound and every `required` as validate() has it.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/api/protocol.hpp"
#include "arbroker/core/error.hpp"

namespace arbroker::api::detail {

struct field_doc {
  std::string_view text;  ///< what it is; the default's meaning where it is not itself
  std::string_view unit;  ///< "s", "Unix s", "CPUs", "MiB", "bytes"; empty: none
  /// Numbers validation refuses outside [minimum, maximum] (requests only).
  std::optional<double> minimum;
  std::optional<double> maximum;
  std::size_t max_length = 0;  ///< texts: bytes (0: the type's only)
  std::size_t max_items = 0;   ///< lists (0: none stated)
  /// A request must give it: its default is refused (validate); replies give every field.
  bool required = false;
};

/// The doc of `field` of struct `structure` (its wire name): the entry for
/// "structure.field", else the one for the name alone ("user", "error"); null when neither
/// exists.
const field_doc* doc_of(std::string_view structure, std::string_view field);

/// Every entry's key ("structure.field" or ".field"), for the test that none is stale.
std::size_t doc_count();
std::string_view doc_key(std::size_t i);

/// What a value of an enum means ("hold": "hold it; the client commits later ..."); empty if
/// undocumented.
std::string_view enum_value_doc(std::string_view enumeration, std::string_view value);

/// What an error code means, in one line.
std::string_view errc_doc(errc code);

/// What an operation does (a sentence or two; summary_of is its first clause).
std::string_view operation_doc(operation op);
std::string_view operation_summary(operation op);

/// An HTTP status the HTTP API answers with, and what answers with it besides the error codes
/// http_status_of() maps to it (codes_of_status).
struct http_status_doc {
  unsigned status;
  std::string_view also;  ///< empty: only the error codes
};
std::span<const http_status_doc> http_status_docs();
/// The error codes answered with `status` (http_status_of), in code order.
std::vector<errc> codes_of_status(unsigned status);

/// A request body of the operation that validation accepts, as JSON: the example of the
/// OpenAPI document, and what the tests start from (watch's is its msgpack body; over HTTP
/// its fields are the query).
std::string_view operation_example(operation op);

}  // namespace arbroker::api::detail
