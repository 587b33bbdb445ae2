#pragma once

// The real traces of traces/ (in the repository), read once per test program. A trace that is
// missing or cannot be read fails the calling test: they are part of every clone. The
// environment variable ARB_TRACES_DIR, when set, names another folder.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "arbroker/sim/swf.hpp"

namespace arbroker::sim::testing {

inline std::filesystem::path trace_path(const std::string& file) {
  const char* dir = std::getenv("ARB_TRACES_DIR");
  return std::filesystem::path(dir != nullptr && *dir != 0 ? dir : ARB_TRACES_DIR) / file;
}

/// The trace, or nullptr (with the calling test failed) when it is missing or unreadable.
inline const swf_trace* cached_trace(const std::string& file) {
  struct entry {
    bool loaded = false;
    result<swf_trace> trace = fail(errc::not_found, "not read");
  };
  static std::map<std::string, entry> cache;
  entry& e = cache[file];
  if (!e.loaded) {
    e.loaded = true;
    e.trace = read_swf(trace_path(file));
  }
  if (!e.trace) {
    ADD_FAILURE() << "trace " << trace_path(file) << ": " << to_string(e.trace.err());
    return nullptr;
  }
  return &*e.trace;
}

inline const char* const kth_file = "KTH-SP2-1996-2.1-cln.swf";
inline const char* const blue_file = "SDSC-BLUE-2000-4.2-cln.swf.gz";

}  // namespace arbroker::sim::testing
