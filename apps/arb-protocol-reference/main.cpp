// Prints the wire reference of the protocol (api/protocol_reference.hpp) in Markdown:
//   build/apps/arb-protocol-reference > docs/protocol-reference.md

#include <cstdio>

#include "arbroker/api/protocol_reference.hpp"

int main() {
  const auto text = arbroker::api::protocol_reference();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
