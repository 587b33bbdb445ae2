#pragma once

// Common declarations of the actor engine: atoms, the clock, CAF configuration.

#include <caf/all.hpp>

#include <functional>

#include "arbroker/core/time.hpp"

namespace arbroker {

using expire_atom = caf::atom_constant<caf::atom("expire")>;
using register_atom = caf::atom_constant<caf::atom("register")>;
using timeout_atom = caf::atom_constant<caf::atom("timeout")>;

/// Where an actor reads the current time: the wall clock in a live engine, a virtual or
/// hand-moved clock in the simulator and in tests. Local to the actor that holds it.
using clock_fn = std::function<timestamp()>;

/// Seconds since the epoch from the system clock.
clock_fn wall_clock();

/// Registers every message type and sets the scheduler so that an idle engine does not
/// spin: at most `threads` workers and no busy polling between jobs.
void configure_engine(caf::actor_system_config& cfg, std::size_t threads = 2);

/// Makes a long-lived actor robust against stray messages: CAF 0.17 terminates an actor that
/// receives an error outside a request (e.g. an "unexpected message" bounced back by a peer)
/// and prints every unexpected message; a service must do neither.
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
