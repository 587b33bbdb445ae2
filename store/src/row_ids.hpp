#pragma once

// What both stores derive from a row the same way (private to store/).

#include <chrono>
#include <cstdint>
#include <string>

#include "arbroker/core/time.hpp"

namespace arbroker::store_detail {

// The number after the last '/' of an id, for ordering ("berlin/10" after "berlin/9").
inline std::int64_t seq_of(const std::string& id) {
  const auto slash = id.rfind('/');
  std::int64_t n = 0;
  for (std::size_t i = slash == std::string::npos ? 0 : slash + 1; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9') return 0;
    n = n * 10 + (id[i] - '0');
  }
  return n;
}

// A grid job's id number: "<node>/g<n>".
inline std::int64_t grid_job_seq_of(const std::string& id) {
  return seq_of(id.substr(id.rfind('/') + 2));
}

// When an event happened: the wall clock (the stores write events as changes are durable).
inline timestamp wall_clock_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace arbroker::store_detail
