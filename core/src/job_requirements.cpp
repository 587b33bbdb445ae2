#include "arbroker/core/job_requirements.hpp"

#include <algorithm>

namespace arbroker {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool has_all(const std::vector<std::string>& offered, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const std::string& f) { return has(offered, f); });
}

// CPUs of one node of group `g` the job can use (0: none).
std::int64_t usable_on(const node_group& g, const job_requirements& r) {
  if (!has_all(g.features, r.features)) return 0;
  if (g.memory <= 0) return g.cpus;  // memory not known: the LRMS decides
  if (r.mem_per_node > g.memory) return 0;
  if (r.mem_per_cpu > 0) return std::min<std::int64_t>(g.cpus, g.memory / r.mem_per_cpu);
  return g.cpus;
}

std::string list(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v)
    out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

result<std::int64_t> parse_memory_mib(std::string_view text) {
  const std::string whole(text);
  auto refuse = [&] {
    return fail(errc::invalid_parameter,
                "memory '" + whole + "': expected MiB as Slurm writes them (4096, 512M, 16G, 2T)");
  };
  if (text.empty()) return refuse();
  std::int64_t scale = 1;                                   // MiB; 0: KiB, rounded up
  const char unit = static_cast<char>(text.back() | 0x20);  // lower case
  if (unit == 'k' || unit == 'm' || unit == 'g' || unit == 't') {
    scale = unit == 'k' ? 0 : unit == 'm' ? 1 : unit == 'g' ? 1024 : 1024 * 1024;
    text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 12 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return refuse();
  std::int64_t n = 0;
  for (char c : text)
    n = n * 10 + (c - '0');
  const auto mib = scale == 0 ? (n + 1023) / 1024 : n * scale;
  if (mib > max_memory_mib)
    return fail(errc::invalid_parameter,
                "memory '" + whole + "': above " + std::to_string(max_memory_mib) + " MiB");
  return mib;
}

status check(const job_requirements& r) {
  auto memory = [](std::int64_t v, const char* field) -> status {
    if (v < 0 || v > max_memory_mib)
      return fail(errc::invalid_parameter, std::string(field) + ": " + std::to_string(v) +
                                               " MiB is outside 0.." +
                                               std::to_string(max_memory_mib));
    return {};
  };
  if (auto s = memory(r.mem_per_cpu, "mem_per_cpu"); !s) return s;
  if (auto s = memory(r.mem_per_node, "mem_per_node"); !s) return s;
  if (r.mem_per_cpu > 0 && r.mem_per_node > 0)
    return fail(errc::invalid_parameter,
                "mem_per_cpu and mem_per_node: name one of them (as Slurm's --mem-per-cpu and "
                "--mem, which exclude each other)");
  for (std::size_t i = 0; i < r.features.size(); ++i) {
    const auto& f = r.features[i];
    if (f.empty()) return fail(errc::invalid_parameter, "features: an empty name");
    // A batch system's syntax must not leak in: Slurm reads '&', '|', ',' in a constraint,
    // Grid Engine '=' and ',' in a resource request.
    if (!std::all_of(f.begin(), f.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        }))
      return fail(errc::invalid_parameter,
                  "features: '" + f + "' may hold letters, digits, '_', '-' and '.' only");
    if (std::find(r.features.begin(), r.features.begin() + static_cast<std::ptrdiff_t>(i),
                  r.features[i]) != r.features.begin() + static_cast<std::ptrdiff_t>(i))
      return fail(errc::invalid_parameter, "features: " + r.features[i] + " named twice");
  }
  return {};
}

status check(const node_group& g) {
  if (g.count < 1 || g.cpus < 1)
    return fail(errc::invalid_parameter, "count " + std::to_string(g.count) + " and cpus " +
                                             std::to_string(g.cpus) + ": both must be at least 1");
  if (g.memory < 0 || g.memory > max_memory_mib)
    return fail(errc::invalid_parameter, "memory: " + std::to_string(g.memory) +
                                             " MiB is outside 0.." +
                                             std::to_string(max_memory_mib));
  if (std::any_of(g.features.begin(), g.features.end(),
                  [](const std::string& f) { return f.empty(); }))
    return fail(errc::invalid_parameter, "features: an empty name");
  return {};
}

std::int64_t usable_cpus(const std::vector<node_group>& nodes, const job_requirements& r) {
  std::int64_t n = 0;
  for (const auto& g : nodes)
    n += usable_on(g, r) * std::max(g.count, 0);
  return n;
}

std::string unmet(const node_offer& o, const job_requirements& r, std::int32_t np,
                  bool every_node) {
  if (!r.os.empty() && r.os != o.os)
    return "runs " + (o.os.empty() ? std::string("an unnamed OS") : o.os) + ", not " + r.os;
  if (o.nodes.empty()) {
    for (const auto& f : r.features)
      if (!has(o.features, f)) return "offers no feature " + f;
    return "";
  }
  if (every_node) {
    for (const auto& g : o.nodes) {
      if (!has_all(g.features, r.features))
        return "not every node has " + list(r.features) + " (a reservation takes any node)";
      const auto need = std::max(r.mem_per_node, r.mem_per_cpu * g.cpus);
      if (g.memory > 0 && need > g.memory)
        return "nodes of " + std::to_string(g.memory) + " MiB, the job needs " +
               std::to_string(need) + " on each (a reservation takes any node)";
    }
    return "";
  }
  const auto usable = usable_cpus(o.nodes, r);
  if (usable >= np) return "";
  for (const auto& f : r.features)
    if (std::none_of(o.nodes.begin(), o.nodes.end(),
                     [&](const node_group& g) { return has(g.features, f); }))
      return "offers no feature " + f;
  std::string what = std::to_string(usable) + " CPUs";
  if (!r.features.empty()) what += " with " + list(r.features);
  if (r.mem_per_node > 0) what += " on nodes of " + std::to_string(r.mem_per_node) + " MiB";
  if (r.mem_per_cpu > 0) what += " with " + std::to_string(r.mem_per_cpu) + " MiB each";
  return "has " + what + ", the job needs " + std::to_string(np);
}

}  // namespace arbroker
