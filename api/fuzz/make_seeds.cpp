// Writes the fuzzer's seed corpus: one file per interesting stream (a hello, each request
// type in msgpack and in JSON, a response, a pipelined pair). Regenerate with
//   cmake --build build --target arb_api_fuzz_seeds && build/api/arb_api_fuzz_seeds api/fuzz/seeds

#include <fstream>
#include <string>

#include "../tests/sample_requests.hpp"
#include "arbroker/api/codec.hpp"
#include "arbroker/api/json_codec.hpp"

int main(int argc, char** argv) {
  using namespace arbroker::api;
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  };
  write("hello", make_frame(encode_hello(hello{protocol_magic, protocol_version, "alice", "t"})));
  std::uint64_t id = 1;
  std::string pipelined;
  for (auto& body : testing::valid_bodies()) {
    request r{id++, body};
    std::string frame = make_frame(encode_request(r));
    write("request_" + std::string(to_string(r.op())), frame);
    pipelined += frame;
    // The same body as JSON behind the byte that names its operation (fuzz_frames.cpp).
    const char op_byte = static_cast<char>(static_cast<std::uint8_t>(r.op()) - 1);
    write("json_" + std::string(to_string(r.op())), make_frame(op_byte + to_json(body)));
  }
  write("pipelined", pipelined);
  write("response_list", make_frame(encode_response(response{
                             3, operation::list, 0, "", empty_response_body(operation::list)})));
  return 0;
}
