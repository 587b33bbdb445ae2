#pragma once

// Client requests that passed every check, in the engine's terms. check() makes one where a
// request enters the engine (the node, the simulator, the stress tool); the broker accepts
// nothing else and carries it inward unchanged, so no actor parses, converts or checks a
// request again. In-process only: they hold core values (a speedup model) and are never
// serialized.

#include <optional>
#include <string>
#include <vector>

#include "arbroker/core/matchmaking.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/slot_generation.hpp"
#include "arbroker/core/success_rate.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker::msg {

/// The most components one co-reservation may have (the API refuses more, too).
inline constexpr std::size_t max_coreservation_components = 16;

/// An elastic request (paper 000, Table 1) that passed check().
struct checked_elastic_request {
  arbroker::elastic_request
      job;             ///< user, window, processor range, reference duration, speedup model
  preferences prefer;  ///< not empty, no attribute twice
  std::optional<match_policy> policy;  ///< set: the matchmaker places it instead
  request_mode mode = request_mode::reserve;
  esr_method esr = esr_method::load;
  double esr_threshold = -1;  ///< in [0, 1]; < 0: the broker's default
  probe_limits slotting;      ///< tsn_max >= 1, tss_gap >= 0
  duration hold_seconds = 0;  ///< mode hold only; 0: the broker's default
  gis_query where;            ///< which clusters may take it (user, np_min, os, ...)
  bool local_jobs_preferred = true;
  bool admin = false;    ///< may waive LJP where a site enforces it
  std::string account;   ///< to charge ("" = the user's default)
  bool movable = false;  ///< paper 002: a cluster with laxity may move it within [est, let]
};

/// A co-reservation request that passed check(): k components that start together, each
/// `offset` seconds after the common start.
struct checked_coreservation_request {
  struct component {
    arbroker::elastic_request job;  ///< window [est + offset, let], its own shape and speedup model
    duration offset = 0;
    std::vector<std::string> clusters;  ///< allowed clusters (empty = any)
  };
  std::string user;
  timestamp est = 0;
  timestamp let = 0;
  std::vector<component> components;  ///< 1 to max_coreservation_components
  preferences prefer;
  probe_limits slotting;
  int max_attempts = 8;  ///< >= 1
  esr_method esr = esr_method::load;
  double esr_threshold = -1;  ///< in [0, 1]; < 0: the broker's default
  bool local_jobs_preferred = true;
  bool admin = false;   ///< may waive LJP where a site enforces it
  std::string account;  ///< to charge ("" = the user's default)
  gis_query where;      ///< user and the smallest np_min of the components
};

/// Checks an elastic request and puts it in the engine's terms. The error names the field:
/// permission_denied without a user; invalid_window, invalid_processor_range,
/// invalid_duration or invalid_speedup_model for the job's shape; invalid_parameter for the
/// rest (preferences, policy, esr, slotting, mode and hold).
result<checked_elastic_request> check(const elastic_request& r);

/// The same for a co-reservation; errors of a component name it ("components[1].offset").
result<checked_coreservation_request> check(const coreservation_request& r);

}  // namespace arbroker::msg
