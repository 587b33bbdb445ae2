#include "http_response.hpp"

#include "arbroker/metrics/text_format.hpp"

namespace arbroker::metrics::detail {
namespace {

std::string response(std::string_view status, std::string_view content_type,
                     const std::string& body, bool with_body, std::string_view extra = {}) {
  std::string out = "HTTP/1.1 ";
  out += status;
  out += "\r\nContent-Type: ";
  out += content_type;
  out += "\r\nContent-Length: " + std::to_string(body.size());
  out += "\r\n";
  out += extra;
  out += "Connection: close\r\n\r\n";
  if (with_body) out += body;
  return out;
}

std::string plain(std::string_view status, const std::string& text, bool with_body = true,
                  std::string_view extra = {}) {
  return response(status, "text/plain; charset=utf-8", text, with_body, extra);
}

bool is_token_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

}  // namespace

std::string too_large_response() {
  return plain("431 Request Header Fields Too Large", "request too large\n");
}

std::string respond(std::string_view head, const std::function<std::string()>& body) {
  // Request line: METHOD SP target SP HTTP/1.x CRLF (RFC 9112, Sec. 3).
  const auto eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (eol == std::string_view::npos || sp1 == 0 || sp2 == std::string_view::npos ||
      sp2 == sp1 + 1 || line.find(' ', sp2 + 1) != std::string_view::npos)
    return plain("400 Bad Request", "malformed request line\n");
  const std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  for (char c : method)
    if (!is_token_char(c)) return plain("400 Bad Request", "malformed method\n");
  if (!version.starts_with("HTTP/1.") || version.size() != 8)
    return plain("400 Bad Request", "unsupported HTTP version\n");

  target = target.substr(0, target.find('?'));  // a query string changes nothing
  const bool head_only = method == "HEAD";
  if (target != "/metrics") return plain("404 Not Found", "not found: try /metrics\n", !head_only);
  if (method != "GET" && !head_only)
    return plain("405 Method Not Allowed", "only GET and HEAD\n", true, "Allow: GET, HEAD\r\n");
  return response("200 OK", text_content_type, body(), !head_only);
}

}  // namespace arbroker::metrics::detail
