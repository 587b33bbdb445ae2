#pragma once

namespace caf {
class actor_system_config;
}

namespace arbroker::msg {

/// Registers every message type of all_types.hpp with CAF under its stable name. Call on
/// every node before the actor system starts; without it CAF serializes these types to
/// nothing, silently.
void register_message_types(caf::actor_system_config& cfg);

}  // namespace arbroker::msg
