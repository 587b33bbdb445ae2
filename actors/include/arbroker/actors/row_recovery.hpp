#pragma once

// Recovery's rule for one journal row of a cluster service after a restart (the service
// carries it out: cluster_recovery.cpp). The row's state is settled by the recovery plan
// (presumed abort): a hold whose transaction logged commit is committed, one without is
// aborted, unless the site keeps in-doubt holds (keep_in_doubt_holds) that have not expired;
// a committed part of a co-reservation that lost another part is compensated. Then the LRMS
// decides the rest: a live reservation it still has is restored on its terms (a modify may
// have landed there just before the crash); one it lost is made again where the LRMS starts
// empty (simulated), and is lost otherwise (cancelled, or terminated once started); one that
// ended but is still there is deleted.
//
// A pure function of the row, the plan and what the LRMS has: tested row by row in
// row_recovery_test.cpp, without a service.

#include "arbroker/actors/cluster_service_config.hpp"
#include "arbroker/store/journal.hpp"
#include "arbroker/store/recovery_plan.hpp"

namespace arbroker {

/// What the service does with the LRMS for one row.
enum class lrms_step {
  none,      ///< nothing there to do
  restore,   ///< the LRMS has it: adopt its id and terms
  recreate,  ///< the LRMS (simulated) lost it: make it again; if that fails it is lost
  remove,    ///< ended, but still in the LRMS: delete it (again on every sweep if refused)
};

struct row_recovery {
  reservation_state target;  ///< the state to restore (committed: time then makes it active)
  bool kept_hold = false;    ///< a hold kept until its expiry
  lrms_step step = lrms_step::none;
};

/// The rule for `row`. `found`: the LRMS still has it (by id or by name); `recreatable`: an
/// LRMS that starts empty. Counts the outcome in `report` (restored, lost, holds, compensated;
/// `recreated` or `lost` for a recreate is the service's to count once it has tried).
row_recovery recover_row(const reservation_row& row, const recovery_plan& plan,
                         bool keep_in_doubt_holds, bool found, bool recreatable, timestamp now,
                         recovery_report& report);

/// Where a reservation that cannot be kept ends: cancelled before its start, terminated after.
inline reservation_state ended_early(timestamp start, timestamp now) {
  return start <= now ? reservation_state::terminated : reservation_state::cancelled;
}

}  // namespace arbroker
