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
/// `grid_held`: reservations grid jobs hold now (committed without a client told, rightly).
std::vector<std::string> accounting_violations(const std::vector<msg::cluster_status>& all,
                                               const std::set<std::string>& expected,
                                               const std::set<std::string>& grid_held = {});

/// What looks wrong with the grid jobs in one look at the node and its LRMSs, keyed so that
/// the same problem has the same key in the next look: a job listed twice, a job running in
/// more than one LRMS, a copy the node no longer counts as live still in an LRMS, a job of one
/// of `users` in an LRMS that is no copy of any job (an orphan). Each may be a moment of a correct
/// run (a duplicate start until its cancel lands, a copy between its LRMS submit and the
/// node's record of its id); only what persists is a violation (grid_watch).
std::map<std::string, std::string> grid_suspects(const std::vector<msg::grid_job_info>& jobs,
                                                 const std::vector<msg::cluster_status>& all,
                                                 const std::set<std::string>& users);

/// Grid invariants during a run. Each look is taken after a job-state round of the node has
/// settled (poll_atom: the round and the cancels it led to are done), so a suspect that
/// survives `persist` consecutive looks has outlived every transient: a duplicate start is
/// cancelled by the next round, an LRMS submit's reply and a cancel were queued before the
/// next look's requests. (Two full rounds between the first and the last look, because a
/// round skips a cluster whose previous state request is still on its way.) Reported once.
class grid_watch {
 public:
  explicit grid_watch(int persist = 3) : persist_(persist) {}
  /// One look; the new violations.
  std::vector<std::string> look(const std::map<std::string, std::string>& suspects);

 private:
  int persist_;
  std::map<std::string, int> seen_;  ///< suspect -> consecutive looks it was in
  std::set<std::string> reported_;
};

/// Grid jobs, once the node has settled (one job-state poll after the last change): every
/// job in `acknowledged` exists; none runs in more than one LRMS; no copy the node no longer
/// counts as live is still in an LRMS; and no job of one of `users` is in an LRMS without
/// being a live copy of some grid job (an orphan).
std::vector<std::string> grid_violations(const std::vector<msg::grid_job_info>& jobs,
                                         const std::vector<msg::cluster_status>& all,
                                         const std::set<std::string>& acknowledged,
                                         const std::set<std::string>& users);

}  // namespace arbroker::stress
