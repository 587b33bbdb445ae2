#pragma once

// The HTTP side of the metrics endpoint, without sockets: a request head in, a whole
// response (always "Connection: close") out.

#include <functional>
#include <string>
#include <string_view>

namespace arbroker::metrics::detail {

/// `head`: the request line and headers, up to and including the blank line.
std::string respond(std::string_view head, const std::function<std::string()>& body);

/// The response to a request head larger than the endpoint accepts.
std::string too_large_response();

}  // namespace arbroker::metrics::detail
