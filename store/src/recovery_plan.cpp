#include "arbroker/store/recovery_plan.hpp"

#include <map>

namespace arbroker {

std::string decision_txn(const std::string& part_txn) {
  return part_txn.substr(0, part_txn.find('#'));
}

recovery_plan plan_recovery(const std::vector<reservation_row>& rows,
                            const std::vector<std::string>& commit_decisions) {
  const std::set<std::string> decided(commit_decisions.begin(), commit_decisions.end());
  std::map<std::string, std::vector<const reservation_row*>> parts;  // decided txn -> rows
  for (const auto& r : rows)
    if (decided.count(decision_txn(r.txn))) parts[decision_txn(r.txn)].push_back(&r);
  recovery_plan plan;
  for (const auto& [txn, rs] : parts) {
    bool whole = true;
    for (const auto* r : rs)
      whole = whole && holds_capacity(r->state);
    if (whole) {
      plan.commit_txns.insert(txn);
      continue;
    }
    for (const auto* r : rs)
      if (holds_capacity(r->state) && r->state != reservation_state::accepted)
        plan.compensate_ids.insert(r->id);
  }
  return plan;
}

}  // namespace arbroker
