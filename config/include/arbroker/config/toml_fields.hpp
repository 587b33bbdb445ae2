#pragma once

// Typed access to TOML keys for arbroker's configuration files. Every error names the
// offending key by its full path ("cluster[2].cpus: expected an integer"), so that an
// operator can find it at once.

#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/cost.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker::config {

/// A key of a TOML table, with the path used in error messages.
struct field {
  toml::node_view<const toml::node> node;
  std::string path;

  bool present() const noexcept { return static_cast<bool>(node); }
};

field at(const toml::table& t, const std::string& parent, const char* key);

/// invalid_parameter naming the key.
error bad(const std::string& path, const std::string& why);

/// invalid_parameter naming the first key of table `t` (at `path`) that is not in `known`,
/// with the keys it knows: a typo is never silently ignored.
status only_known_keys(const toml::table& t, const std::string& path,
                       const std::vector<std::string_view>& known);

result<std::string> text(const field& f);
result<double> number(const field& f);
result<int> integer(const field& f);
result<bool> boolean(const field& f);

/// "2h", "90s", "15m", a bare integer of seconds; with allow_negative also "-5h" (offsets
/// west of UTC).
result<duration> span_of(const field& f, bool allow_negative = false);

/// ISO 8601 or "now+2h" relative to `now`.
result<timestamp> time_of(const field& f, timestamp now);

/// A cost model from a cluster table: base_unit_cost, base_unit, tz_offset, day_rates
/// [{from, to, factor}], agreements {user = factor}; all optional (defaults 1.0 per CPU-hour).
result<cost_model> cost_of(const toml::table& t, const std::string& path);

/// Parses a whole file; errors carry "file:line: what".
result<toml::table> parse_file(const std::string& path);

}  // namespace arbroker::config
