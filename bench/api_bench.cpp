// Cost of the network API: encoding and decoding a request, and request round trips over
// loopback through the server and the blocking client with a handler that answers at once
// (what the protocol adds to every operation, before the engine does any work), in plain text
// and over TLS, at 1 and 32 requests in flight (one blocking client per thread); and the cost
// of a login: plain, TLS, a hashed token (argon2id) checked afresh or recognised again.
//   build/bench/arb_bench_api --benchmark_repetitions=5 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>

#include <memory>

#include "arbroker/api/client.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/tls.hpp"
#include "arbroker/api/token_hash.hpp"
#include "sample_requests.hpp"
#include "test_certificates.hpp"

namespace arbroker::api {
namespace {

// The API tests' valid elastic request (the same body the codec tests round-trip).
msg::elastic_request sample() {
  return testing::valid_elastic();
}

void BM_request_codec(benchmark::State& state) {
  request req{1, sample()};
  for (auto _ : state) {
    auto d = decode_request(encode_request(req));
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_request_codec);

class instant_handler : public request_handler {
 public:
  void handle(const caller&, request req, std::function<void(response)> done) override {
    response r;
    r.body = empty_response_body(req.op());
    done(std::move(r));
  }
};

std::string certs_file(const std::string& name) {
  return testing::certificate_file(name);
}

// A server with one I/O thread (as arbd runs it), plain or TLS; "alice" has a
// clear token, "carol" an argon2id hash.
struct loopback {
  instant_handler handler;
  std::unique_ptr<threaded_server> srv;
  std::uint16_t port = 0;
  /// The users, with a fresh hash for carol (so that the server knows no checked token).
  static token_table users() {
    return {{"alice", {"alice-token", false}},
            {"carol", {"", false, hash_token("carol-token").value()}}};
  }
  explicit loopback(bool tls) {
    server_config c;
    c.tokens = users();
    if (tls) c.tls = make_server_tls({certs_file("server.pem"), certs_file("server.key")}).value();
    srv = std::make_unique<threaded_server>(c, handler, 1);
    port = srv->local_endpoint().port();
  }
};

loopback& shared_server(bool tls) {
  static loopback plain(false), secure(true);
  return tls ? secure : plain;
}

client_options options(bool tls) {
  client_options o;
  if (tls) o.tls = make_client_tls({certs_file("ca.pem")}).value();
  return o;
}

// arg 0: plain text, 1: TLS.
void BM_loopback_round_trip(benchmark::State& state) {
  const bool tls = state.range(0) == 1;
  auto& l = shared_server(tls);
  client c(options(tls));
  if (!c.connect("127.0.0.1", l.port, "alice", "alice-token")) {
    state.SkipWithError("connect failed");
    return;
  }
  for (auto _ : state) {
    auto r = c.call(sample());
    if (!r || !r->ok()) {
      state.SkipWithError("call failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(tls ? "tls" : "plain");
}
BENCHMARK(BM_loopback_round_trip)->Arg(0)->Arg(1)->UseRealTime()->Threads(1)->Threads(32);

// A new connection and its login per iteration. arg 0: plain, 1: TLS, 2: TLS and a hashed
// token recognised again (keyed digest), 3: plain and a hashed token checked afresh (argon2id:
// the server forgets what it checked before each login).
void BM_login(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const bool tls = mode == 1 || mode == 2;
  auto& l = shared_server(tls);
  const std::string user = mode >= 2 ? "carol" : "alice";
  const auto o = options(tls);
  for (auto _ : state) {
    if (mode == 3) {
      state.PauseTiming();
      l.srv->set_tokens(loopback::users());
      state.ResumeTiming();
    }
    client c(o);
    if (!c.connect("127.0.0.1", l.port, user, user + "-token")) {
      state.SkipWithError("login failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  static const char* labels[] = {"plain", "tls", "tls+hashed token, known",
                                 "hashed token, checked"};
  state.SetLabel(labels[mode]);
}
BENCHMARK(BM_login)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->UseRealTime();

}  // namespace
}  // namespace arbroker::api

BENCHMARK_MAIN();
