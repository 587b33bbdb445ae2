#include "audit.hpp"

#include <algorithm>

#include "arbroker/core/reservation_state.hpp"

namespace arbroker::stress {

std::vector<std::string> capacity_violations(const msg::cluster_status& s) {
  std::map<timestamp, long long> delta;
  auto add = [&](const msg::reservation_info& r) {
    const timestamp from = std::max<timestamp>(r.start, s.now);
    if (from >= r.end) return;
    delta[from] += r.np;
    delta[r.end] -= r.np;
  };
  for (const auto& r : s.lrms_reservations)
    add(r);
  for (const auto& r : s.lrms_running)
    add(r);
  std::vector<std::string> out;
  long long used = 0;
  for (const auto& [t, d] : delta) {
    used += d;
    if (used > s.cpus)
      out.push_back(s.cluster + ": " + std::to_string(used) + " of " + std::to_string(s.cpus) +
                    " CPUs in use at t=" + std::to_string(t));
  }
  return out;
}

std::vector<std::string> hold_violations(const msg::cluster_status& s, duration tick,
                                         const std::string& prefix) {
  std::vector<std::string> out;
  std::set<std::string> live_names;
  for (const auto& r : s.reservations) {
    const auto st = r.state;
    if (st == reservation_state::accepted && r.expiry + tick < s.now)
      out.push_back(r.id + " still held " + std::to_string(s.now - r.expiry) +
                    " s after its expiry");
    if (holds_capacity(st)) live_names.insert(prefix + r.id.substr(r.id.rfind('/') + 1));
  }
  std::set<std::string> lrms_names;
  for (const auto& r : s.lrms_reservations) {
    if (r.end <= s.now) continue;  // ended: the LRMS may still list it
    lrms_names.insert(r.id);
    if (!live_names.count(r.id))
      out.push_back(s.cluster + ": the LRMS holds " + r.id +
                    " but the service has no live reservation for it");
  }
  for (const auto& r : s.reservations) {
    const auto st = r.state;
    if (!holds_capacity(st) || r.end <= s.now) continue;
    const std::string name = prefix + r.id.substr(r.id.rfind('/') + 1);
    if (!lrms_names.count(name))
      out.push_back(r.id + " is live at the service but missing in the LRMS");
  }
  return out;
}

std::vector<std::string> ljp_violations(const msg::cluster_status& s) {
  std::vector<std::string> out;
  for (const auto& r : s.reservations)
    if (r.admitted_after > 0 && r.start < r.admitted_after)
      out.push_back(r.id + " starts at " + std::to_string(r.start) + ", before T_wkl " +
                    std::to_string(r.admitted_after) + ": it bypasses waiting local jobs");
  return out;
}

std::vector<std::string> accounting_violations(const std::vector<msg::cluster_status>& all,
                                               const std::set<std::string>& expected) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (const auto& s : all) {
    for (const auto& r : s.reservations) {
      const auto st = r.state;
      if (st != reservation_state::committed && st != reservation_state::active &&
          st != reservation_state::accepted)
        continue;
      if (++seen[r.id] > 1) out.push_back(r.id + " is reported twice");
      if (st == reservation_state::accepted)
        out.push_back(r.id + " is still only held after everything settled");
      else if (!expected.count(r.id))
        out.push_back(r.id + " is committed but no client was told it succeeded");
    }
  }
  for (const auto& id : expected)
    if (!seen.count(id)) out.push_back(id + " was reported a success but is not committed");
  return out;
}

}  // namespace arbroker::stress
