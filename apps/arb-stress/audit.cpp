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
                                               const std::set<std::string>& expected,
                                               const std::set<std::string>& grid_held) {
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
      else if (!expected.count(r.id) && !grid_held.count(r.id))
        out.push_back(r.id + " is committed but no client was told it succeeded" +
                      (grid_held.empty() ? "" : " and no grid job holds it"));
    }
  }
  for (const auto& id : expected)
    if (!seen.count(id)) out.push_back(id + " was reported a success but is not committed");
  return out;
}

std::map<std::string, std::string> grid_suspects(const std::vector<msg::grid_job_info>& jobs,
                                                 const std::vector<msg::cluster_status>& all,
                                                 const std::set<std::string>& users) {
  std::map<std::string, std::string> out;
  std::set<std::string> ids;
  for (const auto& j : jobs)
    if (!ids.insert(j.id).second) out.emplace("twice " + j.id, "grid job listed twice: " + j.id);
  // Every job of a client in any LRMS, and the running ones: (cluster, id).
  std::set<std::pair<std::string, std::string>> in_lrms, running;
  for (const auto& s : all)
    for (const auto* list : {&s.lrms_running, &s.lrms_queued, &s.lrms_running_bound})
      for (const auto& j : *list)
        if (users.count(j.owner)) {
          in_lrms.emplace(s.cluster, j.id);
          if (list != &s.lrms_queued) running.emplace(s.cluster, j.id);
        }
  std::set<std::pair<std::string, std::string>> copies;  // of any state
  for (const auto& j : jobs) {
    std::string runs_on;  // a flood's copies may wait in several queues, but run once
    int runs = 0;
    for (const auto& c : j.copies) {
      if (c.lrms_id.empty()) continue;
      const std::pair<std::string, std::string> key{c.cluster, c.lrms_id};
      if (running.count(key)) {
        ++runs;
        runs_on += " " + c.cluster + ":" + c.lrms_id;
      }
      const bool live = c.state == copy_state::queued || c.state == copy_state::running ||
                        c.state == copy_state::submitting;
      copies.insert(key);
      if (in_lrms.count(key) && !live)
        out.emplace("dead " + c.cluster + ":" + c.lrms_id,
                    j.id + ": copy " + c.lrms_id + " on " + c.cluster + " is " +
                        std::string(to_string(c.state)) +
                        (c.reason.empty() ? "" : " (" + c.reason + ")") + " but still in the LRMS");
    }
    if (runs > 1)
      out.emplace("runs " + j.id + runs_on,
                  j.id + ": runs " + std::to_string(runs) + " times (" + runs_on.substr(1) + ")");
  }
  for (const auto& [cluster, id] : in_lrms)
    if (!copies.count({cluster, id}))  // a dead copy still there is reported as such above
      out.emplace("orphan " + cluster + ":" + id,
                  cluster + ": job " + id + " of a client is no copy of any grid job");
  return out;
}

std::vector<std::string> grid_watch::look(const std::map<std::string, std::string>& suspects) {
  std::vector<std::string> out;
  std::map<std::string, int> still;
  for (const auto& [key, what] : suspects) {
    auto it = seen_.find(key);
    const int looks = (it == seen_.end() ? 0 : it->second) + 1;
    still.emplace(key, looks);
    if (looks >= persist_ && reported_.insert(key).second)
      out.push_back(what + " (in " + std::to_string(looks) + " looks, settled rounds between)");
  }
  seen_ = std::move(still);  // a suspect that went away starts afresh if it comes back
  return out;
}

std::vector<std::string> grid_violations(const std::vector<msg::grid_job_info>& jobs,
                                         const std::vector<msg::cluster_status>& all,
                                         const std::set<std::string>& acknowledged,
                                         const std::set<std::string>& users) {
  std::vector<std::string> bad;
  std::set<std::string> ids;
  for (const auto& j : jobs)
    ids.insert(j.id);
  for (const auto& id : acknowledged)
    if (!ids.count(id)) bad.push_back("acknowledged grid job lost: " + id);
  for (auto& [key, what] : grid_suspects(jobs, all, users))
    bad.push_back(std::move(what));
  return bad;
}

}  // namespace arbroker::stress
