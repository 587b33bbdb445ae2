#include "arbroker/messages/caf_types.hpp"

#include <caf/actor_system_config.hpp>

#include "arbroker/messages/all_types.hpp"

namespace arbroker::msg {

void register_message_types(caf::actor_system_config& cfg) {
  std::apply(
      [&cfg](const auto&... named) {
        (cfg.add_message_type<typename std::decay_t<decltype(named)>::type>(named.name), ...);
      },
      all_types);
}

}  // namespace arbroker::msg
