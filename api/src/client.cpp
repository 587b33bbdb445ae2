#include "arbroker/api/client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <charconv>

namespace arbroker::api {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

client::client(client_options options)
    : options_(options), socket_(io_), decoder_(options.max_frame) {}

client::~client() {
  close();
}

bool client::connected() const noexcept {
  return socket_.is_open();
}

void client::close() {
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
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
  tcp::resolver resolver(io_);
  bool done = false;
  error_code result_ec;
  resolver.async_resolve(
      host, std::to_string(port), [&](error_code ec, tcp::resolver::results_type endpoints) {
        if (ec) {
          result_ec = ec;
          done = true;
          return;
        }
        asio::async_connect(socket_, endpoints, [&](error_code ec2, const tcp::endpoint&) {
          result_ec = ec2;
          done = true;
        });
      });
  if (auto s = run_until(done); !s) return s;
  if (result_ec) {
    close();
    return fail(errc::unreachable, "cannot connect to " + host + ":" + std::to_string(port) + ": " +
                                       result_ec.message());
  }
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  return {};
}

result<welcome> client::connect(const std::string& host, std::uint16_t port,
                                const std::string& user, const std::string& token) {
  if (auto s = open(host, port); !s) return s.err();
  if (auto s = send_bytes(
          make_frame(encode_hello(hello{protocol_magic, protocol_version, user, token})));
      !s)
    return s.err();
  auto frame = read_frame();
  if (!frame) return frame.err();
  auto w = decode_welcome(*frame);
  if (!w) {
    close();
    return w.err();
  }
  if (!w->error.ok()) {
    close();
    return msg::from_wire(w->error);
  }
  return *w;
}

status client::send_bytes(std::string_view bytes) {
  if (!connected()) return fail(errc::unreachable, "not connected");
  bool done = false;
  error_code result_ec;
  asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                    [&](error_code ec, std::size_t) {
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
    socket_.async_read_some(asio::buffer(buf), [&](error_code ec, std::size_t n) {
      result_ec = ec;
      got = n;
      done = true;
    });
    if (auto s = run_until(done); !s) return s.err();
    if (result_ec) {
      close();
      return fail(errc::unreachable,
                  "connection closed by the server (" + result_ec.message() + ")");
    }
    decoder_.feed(std::string_view(buf.data(), got));
  }
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

result<std::pair<std::string, std::uint16_t>> parse_host_port(std::string_view text) {
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

}  // namespace arbroker::api
