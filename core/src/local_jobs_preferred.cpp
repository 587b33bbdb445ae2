#include "arbroker/core/local_jobs_preferred.hpp"

#include <array>

#include "arbroker/core/enum_names.hpp"

namespace arbroker {
namespace {

// In the enums' order.
constexpr std::array<std::string_view, 3> policy_names = {"enforce", "default", "off"};
constexpr std::array<std::string_view, 2> method_names = {"ese", "twkl"};

}  // namespace

std::string_view to_string(ljp_policy p) noexcept {
  return name_in(policy_names, p);
}

std::string_view to_string(ljp_method m) noexcept {
  return name_in(method_names, m);
}

std::optional<ljp_policy> ljp_policy_from(std::string_view s) noexcept {
  return value_in<ljp_policy>(policy_names, s);
}

std::optional<ljp_method> ljp_method_from(std::string_view s) noexcept {
  return value_in<ljp_method>(method_names, s);
}

result<bool> ljp_applies(ljp_policy policy, bool asked, bool admin) {
  switch (policy) {
    case ljp_policy::off:
      return false;
    case ljp_policy::by_default:
      return asked;
    case ljp_policy::enforce:
      if (!asked && !admin)
        return fail(errc::permission_denied,
                    "this site enforces local-jobs-preferred: only an admin may ask for a "
                    "reservation that can postpone queued local jobs");
      return asked;
  }
  return asked;
}

}  // namespace arbroker
