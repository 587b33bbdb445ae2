#include "arbroker/core/error.hpp"

namespace arbroker {

std::string_view to_string(errc code) noexcept {
  switch (code) {
    case errc::invalid_window:
      return "invalid_window";
    case errc::invalid_processor_range:
      return "invalid_processor_range";
    case errc::invalid_duration:
      return "invalid_duration";
    case errc::invalid_speedup_model:
      return "invalid_speedup_model";
    case errc::invalid_parameter:
      return "invalid_parameter";
    case errc::capacity_exceeded:
      return "capacity_exceeded";
    case errc::not_allocated:
      return "not_allocated";
    case errc::infeasible:
      return "infeasible";
    case errc::illegal_transition:
      return "illegal_transition";
    case errc::not_found:
      return "not_found";
    case errc::busy:
      return "busy";
    case errc::permission_denied:
      return "permission_denied";
    case errc::unreachable:
      return "unreachable";
    case errc::timeout:
      return "timeout";
    case errc::in_use:
      return "in_use";
    case errc::lrms_failure:
      return "lrms_failure";
    case errc::storage_failure:
      return "storage_failure";
    case errc::internal:
      return "internal";
  }
  return "unknown";
}

std::string to_string(const error& e) {
  std::string out{to_string(e.code)};
  out += ": ";
  out += e.message;
  return out;
}

}  // namespace arbroker
