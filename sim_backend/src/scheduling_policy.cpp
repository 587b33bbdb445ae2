#include "arbroker/sim/scheduling_policy.hpp"

#include <array>

#include "arbroker/core/enum_names.hpp"

namespace arbroker {

/// By value.
constexpr std::array<std::string_view, 3> policy_names = {"fcfs", "easy", "conservative"};
static_assert(policy_names.size() == static_cast<std::size_t>(scheduling_policy::conservative) + 1);

std::string_view to_string(scheduling_policy p) noexcept {
  return name_in(policy_names, p);
}

std::optional<scheduling_policy> parse_scheduling_policy(std::string_view text) noexcept {
  return value_in<scheduling_policy>(policy_names, text);
}

}  // namespace arbroker
