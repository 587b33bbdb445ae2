// Prints the generated references of the protocol:
//   build/apps/arb-protocol-reference > docs/protocol-reference.md    (msgpack, Markdown)
//   build/apps/arb-protocol-reference --openapi > docs/openapi.json   (HTTP/JSON, OpenAPI 3)

#include <cstdio>
#include <cstring>

#include "arbroker/api/openapi.hpp"
#include "arbroker/api/protocol_reference.hpp"

int main(int argc, char** argv) {
  const bool openapi = argc == 2 && std::strcmp(argv[1], "--openapi") == 0;
  if (argc > 1 && !openapi) {
    std::fprintf(stderr, "usage: arb-protocol-reference [--openapi]\n");
    return 2;
  }
  const auto text =
      openapi ? arbroker::api::openapi_document() : arbroker::api::protocol_reference();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
