#pragma once

// A reservation journal in memory for the cluster service's tests: what the service writes
// and when, and a switch that makes every write fail.

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "arbroker/store/journal.hpp"

namespace arbroker::testing {

struct memory_journal : reservation_journal {
  std::map<std::string, reservation_row> rows;
  std::vector<reservation_state> written;  // every state saved, in order
  bool broken = false;
  status save(const reservation_row& r) override {
    if (broken) return fail(errc::storage_failure, "disk full");
    rows[r.id] = r;
    written.push_back(r.state);
    return {};
  }
  status forget(const std::string& id) override {
    rows.erase(id);
    return {};
  }
  result<std::vector<reservation_row>> rows_of(const std::string&) override {
    std::vector<reservation_row> out;
    for (auto& [id, r] : rows)
      if (r.finished == 0) out.push_back(r);
    return out;
  }
  result<std::uint64_t> last_serial(const std::string& cluster) override {
    std::uint64_t n = 0;
    for (auto& [id, r] : rows)
      if (r.cluster == cluster)
        n = std::max<std::uint64_t>(n, std::stoull(id.substr(id.rfind('/') + 1)));
    return n;
  }
  result<std::optional<reservation_row>> find(const std::string& id) override {
    auto it = rows.find(id);
    if (it == rows.end()) return std::optional<reservation_row>();
    return std::optional<reservation_row>(it->second);
  }
  result<std::vector<reservation_row>> finished_rows(const history_query& q) override {
    std::vector<reservation_row> out;
    for (auto& [id, r] : rows)
      if (r.finished > 0 && (q.owner.empty() || r.owner == q.owner) &&
          (q.cluster.empty() || r.cluster == q.cluster))
        out.push_back(r);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return std::tie(a.finished, a.id) > std::tie(b.finished, b.id);
    });
    if (out.size() > q.limit) out.resize(q.limit);
    return out;
  }
  status purge_finished(const std::string& cluster, timestamp before) override {
    const auto last = *last_serial(cluster);  // kept, as the store keeps it
    for (auto it = rows.begin(); it != rows.end();) {
      const auto& r = it->second;
      const bool old = r.cluster == cluster && r.finished > 0 && r.finished < before &&
                       std::stoull(r.id.substr(r.id.rfind('/') + 1)) != last;
      it = old ? rows.erase(it) : std::next(it);
    }
    return {};
  }
  std::map<std::string, lrms_claim> claims;
  std::string identity;
  result<std::optional<lrms_claim>> claim_of(const std::string& cluster) override {
    auto it = claims.find(cluster);
    if (it == claims.end()) return std::optional<lrms_claim>();
    return std::optional<lrms_claim>(it->second);
  }
  status save_claim(const std::string& cluster, const lrms_claim& c) override {
    if (broken) return fail(errc::storage_failure, "disk full");
    claims[cluster] = c;
    return {};
  }
  result<std::string> node_id() override { return identity; }
  status save_node_id(const std::string& i) override {
    identity = i;
    return {};
  }
  status log_commit(const std::string&) override { return {}; }
  status forget_commit(const std::string&) override { return {}; }
  result<std::vector<std::string>> commits() override { return std::vector<std::string>{}; }
};

}  // namespace arbroker::testing
