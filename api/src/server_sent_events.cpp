#include "server_sent_events.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <optional>

#include "arbroker/api/json_codec.hpp"

namespace arbroker::api::detail {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 percent-decoding, '+' as a space (HTML forms); nothing for a broken escape.
std::optional<std::string> decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

result<std::int64_t> event_id(std::string_view field, std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return fail(errc::invalid_parameter,
                std::string(field) + ": '" + std::string(text.substr(0, 32)) +
                    "' is no event id (-1: from now on; 0: every event kept; n: after event n)");
  return v;
}

}  // namespace

result<msg::watch_request> watch_request_from_query(std::string_view query,
                                                    std::string_view last_event_id) {
  msg::watch_request r;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    const auto key = pair.substr(0, eq);
    auto value = decoded(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (!value)
      return fail(errc::invalid_parameter, std::string(key.substr(0, 32)) + ": a broken %-escape");
    if (key == "since") {
      auto v = event_id("since", *value);
      if (!v) return v.err();
      r.since = *v;
    } else if (key == "user") {
      r.user = *value;
    } else if (key == "kinds") {
      std::string_view rest = *value;
      while (!rest.empty()) {
        const auto comma = rest.find(',');
        if (auto k = rest.substr(0, comma); !k.empty()) r.kinds.emplace_back(k);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    } else {
      return fail(errc::invalid_parameter, "'" + std::string(key.substr(0, 32)) +
                                               "' is no parameter of watch (since, user, kinds)");
    }
  }
  if (!last_event_id.empty()) {
    auto v = event_id("Last-Event-ID", last_event_id);
    if (!v) return v.err();
    r.since = *v;
  }
  return r;
}

std::string sse_message(const msg::watch_event& e) {
  // Kinds and ids have no line breaks; to_json escapes those of the data.
  return "id: " + std::to_string(e.id) + "\nevent: " + e.kind + "\ndata: " + to_json(e) + "\n\n";
}

std::string sse_start(std::uint64_t last) {
  return "id: " + std::to_string(last) +
         "\nevent: watching\ndata: {\"last\":" + std::to_string(last) + "}\n\n";
}

std::string sse_end(const error& why) {
  nlohmann::json j;
  j["code"] = static_cast<int>(why.code);
  j["error"] = std::string(to_string(why.code));
  j["message"] = why.message;
  return "event: error\ndata: " + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n\n";
}

}  // namespace arbroker::api::detail
