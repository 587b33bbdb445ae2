// Issue 15's transport decision, measured: what carrying the cluster protocol between
// processes costs over CAF's own network layer (caf_io in plain text, Debian's caf_openssl
// with mutual TLS), beside the other choice, the msgpack protocol over Boost.Asio that the
// API already speaks (bench/api_bench.cpp measures its round trips in the same run of
// bench/cluster_transport.sh). Two actor systems in this process talk over loopback TCP:
//  - BM_caf_round_trip: a prepare and its reply, at 1 and 16 in flight (one blocking client
//    per thread), arg 0: caf_io, 1: caf_openssl;
//  - BM_half_open_handshake_cpu: the CPU the process burns (seconds per second) while one TCP
//    connection to a TLS port sends nothing: arg 0 nobody connected (the idle baseline),
//    1 caf_openssl's port, 2 the Asio TLS server's (api::threaded_server, as arbd runs it).
//   build/bench/arb_bench_cluster_transport --benchmark_repetitions=5

#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "arbroker/actors/engine.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/tls.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "test_certificates.hpp"

namespace arbroker {
namespace {

std::string certs(const std::string& name) {
  return api::testing::certificate_file(name);
}

// One side: the engine's scheduler settings and message types, CAF's middleman, and for TLS
// the openssl manager with this side's certificate (server.pem has serverAuth, alice.pem
// clientAuth: mutual authentication against the test CA).
struct side_config : caf::actor_system_config {
  side_config(bool tls, const std::string& who) {
    configure_engine(*this, 2);
    load<caf::io::middleman>();
    if (tls) {
      load<caf::openssl::manager>();
      openssl_certificate = certs(who + ".pem");
      openssl_key = certs(who + ".key");
      openssl_cafile = certs("ca.pem");
    }
  }
};

msg::prepare_request sample_prepare() {
  msg::prepare_request p;
  p.txn = "w1-42.1";
  p.owner = "alice";
  p.start = 1'800'000'000;
  p.end = p.start + 3600;
  p.np = 16;
  p.expiry = p.start - 600;
  p.window_start = p.start - 3600;
  p.window_end = p.end + 7200;
  return p;
}

// A "cluster service" that grants every prepare at once, published by one system and
// reached from the other as a remote actor.
struct remote_pair {
  side_config server_cfg, client_cfg;
  caf::actor_system server, client;
  caf::actor service, remote;
  std::uint16_t port = 0;

  explicit remote_pair(bool tls)
      : server_cfg(tls, "server"),
        client_cfg(tls, "alice"),
        server(server_cfg),
        client(client_cfg) {
    service = server.spawn([]() -> caf::behavior {
      return {[](const msg::prepare_request& p) {
        msg::prepare_reply r;
        r.reservation_id = "c1/" + p.txn;
        r.cost = 16;
        return r;
      }};
    });
    auto published = tls ? caf::openssl::publish(service, 0, "127.0.0.1", true)
                         : server.middleman().publish(service, 0, "127.0.0.1", true);
    if (!published) throw std::runtime_error("publish: " + server.render(published.error()));
    port = *published;
    auto r = tls ? caf::openssl::remote_actor(client, "127.0.0.1", port)
                 : client.middleman().remote_actor("127.0.0.1", port);
    if (!r) throw std::runtime_error("remote_actor: " + client.render(r.error()));
    remote = *r;
    // The first reply on a fresh TLS connection may be lost (docs/architecture.md): warm up with
    // a deadline until one comes back.
    caf::scoped_actor self{client};
    for (int i = 0; i < 5; ++i) {
      bool ok = false;
      self->request(remote, std::chrono::seconds(2), sample_prepare())
          .receive([&](const msg::prepare_reply&) { ok = true; }, [](const caf::error&) {});
      if (ok) return;
    }
    throw std::runtime_error("no reply from the remote service");
  }
};

// Made on first use, never destroyed: the process ends with _Exit (below).
std::unique_ptr<remote_pair> pairs[2];
remote_pair& shared_pair(bool tls) {
  static std::once_flag made[2];
  std::call_once(made[tls], [tls] { pairs[tls] = std::make_unique<remote_pair>(tls); });
  return *pairs[tls];
}

void BM_caf_round_trip(benchmark::State& state) {
  const bool tls = state.range(0) == 1;
  auto& p = shared_pair(tls);
  caf::scoped_actor self{p.client};
  const auto req = sample_prepare();
  for (auto _ : state) {
    bool ok = false;
    self->request(p.remote, std::chrono::seconds(10), req)
        .receive([&](const msg::prepare_reply&) { ok = true; }, [](const caf::error&) {});
    if (!ok) {
      state.SkipWithError("no reply");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(tls ? "caf_openssl" : "caf_io");
}
BENCHMARK(BM_caf_round_trip)->Arg(0)->Arg(1)->UseRealTime()->Threads(1)->Threads(16);

// The Asio TLS server of the API, as arbd runs it (one I/O thread), answering nothing.
struct asio_tls_server {
  struct no_answer : api::request_handler {
    void handle(const api::caller&, api::request, std::function<void(api::response)>) override {}
  } handler;
  std::unique_ptr<api::threaded_server> srv;
  std::uint16_t port = 0;
  asio_tls_server() {
    api::server_config c;
    c.tokens = {{"alice", {"alice-token", false}}};
    c.tls = api::make_server_tls({certs("server.pem"), certs("server.key")}).value();
    srv = std::make_unique<api::threaded_server>(c, handler, 1);
    port = srv->local_endpoint().port();
  }
};

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// arg 0: nothing connected; 1: a bare TCP connection to caf_openssl's port; 2: to the Asio
// TLS server's. Each iteration holds the connection (or nothing) for one second.
void BM_half_open_handshake_cpu(benchmark::State& state) {
  const int what = static_cast<int>(state.range(0));
  // Both servers exist in every case, so that the idle baseline counts what they cost idle.
  asio_tls_server asio;
  const std::uint16_t port = what == 1 ? shared_pair(true).port : asio.port;
  double cpu = 0, wall = 0;
  for (auto _ : state) {
    int fd = -1;
    if (what != 0) {
      fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(port);
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        state.SkipWithError("connect failed");
        break;
      }
    }
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(1));  // what is measured: idle time
    cpu += cpu_seconds() - c0;
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (fd >= 0) ::close(fd);
  }
  state.counters["cpu_per_s"] = wall > 0 ? cpu / wall : 0;
  state.SetLabel(what == 0 ? "idle" : what == 1 ? "caf_openssl" : "asio_tls");
}
BENCHMARK(BM_half_open_handshake_cpu)->Arg(0)->Arg(1)->Arg(2)->Iterations(2)->UseRealTime();

}  // namespace
}  // namespace arbroker

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // No teardown: destroying an actor system whose caf_openssl connection is open waits for
  // ever here (Debian's 0.17.6), and static destructors with CAF threads running crash.
  std::fflush(stdout);
  std::_Exit(0);
}
