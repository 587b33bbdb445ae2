#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "arbroker/core/cost.hpp"
#include "arbroker/core/esr_load.hpp"
#include "arbroker/core/job_end_policy.hpp"
#include "arbroker/core/local_jobs_preferred.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/store/journal.hpp"

// What an embedder gives a cluster reservation service and what its recovery reports: all of
// the service an embedder (node.hpp, the simulator, the stress tool) needs to see. The service
// itself is cluster_service.hpp.

namespace arbroker {

/// Settings of one cluster reservation service.
struct cluster_service_config {
  msg::cluster_info info;  ///< name, CPUs, power, reservable sizes, ...
  cost_model cost = *cost_model::create(1.0, 3600, {}, 0);
  duration refresh = 1;  ///< the view of the LRMS is at most this old (0: read on every call)
  /// The reservations in the view are read from the LRMS at least this often (at least
  /// `refresh`); in between the service keeps its own there, and sees one made behind its
  /// back when the LRMS refuses a hold that collides with it.
  duration full_refresh = 30;
  duration max_hold = 600;  ///< a prepare may hold CPUs for at most this long
  /// Finished reservations stay queryable this long: in the journal's history when there is
  /// a journal (the service forgets them at once), else in memory.
  duration retention = 3600;
  duration esr_static_h = 18000;  ///< paper 000: 18000 s
  load_params load;               ///< accuracies for T_wkl
  /// Local Jobs Preferred (paper 004, Sec. III-B): who may waive it and how it is checked.
  ljp_policy ljp = ljp_policy::enforce;
  ljp_method ljp_check = ljp_method::ese;
  /// Paper 003, Sec. 3.1: release a reservation when its jobs have ended, or keep it.
  job_end_policy after_jobs = job_end_policy::keep;
  /// Paper 002's RLC scheduler: committed reservations that came with a window (movable
  /// requests) are moved within it, earliest deadline first, to admit new ones, and pulled
  /// forward when others end early (laxity_scheduler.cpp). false: every reservation is rigid.
  bool laxity = false;
  /// Paper 002, Sec. 5.3 (overruns.cpp): jobs still running `overrun_notice` before their
  /// reservation ends (whoever submitted them into it) get `overrun_quantum` more time, at
  /// most `overrun_max` times per reservation, when the CPUs are free for it under the site's
  /// LJP rule (on a laxity cluster movable reservations may move for it); otherwise they end
  /// with the reservation. 0: off.
  duration overrun_quantum = 0;
  duration overrun_notice = 60;
  int overrun_max = 4;
  duration history_delta = 3600;  ///< sampling interval of the esr history
  /// The names of its reservations in the LRMS: the prefix, then the id number. With a
  /// journal the prefix is claimed there (lrms_claim): recovery refuses a reservation under
  /// it that this service did not make (another node with the same prefix) ...
  std::string name_prefix = "arb-";
  /// ... unless told to take such reservations over (`arbd --adopt`): they become committed
  /// reservations of this service, kept in the LRMS until their end.
  bool adopt_foreign = false;
  /// Recovery keeps a hold without a commit decision until its expiry instead of presuming
  /// abort: for an agent (remote/README.md), whose holds are coordinated by brokers in
  /// other processes whose decisions it cannot see; their commits may still be on the way.
  bool keep_in_doubt_holds = false;
  /// Callers name themselves per broker (broker_scope.hpp): an agent's. A user
  /// "<broker>:<user>" reaches only that broker's reservations, a job cancel
  /// "<broker>:<lrms id>" only that broker's jobs; ":<user>" is an admin broker's (anybody's).
  bool scoped_callers = false;
  /// Users' virtual organizations (user -> VO; paper 000, Sec. 3.3): the cost model's
  /// agreement for a user's VO applies when the user has none of their own. Null: no VOs.
  std::shared_ptr<const std::map<std::string, std::string>> vo_of;
  /// Where reservations are made durable before they are answered for (null: nowhere, as
  /// in the stress tool and the simulator).
  std::shared_ptr<reservation_journal> journal;
  /// Told every change of a reservation the service records (a hold granted, committed,
  /// cancelled, released, expired, its terms changed), with the row as written, on the
  /// service's thread: an audit trail (must be quick and thread-safe; null: nobody).
  std::function<void(const reservation_row&)> on_change;
};

/// What cluster_service::recover() found and did.
struct recovery_report {
  int restored = 0;         ///< committed reservations found in the LRMS and adopted
  int recreated = 0;        ///< committed ones the (simulated) LRMS had lost, made again
  int lost = 0;             ///< committed ones neither found nor made again (now cancelled)
  int aborted_holds = 0;    ///< holds without a commit decision (presumed abort)
  int completed_holds = 0;  ///< holds whose co-reservation had decided commit
  int compensated = 0;      ///< committed parts of a co-reservation that lost another part
  int orphans = 0;          ///< LRMS reservations of ours that no row claims, deleted
  int adopted = 0;          ///< another node's under our prefix, taken over (adopt_foreign)
  int kept_holds = 0;       ///< in-doubt holds kept until their expiry (keep_in_doubt_holds)
};

}  // namespace arbroker
