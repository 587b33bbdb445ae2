#pragma once

// The agent protocol: the cluster services' typed interface (cluster_service_actor) carried
// between a broker node and an agent (remote/README.md). A connection is TLS with mutual
// certificates; then frames (api/codec.hpp: 4-byte length, msgpack payload):
//
//   broker -> agent   agent_hello                      once, first
//   agent  -> broker  agent_welcome                    once; an error in it ends the link
//   broker -> agent   agent_call  (id, op, cluster, body = the interface's inputs)
//   agent  -> broker  agent_answer (id, cluster, code, body = the outputs, or message)
//   either way        agent_call with op == ping_op    heartbeat, answered by the agent
//
// `op` is the position of the message in cluster_service_actor's signature list, so both
// sides must have been built from the same list: the hello carries the protocol version and a
// fingerprint of every input and output type's shape, and a peer whose either differs is
// refused with both named (CAF would silently mis-decode such a peer's messages).

#include <cstdint>
#include <string>
#include <vector>

#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::remote {

/// Bumped whenever the framing, the envelopes below or what a call means at the other end
/// change (2: the agent scopes users, job cancels and grid-job names per broker; 3: the
/// grid-job manager's job calls are tagged).
inline constexpr std::uint32_t agent_protocol_version = 3;
inline constexpr std::string_view agent_magic = "arbroker-agent";
/// The op of a heartbeat.
inline constexpr std::uint32_t ping_op = 0xFFFFFFFFu;

/// A digest of the shapes of every message the interface carries (the msgpack form of a
/// default value of each input and output type, in signature order), so that two builds
/// whose field lists differ never talk.
std::uint64_t interface_fingerprint();

struct agent_hello {
  std::string magic;
  std::uint32_t version = 0;
  std::uint64_t fingerprint = 0;
  std::string broker;  ///< the broker node's name (its certificate's common name with TLS)
};
ARB_FIELDS(agent_hello, x.magic, x.version, x.fingerprint, x.broker)

struct agent_welcome {
  std::uint32_t version = 0;
  std::uint64_t fingerprint = 0;
  std::string agent;                        ///< the agent's name
  std::vector<msg::cluster_info> clusters;  ///< the clusters it serves this broker
  msg::wire_error error;                    ///< set: refused (then the agent closes)
};
ARB_FIELDS(agent_welcome, x.version, x.fingerprint, x.agent, x.clusters, x.error)

struct agent_call {
  std::uint64_t id = 0;
  std::uint32_t op = 0;
  std::string cluster;
  std::string body;  ///< msgpack array of the message's inputs
};
ARB_FIELDS(agent_call, x.id, x.op, x.cluster, x.body)

struct agent_answer {
  std::uint64_t id = 0;
  std::string cluster;
  std::uint8_t code = 0;  ///< errc: the call failed as a whole (unknown cluster, bad body)
  std::string body;       ///< code 0: msgpack array of the outputs; else the error's message
};
ARB_FIELDS(agent_answer, x.id, x.cluster, x.code, x.body)

}  // namespace arbroker::remote
