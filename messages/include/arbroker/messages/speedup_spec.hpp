#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::msg {

/// Which speedup model a speedup_spec describes.
enum class speedup_kind : std::uint8_t { amdahl, downey, table };

/// "amdahl", "downey", "table".
std::string_view to_string(speedup_kind k) noexcept;

/// A speedup model on the client wire, structured so that receivers need not parse text.
/// The engine turns it into a speedup_model once, when it checks a request.
struct speedup_spec {
  speedup_kind kind = speedup_kind::amdahl;
  double p1 = 0;  ///< amdahl: seq; downey: A
  double p2 = 0;  ///< downey: sigma
  std::vector<std::int32_t> table_n;
  std::vector<double> table_speedup;

  friend bool operator==(const speedup_spec&, const speedup_spec&) = default;
};

ARB_FIELDS(speedup_spec, x.kind, x.p1, x.p2, x.table_n, x.table_speedup)

speedup_spec to_spec(const speedup_model& m);

/// Validates as the model's constructors do; a bad spec is invalid_speedup_model.
result<speedup_model> to_model(const speedup_spec& s);

}  // namespace arbroker::msg

template <>
struct arbroker::enum_bounds<arbroker::msg::speedup_kind> {
  static constexpr auto last = arbroker::msg::speedup_kind::table;
  static constexpr const char* name = "speedup_kind";
};
