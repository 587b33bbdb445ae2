#include <gtest/gtest.h>

#include <sstream>

#include "arbroker/remote/agent_protocol.hpp"

namespace arbroker::remote {
namespace {

// Agents and brokers of the two releases before this one must keep working with it
// (docs/compatibility.md; tests/compat/mixed_agents.sh runs them). Both sides refuse a peer
// whose protocol version or interface fingerprint differs, so the interface of version 3 is
// the one 0.19 and 0.20 were released with: a message of the cluster services' interface
// changed, added or moved changes the fingerprint and fails this. Such a change needs a new
// agent protocol version served beside 3, never a silent new shape of 3.
TEST(agent_protocol, TheInterfaceOfVersion3IsTheOneReleased) {
  constexpr std::uint64_t released_in_0_19_and_0_20 = 0x4bb3807c269c5a62;
  std::ostringstream shown;
  shown << "0x" << std::hex << interface_fingerprint();
  EXPECT_EQ(agent_protocol_version, 3u);
  EXPECT_EQ(interface_fingerprint(), released_in_0_19_and_0_20)
      << "the agents' interface is now " << shown.str()
      << ": agents of 0.19 and 0.20 would be refused (docs/compatibility.md, \"Agents\")";
}

}  // namespace
}  // namespace arbroker::remote
