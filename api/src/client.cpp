#include "arbroker/api/client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <array>
#include <charconv>

#include "arbroker/api/stream.hpp"

namespace arbroker::api {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

// Why a TLS handshake failed, in words: the certificate check's verdict when there was one.
std::string tls_reason(detail::tls_stream& s, const error_code& ec) {
  const long v = ::SSL_get_verify_result(s.native_handle());
  if (v != X509_V_OK)
    return std::string("the server's certificate: ") + ::X509_verify_cert_error_string(v);
  return ec.message();
}

}  // namespace

client::client(client_options options)
    : options_(std::move(options)), decoder_(options_.max_frame) {}

client::~client() {
  close();
}

bool client::connected() const noexcept {
  return stream_ && stream_->socket().is_open();
}

void client::close() {
  if (stream_) stream_->close();
  decoder_ = frame_decoder(options_.max_frame);
}

status client::run_until(const bool& done) {
  io_.restart();
  io_.run_for(options_.timeout);
  if (done) return {};
  // Time is up: cancel what is pending and let the handlers see it.
  close();
  io_.restart();
  io_.run();
  return fail(errc::timeout,
              "no answer within " + std::to_string(options_.timeout.count()) + " ms");
}

status client::open(const std::string& host, std::uint16_t port) {
  close();
  stream_ = options_.tls ? std::make_unique<detail::stream>(tcp::socket(io_), *options_.tls)
                         : std::make_unique<detail::stream>(tcp::socket(io_));
  tcp::resolver resolver(io_);
  bool done = false;
  error_code result_ec;
  resolver.async_resolve(host, std::to_string(port),
                         [&](error_code ec, tcp::resolver::results_type endpoints) {
                           if (ec) {
                             result_ec = ec;
                             done = true;
                             return;
                           }
                           asio::async_connect(stream_->socket(), endpoints,
                                               [&](error_code ec2, const tcp::endpoint&) {
                                                 result_ec = ec2;
                                                 done = true;
                                               });
                         });
  if (auto s = run_until(done); !s) return s;
  const std::string where = host + ":" + std::to_string(port);
  where_ = where;
  first_bytes_.clear();
  if (result_ec) {
    close();
    return fail(errc::unreachable, "cannot connect to " + where + ": " + result_ec.message());
  }
  error_code ignored;
  stream_->socket().set_option(tcp::no_delay(true), ignored);
  if (auto* tls = stream_->tls()) {
    const std::string& name = options_.tls_name.empty() ? host : options_.tls_name;
    // SNI for a DNS name; the certificate must name the host (or address) either way.
    error_code ip_ec;
    asio::ip::make_address(name, ip_ec);
    if (ip_ec) ::SSL_set_tlsext_host_name(tls->native_handle(), name.c_str());
    tls->set_verify_callback(asio::ssl::host_name_verification(name));
    done = false;
    tls->async_handshake(asio::ssl::stream_base::client, [&](error_code ec) {
      result_ec = ec;
      done = true;
    });
    if (auto s = run_until(done); !s) return s;
    if (result_ec) {
      close();
      return fail(errc::permission_denied,
                  "TLS with " + where + " failed: " + tls_reason(*tls, result_ec));
    }
  }
  return {};
}

result<welcome> client::greet(const std::string& host, std::uint16_t port, const std::string& user,
                              const std::string& token) {
  if (auto s = open(host, port); !s) return s.err();
  if (auto s = send_bytes(
          make_frame(encode_hello(hello{protocol_magic, protocol_version, user, token})));
      !s)
    return s.err();
  auto frame = read_frame();
  if (!frame) return not_a_welcome(frame.err());
  auto w = decode_welcome(*frame);
  if (!w || !w->error.ok()) close();
  return w;
}

result<welcome> client::connect(const std::string& host, std::uint16_t port,
                                const std::string& user, const std::string& token) {
  auto w = greet(host, port, user, token);
  if (!w) return w.err();
  if (!w->error.ok()) return msg::from_wire(w->error);
  return *w;
}

status client::send_bytes(std::string_view bytes) {
  if (!connected()) return fail(errc::unreachable, "not connected");
  bool done = false;
  error_code result_ec;
  stream_->async_write(asio::buffer(bytes.data(), bytes.size()), [&](error_code ec, std::size_t) {
    result_ec = ec;
    done = true;
  });
  if (auto s = run_until(done); !s) return s;
  if (result_ec) {
    close();
    return fail(errc::unreachable, "send failed: " + result_ec.message());
  }
  return {};
}

result<std::string> client::read_frame() {
  std::array<char, 16384> buf{};
  for (;;) {
    auto next = decoder_.next();
    if (!next) {
      close();
      return next.err();
    }
    if (*next) return std::move(**next);
    if (!connected()) return fail(errc::unreachable, "not connected");
    bool done = false;
    error_code result_ec;
    std::size_t got = 0;
    stream_->async_read_some(asio::buffer(buf), [&](error_code ec, std::size_t n) {
      result_ec = ec;
      got = n;
      done = true;
    });
    if (auto s = run_until(done); !s) return s.err();
    if (result_ec) {
      close();
      // Under TLS 1.3 a refused client certificate shows here, after the handshake.
      if (result_ec.category() == asio::error::get_ssl_category())
        return fail(errc::permission_denied, "TLS refused by the server (" + result_ec.message() +
                                                 "): a client certificate it accepts is needed");
      return fail(errc::unreachable,
                  "connection closed by the server (" + result_ec.message() + ")");
    }
    if (first_bytes_.size() < 8)
      first_bytes_.append(buf.data(), std::min<std::size_t>(got, 8 - first_bytes_.size()));
    decoder_.feed(std::string_view(buf.data(), got));
  }
}

// No welcome could be read: a server of another protocol answered the hello. Said as what to
// do, the error's own message kept after it.
error client::not_a_welcome(const error& e) const {
  const std::string_view got = first_bytes_;
  if (got.starts_with("HTTP/"))
    return {errc::unreachable,
            where_ +
                " answers in HTTP: it is a node's HTTP API port (docs/http-api.md); arb "
                "speaks the node's msgpack API, on its [node] listen port (" +
                e.message + ")"};
  // A TLS record (alert 21 or handshake 22, version 3.x) to our plain-text hello; or, as
  // OpenSSL does with a hello that is no TLS, the connection closed without a word.
  const bool tls_record = got.size() >= 2 && (got[0] == 21 || got[0] == 22) && got[1] == 3;
  if (!options_.tls && (tls_record || (got.empty() && e.code == errc::unreachable)))
    return {errc::unreachable,
            where_ + " closed the connection before it said welcome: if the node serves TLS, " +
                "pass its CA (--ca FILE or ARB_CA) (" + e.message + ")"};
  return e;
}

result<response> client::call(request_body body) {
  request req{next_id_++, std::move(body)};
  if (auto s = send_bytes(make_frame(encode_request(req))); !s) return s.err();
  for (;;) {
    auto frame = read_frame();
    if (!frame) return frame.err();
    auto r = decode_response(*frame);
    if (!r) {
      close();
      return r.err();
    }
    // id 0: the server's answer to a frame it could not read as a request (this call's:
    // it is the only one in flight).
    if (r->id == req.id || r->id == 0) return r;
  }
}

status client::watch(msg::watch_request r,
                     const std::function<bool(const msg::watch_reply&)>& on_page) {
  request req{next_id_++, std::move(r)};
  if (auto s = send_bytes(make_frame(encode_request(req))); !s) return s;
  struct quiet_allowed {  // no timeout while watching; the caller's again afterwards
    std::chrono::milliseconds& t;
    std::chrono::milliseconds saved;
    ~quiet_allowed() { t = saved; }
  } guard{options_.timeout, options_.timeout};
  options_.timeout = std::chrono::hours(24 * 365);
  for (;;) {
    auto frame = read_frame();
    if (!frame) return frame.err();
    auto resp = decode_response(*frame);
    if (!resp) {
      close();
      return resp.err();
    }
    if (resp->id != req.id && resp->id != 0) continue;
    if (!resp->ok()) return error{static_cast<errc>(resp->code), resp->message};
    const auto* page = std::get_if<msg::watch_reply>(&resp->body);
    if (!page) {
      close();
      return fail(errc::internal, "the node answered a watch with another body");
    }
    if (!on_page(*page)) {
      close();
      return {};
    }
  }
}

result<server_address> parse_host_port(std::string_view text) {
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close_bracket = text.find(']');
    if (close_bracket == std::string_view::npos || close_bracket + 1 >= text.size() ||
        text[close_bracket + 1] != ':')
      return fail(errc::invalid_parameter,
                  "expected [address]:port, got '" + std::string(text) + "'");
    host = text.substr(1, close_bracket - 1);
    port = text.substr(close_bracket + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return fail(errc::invalid_parameter, "expected host:port, got '" + std::string(text) + "'");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (host.empty() || ec != std::errc{} || end != port.data() + port.size() || value == 0 ||
      value > 65535)
    return fail(errc::invalid_parameter, "bad host:port '" + std::string(text) + "'");
  return std::pair{std::string(host), static_cast<std::uint16_t>(value)};
}

result<std::vector<server_address>> parse_server_list(std::string_view text) {
  std::vector<server_address> out;
  for (std::size_t from = 0;;) {
    const auto comma = text.find(',', from);
    const auto one = text.substr(from, comma == std::string_view::npos ? text.npos : comma - from);
    auto a = parse_host_port(one);
    if (!a) return a.err();
    if (std::find(out.begin(), out.end(), *a) != out.end())
      return fail(errc::invalid_parameter, "'" + std::string(one) + "' is named twice");
    out.push_back(std::move(*a));
    if (comma == std::string_view::npos) return out;
    from = comma + 1;
  }
}

}  // namespace arbroker::api
