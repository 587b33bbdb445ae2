#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/expected_delay.hpp"
#include "arbroker/core/runtime_prediction.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

// Matchmaking policies: paper 002 Sec. 3.1 (RAN, FF, NF, IMCT, MinU, MaxU, MLI), Shortest
// Expected Delay (paper 004, Sec. III-A) and total time to delivery (paper 003, Sec. 3.2).

enum class match_policy { ran, ff, nf, imct, minu, maxu, mli, sed, ttd };

/// The valid names, for messages: "ran, ff, nf, imct, minu, maxu, mli, sed, ttd".
inline constexpr std::string_view match_policy_names =
    "ran, ff, nf, imct, minu, maxu, mli, sed, ttd";

/// "ran" -> match_policy::ran, ...; invalid_parameter naming the valid ones otherwise.
result<match_policy> parse_match_policy(std::string_view name);
std::string_view to_string(match_policy p) noexcept;

/// What the matchmaker knows of one cluster of the selection window: its match advisor's
/// report and what SED and TTD need.
struct match_report {
  std::string name;
  bool meets_qos = false;       ///< the advisor found a placement within the deadline
  timestamp completion = 0;     ///< of the job there (IMCT, MLI ties)
  duration zeta = 0;            ///< laxity impact there (MLI)
  double utilization = 0;       ///< MinU / MaxU
  double relative_speed = 1.0;  ///< MLI's scaling of zeta
  sed_machine machine;          ///< SED's view of the cluster (machine.name = name)
  ttd_components ttd;           ///< TTD's terms on the cluster
};

/// The order in which the matchmaker tries the clusters, as indices into `reports` (the
/// selection window, in its agreed sequence). Only clusters that meet QoS are listed; the
/// first is the policy's choice, the rest its fallbacks after a refusal:
/// - ran: a random permutation drawn from `rng` (paper: pick at random, repeat on refusal);
/// - ff: the window's sequence; nf: the same, starting after the cluster named `next_fit`
///   (the one chosen last; from the start when it is not in the window);
/// - imct: completion time ascending; minu / maxu: utilization ascending / descending;
/// - mli: choose_min_laxity_impact() repeatedly (scaled zeta, ties by completion time);
/// - sed: rank_by_expected_delay() with `app`; ttd: rank_by_time_to_delivery().
/// Ties are broken by the window's sequence (sed, ttd: by name, as those rankings do). Fails with
/// the errors of the core functions the policy uses; infeasible when no cluster meets QoS.
result<std::vector<std::size_t>> match_order(std::span<const match_report> reports,
                                             match_policy policy, const sed_application& app,
                                             std::string_view next_fit, std::mt19937_64& rng);

}  // namespace arbroker
