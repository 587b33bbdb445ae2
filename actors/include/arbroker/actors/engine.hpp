#pragma once

// Common declarations of the actor engine: the clock, CAF configuration, and what every
// actor of the engine does the same way. The atoms and actor interfaces: protocols.hpp.

#include <caf/all.hpp>

#include <functional>

#include "arbroker/actors/protocols.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// Where an actor reads the current time: the wall clock in a live engine, a virtual or
/// hand-moved clock in the simulator and in tests. Local to the actor that holds it.
using clock_fn = std::function<timestamp()>;

/// Seconds since the epoch from the system clock.
clock_fn wall_clock();

/// Registers every message type and sets the scheduler so that an idle engine does not
/// spin: at most `threads` workers and no busy polling between jobs.
void configure_engine(caf::actor_system_config& cfg, std::size_t threads = 2);

/// Makes a long-lived actor robust against stray messages: it neither ends on an error that
/// arrives outside a request nor prints unexpected messages (docs/architecture.md, "CAF 0.17
/// constraints", 5).
template <class Self>
void ignore_stray_messages(Self* self) {
  self->set_error_handler([](caf::error&) {});
  self->set_default_handler(caf::drop);
}

/// CAF delay from now until `t` (never negative).
inline caf::timespan delay_until(timestamp t, timestamp now) {
  return std::chrono::seconds(t > now ? t - now : 0);
}

}  // namespace arbroker
