#include "arbroker/actors/row_recovery.hpp"

namespace arbroker {

row_recovery recover_row(const reservation_row& row, const recovery_plan& plan,
                         bool keep_in_doubt_holds, bool found, bool recreatable, timestamp now,
                         recovery_report& report) {
  row_recovery out{row.state == reservation_state::change_requested ? reservation_state::committed
                                                                    : row.state};
  if (out.target == reservation_state::accepted) {
    if (plan.commit_txns.count(decision_txn(row.txn))) {
      out.target = reservation_state::committed;  // the coordinator decided commit
      ++report.completed_holds;
    } else if (keep_in_doubt_holds && row.expiry > now && row.end > now) {
      out.kept_hold = true;  // a broker elsewhere may still commit it: it expires as it would
      ++report.kept_holds;
    } else {
      out.target = reservation_state::cancelled;  // presumed abort
      ++report.aborted_holds;
    }
  } else if (holds_capacity(out.target) && plan.compensate_ids.count(row.id)) {
    out.target = ended_early(row.start, now);
    ++report.compensated;
  }
  const bool live = holds_capacity(out.target) && row.end > now;
  if (live && found) {
    out.step = lrms_step::restore;
    ++report.restored;
  } else if (live && recreatable) {
    out.step = lrms_step::recreate;
  } else if (live) {
    out.target = ended_early(row.start, now);
    ++report.lost;
  } else if (found && row.end > now) {
    // An aborted hold, a compensated part, or one whose delete the LRMS refused before the
    // crash (jobs still bound to it).
    out.step = lrms_step::remove;
  }
  return out;
}

}  // namespace arbroker
