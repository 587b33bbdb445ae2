#include "arbroker/core/local_jobs_preferred.hpp"

namespace arbroker {

std::string_view to_string(ljp_policy p) noexcept {
  switch (p) {
    case ljp_policy::enforce:
      return "enforce";
    case ljp_policy::by_default:
      return "default";
    case ljp_policy::off:
      return "off";
  }
  return "?";
}

std::string_view to_string(ljp_method m) noexcept {
  return m == ljp_method::ese ? "ese" : "twkl";
}

std::optional<ljp_policy> ljp_policy_from(std::string_view s) noexcept {
  for (auto p : {ljp_policy::enforce, ljp_policy::by_default, ljp_policy::off})
    if (s == to_string(p)) return p;
  return std::nullopt;
}

std::optional<ljp_method> ljp_method_from(std::string_view s) noexcept {
  for (auto m : {ljp_method::ese, ljp_method::twkl})
    if (s == to_string(m)) return m;
  return std::nullopt;
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
