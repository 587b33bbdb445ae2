#include "trace_reader.hpp"

#include <iostream>
#include <mutex>
#include <set>
#include <string>

namespace arbroker::simapp {

result<sim::swf_trace> read_trace(const std::filesystem::path& path, bool strict) {
  auto trace = sim::read_swf(path, {.skip_bad_records = !strict});
  if (!trace || trace->skipped.empty()) return trace;
  static std::mutex mu;
  static std::set<std::string> told;
  std::lock_guard lock{mu};
  if (!told.insert(path.string()).second) return trace;
  std::int64_t total = 0;
  for (const auto& [reason, s] : trace->skipped)
    total += s.count;
  std::cerr << "arb-sim: " << path.string() << ": " << total
            << " bad records skipped (--strict refuses the trace instead):\n";
  for (const auto& [reason, s] : trace->skipped)
    std::cerr << "  " << s.count << " x " << reason << " (first: line " << s.first_line << ")\n";
  return trace;
}

}  // namespace arbroker::simapp
