#pragma once

// The JSON form of the protocol's bodies, for the HTTP/JSON API to come and for any client
// that speaks JSON: a struct is an object keyed by the names of its ARB_FIELDS list (the same
// list the msgpack codec and docs/protocol-reference.md use, so the forms cannot drift), an
// enum its name ("reserve", "committed"), a list an array.
//
// Reading is strict where a mistake would go unnoticed and lenient where the CLI is: a key
// that is no field, a value of the wrong type, an integer out of its field's range or a
// fraction where an integer belongs, and an unknown enum name are invalid_parameter naming
// the field ("components[1].np_min: ..."); a missing key keeps its field's default (the body
// is validated afterwards as any other, validate.hpp).

#include <string>
#include <string_view>

#include "arbroker/api/protocol.hpp"
#include "arbroker/core/error.hpp"

namespace arbroker::api {

/// What a key that is no field is: a mistake (refused, naming it), or a field that a client
/// of a newer release appended (skipped; docs/http-api.md, "Versions").
enum class unknown_keys { refuse, ignore };

/// The request body of `op` from the text of a JSON object.
result<request_body> request_body_from_json(operation op, std::string_view text,
                                            unknown_keys unknown = unknown_keys::refuse);

/// The JSON text of a body; "null" for a reply without one. Invalid UTF-8 in a string is
/// replaced (U+FFFD), never sent as it is.
std::string to_json(const request_body& body);
std::string to_json(const response_body& body);
/// One event of a watch (the data of a server-sent event).
std::string to_json(const msg::watch_event& event);

}  // namespace arbroker::api
