#include "arbroker/core/error.hpp"

#include <array>

#include "arbroker/core/enum_names.hpp"

namespace arbroker {

/// By value, 0 being no code.
constexpr std::array<std::string_view, 22> errc_names = {"unknown",
                                                         "invalid_window",
                                                         "invalid_processor_range",
                                                         "invalid_duration",
                                                         "invalid_speedup_model",
                                                         "invalid_parameter",
                                                         "capacity_exceeded",
                                                         "not_allocated",
                                                         "infeasible",
                                                         "illegal_transition",
                                                         "not_found",
                                                         "busy",
                                                         "permission_denied",
                                                         "unreachable",
                                                         "timeout",
                                                         "in_use",
                                                         "lrms_failure",
                                                         "storage_failure",
                                                         "internal",
                                                         "slow_consumer",
                                                         "gone",
                                                         "not_leader"};
static_assert(errc_names.size() == static_cast<std::size_t>(last_errc) + 1);

std::string_view to_string(errc code) noexcept {
  return name_in(errc_names, code);
}

std::string to_string(const error& e) {
  std::string out{to_string(e.code)};
  out += ": ";
  out += e.message;
  return out;
}

}  // namespace arbroker
