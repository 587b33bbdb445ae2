#include "arbroker/core/job_end_policy.hpp"

#include <array>

#include "arbroker/core/enum_names.hpp"

namespace arbroker {
namespace {

constexpr std::array<std::string_view, 2> names = {"keep", "release"};  // in the enum's order

}  // namespace

std::string_view to_string(job_end_policy p) noexcept {
  return name_in(names, p);
}

std::optional<job_end_policy> job_end_policy_from(std::string_view s) noexcept {
  return value_in<job_end_policy>(names, s);
}

}  // namespace arbroker
