// Prints the generated references of the protocol:
//   build/apps/arb-protocol-reference > docs/protocol-reference.md    (msgpack, Markdown)
//   build/apps/arb-protocol-reference --openapi > docs/openapi.json   (HTTP/JSON, OpenAPI 3)
// and writes anew the generated tables of hand-written pages, in place:
//   build/apps/arb-protocol-reference --fill docs/protocol.md docs/http-api.md

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>

#include "arbroker/api/openapi.hpp"
#include "arbroker/api/protocol_reference.hpp"

namespace {

int fill(int count, char** files) {
  for (int i = 0; i < count; ++i) {
    std::ifstream in(files[i]);
    if (!in) {
      std::fprintf(stderr, "arb-protocol-reference: cannot read %s\n", files[i]);
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::string filled;
    try {
      filled = arbroker::api::fill_generated_blocks(text.str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "arb-protocol-reference: %s: %s\n", files[i], e.what());
      return 1;
    }
    if (filled == text.str()) continue;
    std::ofstream out(files[i], std::ios::trunc);
    out << filled;
    if (!out) {
      std::fprintf(stderr, "arb-protocol-reference: cannot write %s\n", files[i]);
      return 1;
    }
    std::printf("%s: tables written anew\n", files[i]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--fill") == 0) return fill(argc - 2, argv + 2);
  const bool openapi = argc == 2 && std::strcmp(argv[1], "--openapi") == 0;
  if (argc > 1 && !openapi) {
    std::fprintf(stderr, "usage: arb-protocol-reference [--openapi | --fill FILE...]\n");
    return 2;
  }
  const auto text =
      openapi ? arbroker::api::openapi_document() : arbroker::api::protocol_reference();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
