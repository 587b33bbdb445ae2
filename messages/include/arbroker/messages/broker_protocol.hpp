#pragma once

// Messages between clients and the grid reservation service (broker).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/success_rate.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/runtime_hints.hpp"
#include "arbroker/messages/slot.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// What the broker does with an elastic request.
enum class request_mode : std::uint8_t {
  reserve,  ///< reserve and commit the best candidate
  hold,     ///< hold it; the client commits later (commit_request) or lets it expire
  whatif,   ///< rank the candidates, reserve nothing
};

/// "reserve", "hold", "whatif".
std::string_view to_string(request_mode m) noexcept;

/// The preferences of a request that gives none: earliest end, then lowest cost.
inline preferences default_preferences() {
  return {{objective_attribute::end, false}, {objective_attribute::cost, false}};
}

/// An elastic reservation request (paper 000, Table 1) with the broker's knobs.
struct elastic_request {
  std::string user;
  std::int64_t est = 0;
  std::int64_t let = 0;
  std::int32_t np_min = 1;
  std::int32_t np_max = 1;
  std::int64_t dur_ref = 0;
  double pp_ref = 0;        ///< 0: the power of the cluster it runs on (no scaling)
  std::int32_t np_ref = 0;  ///< 0: np_min
  speedup_spec speedup;
  preferences prefer = default_preferences();  ///< most important first, e.g. end, cost, -esr
  std::string policy;  ///< matchmaking policy instead of preferences ("" = none), e.g. "mli"
  esr_method esr = esr_method::load;
  double esr_threshold = -1;  ///< < 0: the broker's default
  std::int32_t tsn_max = 8;
  std::int64_t tss_gap = 60;
  request_mode mode = request_mode::reserve;
  std::int64_t hold_seconds = 0;  ///< mode_hold: how long the hold lasts (0 = default)
  std::string os;
  std::vector<std::string> features;
  std::vector<std::string> clusters;  ///< restrict to these clusters (empty = any)
  bool local_jobs_preferred = true;
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;
  /// Paper 003 Sec. 3.2 (optional): the run time on np_ref CPUs from benchmarks instead of
  /// pp_ref scaling (the largest estimate is reserved), and the data to stage, which the
  /// `ttd` policy ranks by and which a reservation waits for (runtime_hints.hpp).
  std::vector<benchmark_triple> benchmarks;
  double penalty = 1.25;  ///< c, for a benchmark a cluster does not publish
  std::vector<input_file> inputs;
  std::int64_t output_bytes = -1;  ///< -1: unknown (stage-out left out of the TTD)
  /// Paper 003, Sec. 3.1: the account the reservation is charged to ("" = the user's
  /// default); jobs bound to it run under it too. Letters, digits, '_', '-', '.'.
  std::string account = {};
  /// Paper 002's deadline form: the reservation runs for its duration somewhere within
  /// [est, let], and a cluster with laxity may move it there until it starts (clients are
  /// told the current start). false: the granted terms are fixed.
  bool movable = false;

  friend bool operator==(const elastic_request&, const elastic_request&) = default;
};

ARB_FIELDS(elastic_request, x.user, x.est, x.let, x.np_min, x.np_max, x.dur_ref, x.pp_ref, x.np_ref,
           x.speedup, x.prefer, x.policy, x.esr, x.esr_threshold, x.tsn_max, x.tss_gap, x.mode,
           x.hold_seconds, x.os, x.features, x.clusters, x.local_jobs_preferred, x.admin,
           x.benchmarks, x.penalty, x.inputs, x.output_bytes, x.account, x.movable)

/// How a request went, for metrics and the experiments of paper 000, Sec. 4.2.
struct request_stats {
  std::int32_t clusters = 0;  ///< resource candidates from the GIS
  /// Time slots the probes generated: of the clusters probed, which with preferences whose
  /// first objective bounds what a cluster can offer (end first, say) need not be all.
  std::int32_t candidates = 0;
  std::int32_t above_threshold = 0;  ///< after the esr threshold
  std::int32_t rejected_by_service = 0;
  std::int32_t rejected_by_lrms = 0;
  friend bool operator==(const request_stats&, const request_stats&) = default;
};

ARB_FIELDS(request_stats, x.clusters, x.candidates, x.above_threshold, x.rejected_by_service,
           x.rejected_by_lrms)

/// A cluster a request could not use, and why: not what it asks for (OS, features, CPUs,
/// users, hold length), the request cannot be adapted to it, no slot in the window, or the
/// cluster's error.
struct cluster_note {
  std::string cluster;
  wire_error error;
  friend bool operator==(const cluster_note&, const cluster_note&) = default;
};

ARB_FIELDS(cluster_note, x.cluster, x.error)

struct elastic_reply {
  reservation_info reservation;            ///< the negotiated terms (mode reserve/hold)
  std::vector<slot> ranked;                ///< mode whatif: the candidates, best first
  std::int64_t earliest_alternative = -1;  ///< on failure: earliest start seen, -1 none
  request_stats stats;
  wire_error error;
  /// Mode whatif: every cluster of the directory that offers no candidate, and why, by name.
  std::vector<cluster_note> passed_over = {};

  friend bool operator==(const elastic_reply&, const elastic_reply&) = default;
};

ARB_FIELDS(elastic_reply, x.reservation, x.ranked, x.earliest_alternative, x.stats, x.error,
           x.passed_over)

/// One part of a co-reservation: its own processor range, duration and speedup, starting
/// `offset` seconds after the common start.
struct coreservation_component {
  std::int32_t np_min = 1;
  std::int32_t np_max = 1;
  std::int64_t dur_ref = 0;
  double pp_ref = 0;        ///< 0: the power of the cluster it runs on (no scaling)
  std::int32_t np_ref = 0;  ///< 0: np_min
  speedup_spec speedup;
  std::int64_t offset = 0;
  std::vector<std::string> clusters;  ///< allowed clusters (empty = any)

  friend bool operator==(const coreservation_component&, const coreservation_component&) = default;
};

ARB_FIELDS(coreservation_component, x.np_min, x.np_max, x.dur_ref, x.pp_ref, x.np_ref, x.speedup,
           x.offset, x.clusters)

/// Sets the work terms an elastic request and a co-reservation component share: `np_min` to
/// `np_max` CPUs, `dur_ref` seconds on `np_ref` CPUs of power `pp_ref`, linear speedup
/// (Amdahl with no serial part), the simplest job to write down. Returns `x`.
template <class Work>
Work& set_linear_work(Work& x, std::int32_t np_min, std::int32_t np_max, std::int64_t dur_ref,
                      std::int32_t np_ref, double pp_ref = 1000) {
  x.np_min = np_min;
  x.np_max = np_max;
  x.dur_ref = dur_ref;
  x.np_ref = np_ref;
  x.pp_ref = pp_ref;
  x.speedup = {};
  return x;
}

/// k components that must all start together (up to their offsets): on distinct clusters
/// where that is possible, else several on one cluster as far as its CPUs go.
struct coreservation_request {
  std::string user;
  std::int64_t est = 0;
  std::int64_t let = 0;
  std::vector<coreservation_component> components;
  preferences prefer = {{objective_attribute::start, false}};
  std::int32_t tsn_max = 8;
  std::int64_t tss_gap = 60;
  std::int32_t max_attempts = 8;  ///< common slots to try before giving up
  bool local_jobs_preferred = true;
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;
  std::string account = {};  ///< charged for every part (as elastic_request::account)
  /// Paper 000's success-rate filter on every part: only common starts whose estimated
  /// success rate by `esr` reaches the threshold on each part's cluster (< 0: the broker's
  /// default).
  esr_method esr = esr_method::load;
  double esr_threshold = -1;

  friend bool operator==(const coreservation_request&, const coreservation_request&) = default;
};

ARB_FIELDS(coreservation_request, x.user, x.est, x.let, x.components, x.prefer, x.tsn_max,
           x.tss_gap, x.max_attempts, x.local_jobs_preferred, x.admin, x.account, x.esr,
           x.esr_threshold)

struct coreservation_reply {
  std::string txn;
  std::vector<reservation_info> parts;  ///< one per component, in request order
  std::int32_t attempts = 0;
  std::int64_t earliest_alternative = -1;
  wire_error error;

  friend bool operator==(const coreservation_reply&, const coreservation_reply&) = default;
};

ARB_FIELDS(coreservation_reply, x.txn, x.parts, x.attempts, x.earliest_alternative, x.error)

}  // namespace arbroker::msg

template <>
struct arbroker::enum_bounds<arbroker::msg::request_mode> {
  static constexpr auto last = arbroker::msg::request_mode::whatif;
  static constexpr const char* name = "request_mode";
};
