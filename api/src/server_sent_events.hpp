#pragma once

// A watch over HTTP (GET /v1/watch, docs/watch.md) as server-sent events (the WHATWG HTML
// standard's text/event-stream): the request read from the query and the Last-Event-ID
// header, and each event, the watch's start and its end written as one message.

#include <string>
#include <string_view>

#include "arbroker/core/error.hpp"
#include "arbroker/messages/watch_protocol.hpp"

namespace arbroker::api::detail {

/// A watch request from a query ("since=17&user=bob&kinds=reservation,grid_job.ended", each
/// optional and percent-decoded) and the Last-Event-ID header (which, when present, is the
/// `since`: a reconnecting EventSource sends it). invalid_parameter naming the parameter for
/// anything else.
result<msg::watch_request> watch_request_from_query(std::string_view query,
                                                    std::string_view last_event_id);

/// "id: 17\nevent: reservation.moved\ndata: {...}\n\n".
std::string sse_message(const msg::watch_event& e);
/// The first message: where the watch starts (its id is that event's, so that a reconnect
/// without any event in between resumes there).
std::string sse_start(std::uint64_t last);
/// The last message: why the watch ended ({"code", "error", "message"}, as an error body).
std::string sse_end(const error& why);
/// A comment, which keeps proxies and the client's idle timers from closing the stream.
inline constexpr std::string_view sse_heartbeat = ": keep-alive\n\n";

}  // namespace arbroker::api::detail
