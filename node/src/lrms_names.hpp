#pragma once

// The node's names in the batch systems (docs/operations.md, "Several nodes on one batch
// system"): its identity, and the prefix of each cluster's reservation (and grid-job copy)
// names in its LRMS. The store's claim of a prefix and its lease of id numbers are kept by
// the cluster service (cluster_service::recover); this only chooses the prefix at start.

#include <string>

#include "arbroker/core/error.hpp"
#include "arbroker/node/node_config.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker::detail {

/// A new node's identity: 8 lowercase letters and digits, so that two nodes never pick the
/// same.
std::string random_node_id();

/// The prefix of cluster `c`'s names in its LRMS: the configured one; else the one the store
/// claimed for it; else "arb-", the default before claims, for a store written before claims
/// (`old_store`) that has rows of the cluster or grid jobs (their copies may be queued under
/// it); else "arb-<node id>-". A configured prefix that differs from the claim is refused by
/// recovery, not here.
result<std::string> lrms_prefix(const cluster_entry& c, reservation_journal* journal,
                                grid_job_journal* grid_journal, bool old_store,
                                const std::string& node_id);

}  // namespace arbroker::detail
