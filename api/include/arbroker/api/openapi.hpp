#pragma once

// The OpenAPI 3 document of the HTTP/JSON API (http_server.hpp), generated from the same
// ARB_FIELDS lists as the msgpack codec, the JSON codec and docs/protocol-reference.md: a
// field added to a body appears in all four. Served at GET /v1/openapi.json; committed as
// docs/openapi.json (`arb-protocol-reference --openapi`; a test fails when they differ).

#include <string>

namespace arbroker::api {

/// The document as JSON text (built once, then shared).
const std::string& openapi_document();

}  // namespace arbroker::api
