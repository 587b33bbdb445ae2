// libFuzzer target: bytes as they would arrive on a connection. They go through the frame
// decoder (small frame limit), and each frame through the hello, request and response
// decoders, and as a JSON body of the operation its first byte names; a decoded request
// through validation and apply_caller. Properties beyond "no crash, no leak, no UB": a request
// that decodes and validates re-encodes to the same value, in msgpack and in JSON.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "arbroker/api/codec.hpp"
#include "arbroker/api/json_codec.hpp"
#include "arbroker/api/validate.hpp"

using namespace arbroker;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  api::frame_decoder decoder(64 * 1024);
  // Feed in two pieces to exercise partial frames.
  decoder.feed(bytes.substr(0, size / 2));
  for (int pass = 0; pass < 2; ++pass) {
    for (;;) {
      auto frame = decoder.next();
      if (!frame || !*frame) break;
      const std::string& payload = **frame;
      if (!payload.empty()) {
        const auto op = api::to_operation(static_cast<std::uint8_t>(payload[0] % 16 + 1));
        if (auto body = api::request_body_from_json(*op, payload.substr(1))) {
          auto back = api::request_body_from_json(*op, api::to_json(*body));
          if (api::validate(*body) && (!back || !(*back == *body))) std::abort();
        }
      }
      (void)api::decode_hello(payload);
      (void)api::decode_response(payload);
      auto decoded = api::decode_request(payload);
      if (!decoded.value) continue;
      api::request req = std::move(*decoded.value);
      if (!api::validate(req.body)) continue;
      auto again = api::decode_request(api::encode_request(req));
      if (!again.value || !(*again.value == req)) std::abort();
      api::caller who{"fuzz", (req.id & 1) != 0};
      (void)api::apply_caller(who, req.body);
    }
    if (pass == 0) decoder.feed(bytes.substr(size / 2));
  }
  return 0;
}
