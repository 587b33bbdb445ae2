#pragma once

#include <span>
#include <string_view>
#include <variant>

#include "arbroker/core/esr_load.hpp"
#include "arbroker/core/job_end_policy.hpp"
#include "arbroker/core/local_jobs_preferred.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// What a site chooses per cluster for its reservation service: defined once, here, for the
/// service's config (cluster_service_config), the node's `[[cluster]]` entry and the
/// simulator's cluster spec, which all derive from it (copying one is one assignment), and
/// listed once (policy_fields) for the TOML reading and docs/config.md's table, which a test
/// holds against the list. The defaults are the service's; an embedder may choose others.
struct cluster_policy {
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
  duration history_delta = 3600;  ///< sampling interval of the esr history
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
};

/// One setting of cluster_policy as an operator writes it: its key under `[[cluster]]`, and
/// where it lives in the struct.
struct policy_field {
  using ref =
      std::variant<duration*, double*, int*, bool*, ljp_policy*, ljp_method*, job_end_policy*>;
  std::string_view key;  ///< (a literal: null-terminated)
  ref (*of)(cluster_policy&);
};

/// Every setting of cluster_policy, each once.
std::span<const policy_field> policy_fields();

}  // namespace arbroker
