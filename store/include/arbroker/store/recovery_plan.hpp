#pragma once

// How a restarting node settles what a crash left in doubt (presumed abort, paper 002's
// co-reservation agent with a durable coordinator log).

#include <set>
#include <string>
#include <vector>

#include "arbroker/store/journal.hpp"

namespace arbroker {

struct recovery_plan {
  /// Transactions whose holds become committed: the coordinator logged commit and every
  /// part is still held or committed.
  std::set<std::string> commit_txns;
  /// Committed parts to cancel: their transaction logged commit, but another part was lost
  /// (its hold expired or was cancelled before the commit reached it), so the
  /// co-reservation cannot be whole; all-or-nothing means none.
  std::set<std::string> compensate_ids;
};

/// The transaction whose commit decision covers a part's own txn: a co-reservation with
/// several parts on one cluster names them "<txn>#<part>" (a cluster's prepare is idempotent
/// per txn), the others carry the transaction's txn itself.
std::string decision_txn(const std::string& part_txn);

/// Decides, from every cluster's rows and the logged commit decisions, which transactions
/// are completed and which parts are compensated. Holds of any other transaction are
/// aborted by the cluster services (no decision logged = abort).
recovery_plan plan_recovery(const std::vector<reservation_row>& rows,
                            const std::vector<std::string>& commit_decisions);

}  // namespace arbroker
