#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include <optional>
#include <thread>
#include <vector>

#include "arbroker/metrics/http_endpoint.hpp"
#include "arbroker/metrics/registry.hpp"

namespace arbroker::metrics {
namespace {

// A plain blocking TCP client on 127.0.0.1. Every receive gives up after 10 s, so a broken
// server fails the test instead of hanging it.
class client {
 public:
  explicit client(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~client() { ::close(fd_); }
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  bool connected() const { return connected_; }

  void send(const std::string& data) {
    for (std::size_t done = 0; done < data.size();) {
      const auto n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;  // the server closed: what it answered is still readable
      done += static_cast<std::size_t>(n);
    }
  }

  /// Everything until the server closes (or resets) the connection, or the receive timeout.
  std::string read_all() {
    std::string out;
    char buf[4096];
    for (;;) {
      const auto n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return out;
      if (n < 0) {
        timed_out_ = errno == EAGAIN || errno == EWOULDBLOCK;
        return out;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
  }
  bool timed_out() const { return timed_out_; }

 private:
  int fd_;
  bool connected_ = false;
  bool timed_out_ = false;
};

std::string exchange(std::uint16_t port, const std::string& request) {
  client c(port);
  EXPECT_TRUE(c.connected());
  c.send(request);
  return c.read_all();
}

std::string status_line(const std::string& response) {
  return response.substr(0, response.find("\r\n"));
}

std::string body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

class HttpEndpoint : public ::testing::Test {
 protected:
  HttpEndpoint() {
    requests = *reg.add_counter("arb_requests_total", "Requests.", {"operation", "outcome"});
    requests->with({"reserve", "ok"}).inc(5);
  }

  std::unique_ptr<http_endpoint> start(http_endpoint_config cfg = {}) {
    cfg.port = 0;
    auto e = http_endpoint::start(reg, cfg);
    EXPECT_TRUE(e) << (e ? "" : to_string(e.err()));
    return e ? std::move(*e) : nullptr;
  }

  registry reg;
  std::optional<family<counter>> requests;
};

TEST_F(HttpEndpoint, GetMetricsReturnsTheRenderedRegistry) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto r = exchange(e->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos);
  const auto body = body_of(r);
  EXPECT_NE(r.find("\r\nContent-Length: " + std::to_string(body.size()) + "\r\n"),
            std::string::npos);
  EXPECT_EQ(body, reg.render());
  EXPECT_NE(body.find("arb_requests_total{operation=\"reserve\",outcome=\"ok\"} 5\n"),
            std::string::npos);

  // Each scrape renders afresh; a query string changes nothing.
  requests->with({"reserve", "ok"}).inc();
  const auto again = exchange(e->port(), "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
  EXPECT_NE(body_of(again).find("outcome=\"ok\"} 6\n"), std::string::npos);

  const auto head = exchange(e->port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(head), "HTTP/1.1 200 OK");
  EXPECT_EQ(body_of(head), "");
}

TEST_F(HttpEndpoint, OtherPathsMethodsAndMalformedRequests) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto p = e->port();
  EXPECT_EQ(status_line(exchange(p, "GET / HTTP/1.1\r\n\r\n")), "HTTP/1.1 404 Not Found");
  EXPECT_EQ(status_line(exchange(p, "GET /metricsx HTTP/1.1\r\n\r\n")), "HTTP/1.1 404 Not Found");
  const auto post = exchange(p, "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(status_line(post), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_NE(post.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_EQ(status_line(exchange(p, "DELETE /metrics HTTP/1.1\r\n\r\n")),
            "HTTP/1.1 405 Method Not Allowed");
  for (const char* bad : {"garbage\r\n\r\n", "GET /metrics\r\n\r\n",
                          "GET  /metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/2.0\r\n\r\n",
                          "G(T /metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/1.1 extra\r\n\r\n"})
    EXPECT_EQ(status_line(exchange(p, bad)), "HTTP/1.1 400 Bad Request") << bad;
  // Still serving after all that.
  EXPECT_EQ(status_line(exchange(p, "GET /metrics HTTP/1.1\r\n\r\n")), "HTTP/1.1 200 OK");
}

TEST_F(HttpEndpoint, OversizedRequestGets431) {
  http_endpoint_config cfg;
  cfg.max_request_bytes = 256;
  auto e = start(cfg);
  ASSERT_TRUE(e);
  const std::string big =
      "GET /metrics HTTP/1.1\r\nX-Filler: " + std::string(100'000, 'a') + "\r\n\r\n";
  EXPECT_EQ(status_line(exchange(e->port(), big)), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(status_line(exchange(e->port(), "GET /metrics HTTP/1.1\r\n\r\n")), "HTTP/1.1 200 OK");
}

TEST_F(HttpEndpoint, SilentClientsDoNotBlockOthersAndAreCutAtTheTimeout) {
  http_endpoint_config cfg;
  cfg.client_timeout = std::chrono::milliseconds(300);
  auto e = start(cfg);
  ASSERT_TRUE(e);
  client silent(e->port());
  client half(e->port());
  ASSERT_TRUE(silent.connected());
  half.send("GET /metr");  // and never more
  EXPECT_EQ(status_line(exchange(e->port(), "GET /metrics HTTP/1.1\r\n\r\n")), "HTTP/1.1 200 OK");
  // The server closes both (EOF well before the client's own 10 s receive timeout).
  EXPECT_EQ(silent.read_all(), "");
  EXPECT_FALSE(silent.timed_out());
  EXPECT_EQ(half.read_all(), "");
  EXPECT_FALSE(half.timed_out());
}

TEST_F(HttpEndpoint, ConnectionsBeyondTheLimitAreClosedAtOnce) {
  http_endpoint_config cfg;
  cfg.max_connections = 2;
  cfg.client_timeout = std::chrono::seconds(30);
  auto e = start(cfg);
  ASSERT_TRUE(e);
  // Accepted in connection order: the two silent ones take both places.
  client first(e->port()), second(e->port());
  ASSERT_TRUE(first.connected() && second.connected());
  client third(e->port());
  third.send("GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(third.read_all(), "");
  EXPECT_FALSE(third.timed_out());
}

TEST_F(HttpEndpoint, ConcurrentScrapersAllGetTheFullText) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto expected = reg.render();
  constexpr int scrapers = 8, rounds = 25;
  std::vector<std::thread> pool;
  std::atomic<int> good = 0;
  for (int i = 0; i < scrapers; ++i)
    pool.emplace_back([&] {
      for (int k = 0; k < rounds; ++k)
        if (body_of(exchange(e->port(), "GET /metrics HTTP/1.1\r\n\r\n")) == expected) ++good;
    });
  for (auto& t : pool)
    t.join();
  EXPECT_EQ(good.load(), scrapers * rounds);
}

TEST_F(HttpEndpoint, StopClosesOpenConnectionsAndTheListener) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto port = e->port();
  client idle(port);
  ASSERT_TRUE(idle.connected());
  e->stop();
  // Closed (or reset, when stop came before the accept), not left hanging.
  EXPECT_EQ(idle.read_all(), "");
  EXPECT_FALSE(idle.timed_out());
  client late(port);
  EXPECT_FALSE(late.connected());
  e->stop();  // idempotent
}

TEST_F(HttpEndpoint, BadConfigurationIsAClearError) {
  http_endpoint_config cfg;
  cfg.address = "not-an-address";
  auto bad = http_endpoint::start(reg, cfg);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_parameter);

  auto first = start();
  ASSERT_TRUE(first);
  http_endpoint_config same;
  same.port = first->port();
  auto taken = http_endpoint::start(reg, same);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.err().code, errc::busy);
  EXPECT_NE(taken.err().message.find(std::to_string(first->port())), std::string::npos);
}

}  // namespace
}  // namespace arbroker::metrics
