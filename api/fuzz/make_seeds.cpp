// Writes the fuzzer's seed corpus: one file per interesting stream (a hello, each request
// type, a response, a pipelined pair). Regenerate with
//   cmake --build build --target arb_api_fuzz_seeds && build/api/arb_api_fuzz_seeds api/fuzz/seeds

#include <fstream>
#include <string>

#include "../tests/sample_requests.hpp"
#include "arbroker/api/codec.hpp"

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
  }
  write("pipelined", pipelined);
  write("response_list", make_frame(encode_response(response{
                             3, operation::list, 0, "", empty_response_body(operation::list)})));
  return 0;
}
