#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "arbroker/actors/cluster_policy.hpp"
#include "arbroker/core/cost.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/store/journal.hpp"

// What an embedder gives a cluster reservation service and what its recovery reports: all of
// the service an embedder (node.hpp, the simulator, the stress tool) needs to see. The service
// itself is cluster_service.hpp.

namespace arbroker {

/// Settings of one cluster reservation service: the site's policy (cluster_policy.hpp) and
/// what the embedder wires in.
struct cluster_service_config : cluster_policy {
  msg::cluster_info info;  ///< name, CPUs, power, reservable sizes, ...
  cost_model cost = *cost_model::create(1.0, 3600, {}, 0);
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
