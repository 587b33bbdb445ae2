#include "lrms_names.hpp"

#include <random>

namespace arbroker::detail {

std::string random_node_id() {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 8; ++i)
    id += alphabet[rd() % (sizeof alphabet - 1)];
  return id;
}

result<std::string> lrms_prefix(const cluster_entry& c, reservation_journal* journal,
                                grid_job_journal* grid_journal, bool old_store,
                                const std::string& node_id) {
  if (!c.name_prefix.empty()) return c.name_prefix;
  if (journal) {
    auto claim = journal->claim_of(c.info.name);
    if (!claim) return claim.err();
    if (*claim) return (*claim)->prefix;
  }
  if (journal && old_store) {
    auto last = journal->last_serial(c.info.name);
    if (!last) return last.err();
    if (*last > 0) return std::string("arb-");
  }
  if (grid_journal && old_store) {
    auto last = grid_journal->last_grid_job_serial();
    if (!last) return last.err();
    if (*last > 0) return std::string("arb-");
  }
  return "arb-" + node_id + "-";
}

}  // namespace arbroker::detail
