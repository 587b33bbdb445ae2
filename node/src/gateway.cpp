#include "gateway.hpp"

#include "arbroker/actors/engine.hpp"

namespace arbroker {

caf::behavior gateway_actor(caf::event_based_actor* self) {
  ignore_stray_messages(self);
  return {
      [self](gateway_task& t) {
        // A task must not kill the gateway: every other caller depends on it.
        try {
          t.run(self);
        } catch (...) {
        }
      },
  };
}

}  // namespace arbroker
