// Cost of the network API: encoding and decoding a request, and request round trips over
// loopback through the server and the blocking client with a handler that answers at once
// (what the protocol adds to every operation, before the engine does any work).
//   build/bench/arb_bench_api

#include <benchmark/benchmark.h>

#include <memory>

#include "arbroker/api/client.hpp"
#include "arbroker/api/server.hpp"
#include "sample_requests.hpp"

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

struct loopback {
  instant_handler handler;
  std::unique_ptr<threaded_server> srv;
  loopback() {
    server_config c;
    c.tokens = {{"alice", {"t", false}}};
    srv = std::make_unique<threaded_server>(c, handler, 2);
  }
};

loopback& shared_server() {
  static loopback l;
  return l;
}

void BM_loopback_round_trip(benchmark::State& state) {
  auto& l = shared_server();
  client c;
  if (!c.connect("127.0.0.1", l.srv->local_endpoint().port(), "alice", "t")) {
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
}
BENCHMARK(BM_loopback_round_trip)->UseRealTime()->Threads(1)->Threads(4)->Threads(16);

}  // namespace
}  // namespace arbroker::api

BENCHMARK_MAIN();
