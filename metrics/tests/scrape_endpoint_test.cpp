#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include "arbroker/metrics/scrape_endpoint.hpp"

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

class ScrapeEndpoint : public ::testing::Test {
 protected:
  ScrapeEndpoint()
      : reg(std::make_shared<prometheus::Registry>()),
        requests(prometheus::BuildCounter()
                     .Name("arb_requests_total")
                     .Help("Requests.")
                     .Register(*reg)
                     .Add({{"operation", "reserve"}, {"outcome", "ok"}})) {
    requests.Increment(5);
  }

  std::unique_ptr<scrape_endpoint> start(scrape_options opts = {}) {
    opts.port = 0;
    auto e = scrape_endpoint::start({reg}, opts);
    EXPECT_TRUE(e) << (e ? "" : to_string(e.err()));
    return e ? std::move(*e) : nullptr;
  }

  std::shared_ptr<prometheus::Registry> reg;
  prometheus::Counter& requests;
};

const std::string get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

TEST_F(ScrapeEndpoint, GetMetricsRendersTheRegistryAfresh) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto r = exchange(e->port(), get);
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("\r\nContent-Type: text/plain"), std::string::npos) << r;
  const auto body = body_of(r);
  EXPECT_NE(r.find("\r\nContent-Length: " + std::to_string(body.size()) + "\r\n"),
            std::string::npos);
  EXPECT_NE(body.find("\narb_requests_total{operation=\"reserve\",outcome=\"ok\"} 5\n"),
            std::string::npos)
      << body;

  requests.Increment();
  const auto again = exchange(e->port(), "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
  EXPECT_NE(body_of(again).find("outcome=\"ok\"} 6\n"), std::string::npos) << again;
}

TEST_F(ScrapeEndpoint, OtherPathsAreNotFoundAndItKeepsServing) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto p = e->port();
  EXPECT_EQ(status_line(exchange(p, "GET / HTTP/1.1\r\n\r\n")), "HTTP/1.1 404 Not Found");
  EXPECT_EQ(status_line(exchange(p, "GET /other HTTP/1.1\r\n\r\n")), "HTTP/1.1 404 Not Found");
  EXPECT_NE(status_line(exchange(p, "garbage\r\n\r\n")).find(" 400 "), std::string::npos);
  const std::string huge =
      "GET /metrics HTTP/1.1\r\nX-Filler: " + std::string(100'000, 'a') + "\r\n\r\n";
  EXPECT_NE(status_line(exchange(p, huge)), "HTTP/1.1 200 OK");
  EXPECT_EQ(status_line(exchange(p, get)), "HTTP/1.1 200 OK");
}

TEST_F(ScrapeEndpoint, SilentClientsAreCutAtTheTimeoutAndDoNotBlockAScrape) {
  scrape_options opts;
  opts.threads = 4;
  opts.client_timeout = std::chrono::milliseconds(300);
  auto e = start(opts);
  ASSERT_TRUE(e);
  client silent(e->port());
  client half(e->port());
  ASSERT_TRUE(silent.connected() && half.connected());
  half.send("GET /metr");  // and never more
  EXPECT_EQ(status_line(exchange(e->port(), get)), "HTTP/1.1 200 OK");
  // The server closes both, well before the client's own 10 s receive timeout.
  silent.read_all();
  EXPECT_FALSE(silent.timed_out());
  half.read_all();
  EXPECT_FALSE(half.timed_out());
}

TEST_F(ScrapeEndpoint, ConcurrentScrapersAllGetTheFullText) {
  auto e = start();
  ASSERT_TRUE(e);
  constexpr int scrapers = 8, rounds = 25;
  std::vector<std::thread> pool;
  std::atomic<int> good = 0;
  for (int i = 0; i < scrapers; ++i)
    pool.emplace_back([&] {
      for (int k = 0; k < rounds; ++k) {
        const auto body = body_of(exchange(e->port(), get));
        if (body.find("outcome=\"ok\"} 5\n") != std::string::npos) ++good;
      }
    });
  for (auto& t : pool)
    t.join();
  EXPECT_EQ(good.load(), scrapers * rounds);
}

TEST_F(ScrapeEndpoint, DestructionClosesTheListener) {
  auto e = start();
  ASSERT_TRUE(e);
  const auto port = e->port();
  e.reset();
  client late(port);
  EXPECT_FALSE(late.connected());
}

TEST_F(ScrapeEndpoint, ItKeepsItsCollectablesAlive) {
  auto e = start();
  ASSERT_TRUE(e);
  std::weak_ptr<prometheus::Registry> watch = reg;
  reg.reset();  // ours is gone; the endpoint's share is not
  const auto r = exchange(e->port(), get);
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_NE(body_of(r).find("outcome=\"ok\"} 5\n"), std::string::npos) << r;
  EXPECT_FALSE(watch.expired());
  e.reset();
  EXPECT_TRUE(watch.expired());
}

TEST_F(ScrapeEndpoint, BadConfigurationIsAClearError) {
  scrape_options opts;
  opts.address = "not-an-address";
  auto bad = scrape_endpoint::start({reg}, opts);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_parameter);
  EXPECT_NE(bad.err().message.find("not-an-address"), std::string::npos);

  auto first = start();
  ASSERT_TRUE(first);
  scrape_options same;
  same.port = first->port();
  auto taken = scrape_endpoint::start({reg}, same);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.err().code, errc::busy);
  EXPECT_NE(taken.err().message.find(std::to_string(first->port())), std::string::npos);
}

}  // namespace
}  // namespace arbroker::metrics
