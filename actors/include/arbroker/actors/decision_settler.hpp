#pragma once

// Completes, after a broker node's restart, the co-reservations whose commit decision its log
// holds while some of their parts are beyond its own recovery (clusters behind agents,
// remote/README.md): a two-phase commit that crashed between its decision and its last
// commit. The decision log names the transaction only, not its parts, so the settler asks
// every cluster: commit_txn for the transaction and for each part name it may have
// ("<txn>", "<txn>#<i>"). A cluster that has no such part answers not_found; a part that
// expired (or was aborted) before its commit arrived answers with a refusal, and so does one
// a compensation under way at the crash had already released (a cluster service remembers
// the transactions that ended, across its restarts too, from its store's history: the newest
// 4,096); then the co-reservation cannot be whole: all or nothing means none, and every part
// everywhere is released (release_txn). Once every call is answered the decision is forgotten.
//
// Remote clusters' commits and releases are delivered across link losses (the proxies keep
// them), so a settler may wait for an agent that is down; it ends by itself when done.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbroker/actors/protocols.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

struct decision_settler_config {
  std::vector<std::pair<std::string, cluster_service_actor>> clusters;  ///< every cluster
  std::vector<std::string> decisions;            ///< logged commit decisions to complete
  std::shared_ptr<reservation_journal> journal;  ///< forgets each once settled
  int max_parts = 16;  ///< part names "<txn>#0" .. "<txn>#(max_parts - 1)" are asked for too
  /// Each settled decision: its txn, and whether it completed (false: released everywhere).
  std::function<void(const std::string& txn, bool whole)> on_settled;
};

/// Spawns the settler; it exits once every decision is settled (at once without any).
caf::actor spawn_decision_settler(caf::actor_system& sys, decision_settler_config cfg);

}  // namespace arbroker
