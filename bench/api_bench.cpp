// Cost of the network API: encoding and decoding a request, and request round trips over
// loopback through the server and the blocking client with a handler that answers at once
// (what the protocol adds to every operation, before the engine does any work), in plain text
// and over TLS, at 1 and 32 requests in flight (one blocking client per thread); and the cost
// of a login: plain, TLS, a hashed token (argon2id) checked afresh or recognised again; and
// the same round trips over the HTTP/JSON API (keep-alive connections, the same request as
// JSON), plain and over TLS.
//   build/bench/arb_bench_api --benchmark_repetitions=5 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <memory>

#include "arbroker/api/client.hpp"
#include "arbroker/api/http_server.hpp"
#include "arbroker/api/json_codec.hpp"
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

// The same request's body to JSON and back (what the HTTP API adds to a round trip).
void BM_request_json_codec(benchmark::State& state) {
  const request_body body = sample();
  for (auto _ : state) {
    auto d = request_body_from_json(operation::elastic, to_json(body));
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_request_json_codec);

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
BENCHMARK(BM_loopback_round_trip)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Threads(1)
    ->Threads(16)
    ->Threads(32);

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

// The HTTP/JSON front end with one I/O thread, plain or TLS, the same users.
struct http_loopback {
  instant_handler handler;
  std::unique_ptr<threaded_http_server> srv;
  std::uint16_t port = 0;
  explicit http_loopback(bool tls) {
    http_server_config c;
    c.auth = std::make_shared<authenticator>(loopback::users());
    if (tls) c.tls = make_server_tls({certs_file("server.pem"), certs_file("server.key")}).value();
    srv = std::make_unique<threaded_http_server>(c, handler, 1);
    port = srv->local_endpoint().port();
  }
};

http_loopback& shared_http_server(bool tls) {
  static http_loopback plain(false), secure(true);
  return tls ? secure : plain;
}

namespace beast = boost::beast;
namespace http = beast::http;

/// POSTs `body` to /v1/elastic on a kept connection until the state ends.
template <class Stream>
void http_round_trips(benchmark::State& state, Stream& stream) {
  http::request<http::string_body> req{http::verb::post, "/v1/elastic", 11};
  req.set(http::field::host, "127.0.0.1");
  req.set("X-Arb-User", "alice");
  req.set(http::field::authorization, "Bearer alice-token");
  req.set(http::field::content_type, "application/json");
  req.body() = to_json(request_body(sample()));
  req.prepare_payload();
  beast::flat_buffer buffer;
  for (auto _ : state) {
    http::write(stream, req);
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    if (res.result_int() != 200) {
      state.SkipWithError(("HTTP " + std::to_string(res.result_int()) + ": " + res.body()).c_str());
      break;
    }
  }
}

// arg 0: plain HTTP, 1: HTTPS. One keep-alive connection per thread.
void BM_http_round_trip(benchmark::State& state) {
  const bool tls = state.range(0) == 1;
  auto& l = shared_http_server(tls);
  boost::asio::io_context io;
  const boost::asio::ip::tcp::endpoint to(boost::asio::ip::make_address("127.0.0.1"), l.port);
  if (tls) {
    const auto ctx = make_client_tls({certs_file("ca.pem")}).value();
    beast::ssl_stream<beast::tcp_stream> stream(io, *ctx);
    beast::get_lowest_layer(stream).connect(to);
    stream.handshake(boost::asio::ssl::stream_base::client);
    http_round_trips(state, stream);
  } else {
    beast::tcp_stream stream(io);
    stream.connect(to);
    stream.socket().set_option(boost::asio::ip::tcp::no_delay(true));
    http_round_trips(state, stream);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(tls ? "https" : "http");
}
BENCHMARK(BM_http_round_trip)->Arg(0)->Arg(1)->UseRealTime()->Threads(1)->Threads(32);

}  // namespace
}  // namespace arbroker::api

BENCHMARK_MAIN();
