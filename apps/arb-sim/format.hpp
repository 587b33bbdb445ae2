#pragma once
// Fixed-format numbers for the experiments' CSVs and messages (byte-identical output).

#include <cstdio>
#include <optional>
#include <string>

namespace arbroker::simapp {

inline std::string fmt(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

/// A mean over no sample is absent; the tables print 0.
inline std::string fmt(std::optional<double> v, int decimals) {
  return fmt(v.value_or(0), decimals);
}

}  // namespace arbroker::simapp
