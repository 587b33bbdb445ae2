#pragma once

// Invariant checks of arb-stress over the clusters' status reports (pure functions).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "arbroker/core/time.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker::stress {

/// Capacity: at every instant from `now` on, the LRMS's reservations plus its running jobs
/// use at most `cpus` CPUs (recounted here from the LRMS's own lists).
std::vector<std::string> capacity_violations(const msg::cluster_status& s);

/// Holds: no hold is still held more than `tick` after its expiry, and the LRMS holds
/// exactly the reservations the service considers live (no leaked or phantom reservation).
/// `prefix` is the name prefix the service gives its LRMS reservations.
std::vector<std::string> hold_violations(const msg::cluster_status& s, duration tick,
                                         const std::string& prefix = "arb-");

/// Local jobs preferred: no live reservation starts before the T_wkl it was admitted against.
std::vector<std::string> ljp_violations(const msg::cluster_status& s);

/// Accounting, once everything has settled: the committed reservations on all clusters are
/// exactly those that clients were told are theirs (successes not cancelled since), each
/// once. A failure reply that left something behind, or a success without a reservation,
/// is a violation.
std::vector<std::string> accounting_violations(const std::vector<msg::cluster_status>& all,
                                               const std::set<std::string>& expected);

/// Grid jobs, once the node has settled (one job-state poll after the last change): every
/// job in `acknowledged` exists; none runs in more than one LRMS; no copy the node no longer
/// counts as live is still in an LRMS; and no job of one of `users` is in an LRMS without
/// being a live copy of some grid job (an orphan).
std::vector<std::string> grid_violations(const std::vector<msg::grid_job_info>& jobs,
                                         const std::vector<msg::cluster_status>& all,
                                         const std::set<std::string>& acknowledged,
                                         const std::set<std::string>& users);

}  // namespace arbroker::stress
