#pragma once

#include <cstdint>
#include <vector>

#include "arbroker/core/speedup.hpp"

namespace arbroker::msg {

/// A speedup model on the wire, structured so that receivers need not parse text.
struct speedup_spec {
  static constexpr std::uint8_t amdahl = 0;
  static constexpr std::uint8_t downey = 1;
  static constexpr std::uint8_t table = 2;

  std::uint8_t kind = amdahl;
  double p1 = 0;  ///< amdahl: seq; downey: A
  double p2 = 0;  ///< downey: sigma
  std::vector<std::int32_t> table_n;
  std::vector<double> table_speedup;

  friend bool operator==(const speedup_spec&, const speedup_spec&) = default;
};

template <class Inspector>
auto inspect(Inspector& f, speedup_spec& x) {
  return f(x.kind, x.p1, x.p2, x.table_n, x.table_speedup);
}

speedup_spec to_spec(const speedup_model& m);

/// Validates as the model's constructors do; a bad spec is invalid_speedup_model.
result<speedup_model> to_model(const speedup_spec& s);

}  // namespace arbroker::msg
