#pragma once

#include <optional>
#include <string_view>

#include "arbroker/core/time.hpp"

namespace arbroker {

/// Properties a probe computes for a time slot (paper 000, Sec. 3.2.3). Only those the
/// request asked for are set.
struct slot_properties {
  std::optional<double> cost;  ///< eq. 6, in the provider's currency units
  std::optional<double> esr;   ///< estimated success rate in [0, 1]

  friend bool operator==(const slot_properties&, const slot_properties&) = default;
};

/// A reservation candidate `<site, start, end, np, ps>`: np CPUs of one site held over
/// the half-open interval [start, end). The site's name is not owned: it points into a name
/// that outlives the candidate (a broker ranks thousands of candidates per second, and a
/// copy of the name in each cost a tenth of its time).
struct candidate {
  std::string_view site;
  timestamp start = 0;
  timestamp end = 0;
  int np = 0;
  slot_properties props;

  duration length() const noexcept { return end - start; }

  friend bool operator==(const candidate&, const candidate&) = default;
};

}  // namespace arbroker
