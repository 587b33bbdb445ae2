#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "arbroker/core/candidate.hpp"
#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/esr_history.hpp"  // IWYU pragma: export
#include "arbroker/core/esr_load.hpp"     // IWYU pragma: export
#include "arbroker/core/esr_static.hpp"   // IWYU pragma: export

namespace arbroker {

/// Which of the paper's three estimators a site uses for the esr property (Sec. 3.2.3).
/// The functions themselves are esr_static(), history::esr() and esr_load().
enum class esr_method : std::uint8_t { static_, history, load };
template <>
struct enum_bounds<esr_method> {
  static constexpr auto last = esr_method::load;
  static constexpr const char* name = "esr_method";
};

/// "static", "history" or "load".
std::string_view to_string(esr_method method) noexcept;

/// Inverse of to_string, for configuration files; fails with invalid_parameter otherwise.
result<esr_method> parse_esr_method(std::string_view name);

/// The threshold filter of the reserve phase (paper 000, Sec. 3.3.1): keeps, in their
/// order, the candidates with props.esr >= th. th must lie within [0, 1].
///
/// A candidate without esr counts as esr 0 (nothing speaks for it), so it survives only
/// th == 0, i.e. when filtering is switched off. A candidate whose esr is NaN or outside
/// [0, 1] is an error (invalid_parameter naming it), not silently dropped.
result<std::vector<candidate>> filter_by_esr(std::vector<candidate> candidates, double th);

}  // namespace arbroker
