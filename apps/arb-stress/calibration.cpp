#include "calibration.hpp"

#include <chrono>
#include <memory>

namespace arbroker::stress {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr int in_flight = 16;

struct ping_state {
  std::uint64_t answered = 0;
  clock_type::time_point end;
  int open = 0;
  caf::response_promise done;
  static inline const char* name = "arb.stress.ping";
};

// Keeps `in_flight` requests to `pong` open until the time is up, then answers `done` with
// the round trips it saw.
void fire(caf::stateful_actor<ping_state>* self, const caf::actor& pong) {
  ++self->state.open;
  self->request(pong, caf::infinite, std::int32_t{1}).then([self, pong](std::int32_t) {
    auto& st = self->state;
    --st.open;
    ++st.answered;
    if (clock_type::now() < st.end) return fire(self, pong);
    if (st.open == 0) {
      st.done.deliver(st.answered);
      self->quit();
    }
  });
}

}  // namespace

calibration measure_round_trips(caf::actor_system& sys, double seconds) {
  auto pong = sys.spawn(
      [](caf::event_based_actor*) -> caf::behavior { return {[](std::int32_t x) { return x; }}; });
  auto ping = sys.spawn([pong, seconds](caf::stateful_actor<ping_state>* self) -> caf::behavior {
    return {[self, pong, seconds](caf::atom_value) {
      auto& st = self->state;
      st.end = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                       std::chrono::duration<double>(seconds));
      st.done = self->make_response_promise();
      for (int i = 0; i < in_flight; ++i)
        fire(self, pong);
      return st.done;
    }};
  });
  caf::scoped_actor self{sys};
  calibration out;
  const auto t0 = clock_type::now();
  self->request(ping, caf::infinite, caf::atom("go"))
      .receive(
          [&](std::uint64_t n) {
            out.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
            out.round_trips_per_second = static_cast<double>(n) / out.seconds;
          },
          [](caf::error&) {});
  self->send_exit(pong, caf::exit_reason::user_shutdown);
  return out;
}

}  // namespace arbroker::stress
