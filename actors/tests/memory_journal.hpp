#pragma once

// A reservation journal in memory for the cluster service's tests: what the service writes
// and when, and a switch that makes every write fail.

#include <map>
#include <string>
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
      out.push_back(r);
    return out;
  }
  status log_commit(const std::string&) override { return {}; }
  status forget_commit(const std::string&) override { return {}; }
  result<std::vector<std::string>> commits() override { return std::vector<std::string>{}; }
};

}  // namespace arbroker::testing
