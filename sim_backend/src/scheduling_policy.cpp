#include "arbroker/sim/scheduling_policy.hpp"

namespace arbroker {

std::string_view to_string(scheduling_policy p) noexcept {
  switch (p) {
    case scheduling_policy::fcfs:
      return "fcfs";
    case scheduling_policy::easy:
      return "easy";
    case scheduling_policy::conservative:
      return "conservative";
  }
  return "?";
}

std::optional<scheduling_policy> parse_scheduling_policy(std::string_view text) noexcept {
  for (auto p : {scheduling_policy::fcfs, scheduling_policy::easy, scheduling_policy::conservative})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

}  // namespace arbroker
