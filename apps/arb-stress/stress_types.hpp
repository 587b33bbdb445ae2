#pragma once

// Options, planned operations and per-client reports of arb-stress.

#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "arbroker/core/time.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker::stress {

enum class op_kind : std::uint8_t {
  reserve,
  hold,
  coreserve,
  cancel,
  modify,
  whatif,
  grid_flood,     ///< a grid job, strategy flood (width 3)
  grid_adaptive,  ///< a grid job, strategy adaptive
  grid_reserve,   ///< a grid job, strategy reserve (k = 3; moved to earlier reservations)
};
inline constexpr int op_kinds = 9;
const char* to_string(op_kind k);

/// Relative weights of the operations in the mix.
struct mix_weights {
  int reserve = 50;
  int hold = 10;
  int coreserve = 15;
  int cancel = 10;
  int modify = 5;
  int whatif = 10;
  int grid_flood = 0;
  int grid_adaptive = 0;
  int grid_reserve = 0;
};

struct stress_options {
  int clusters = 16;
  int clients = 1000;
  int requests_per_client = 10;
  std::uint64_t seed = 1;
  mix_weights mix;
  int np_min = 4;
  int np_max = 16;
  int bunch = 4;
  int tsn_max = 8;
  std::string policy;       ///< elastic requests name this matchmaking policy ("" = preferences)
  int stall_seconds = 120;  ///< no client report for this long: the run counts as stalled
  int hot_clusters = 2;     ///< contention: this many clusters ...
  double hot_share = 0.5;   ///< ... are the only ones allowed for this share of requests
  int coreservation_parts = 3;
  int coreservation_clusters = 8;  ///< co-reservations pick among the first this many
  duration hold_seconds = 3;       ///< holds a client abandons expire after this
  double migration_share = 0.1;    ///< grid_jobs_config::migration_share, a node's default
  bool local_jobs = true;          ///< background local jobs on every cluster
  std::size_t threads = 2;
  int elastic_workers = 4;        ///< the broker's pool of elastic workers
  int coreservation_workers = 2;  ///< the broker's pool of co-reservation workers
  int probe_keep = 4;             ///< candidates per cluster and probe (broker_config)
  int clients_per_actor = 1;      ///< logical clients run by one client actor
  int audit_interval_ms = 200;
  int idle_seconds = 0;          ///< after the run, measure the idle engine's CPU use for this long
  double calibrate_seconds = 1;  ///< the machine's CAF round trips are measured this long first
  bool calibrate_only = false;
  int spread_hours = 4;  ///< earliest starts fall within this many hours (contention)
  /// The journal the services and the broker write to, as a node's (empty: none, in memory).
  std::string store;
  bool store_sync_full = true;  ///< durability::full (false: normal)
  /// Across processes (agents.hpp): the clusters are behind these agents, "host:port=c0,c1"
  /// (none: simulated clusters in this process).
  std::vector<std::string> agents;
  std::string name = "stress";      ///< this process's broker name at the agents
  std::string report;               ///< write the ids clients were told are theirs here
  bool audit = false;               ///< no clients: audit the agents' ledgers against `expect`
  std::vector<std::string> expect;  ///< the reports of the broker processes (audit)
};

/// One planned operation. Cancel and modify act on the client's own earlier bookings (the
/// oldest for cancel, the newest elastic one for modify), so they need no terms here.
struct planned_op {
  op_kind kind = op_kind::reserve;
  msg::elastic_request elastic;  ///< the client's words (replies are checked against them)
  msg::coreservation_request coreservation;
  /// The same in the engine's terms (msg::check), made when the run is planned, as the node
  /// makes it where a request arrives.
  msg::checked_elastic_request checked_elastic;
  msg::checked_coreservation_request checked_coreservation;
  bool commit_hold = false;       ///< hold: commit it (true) or let it expire (false)
  msg::grid_submit_request grid;  ///< grid_flood, grid_adaptive, grid_reserve
};

/// The operations of client `client`: the same for the same options and seed, whatever
/// the timing; times are relative to `now`.
std::vector<planned_op> plan_client(const stress_options& o, int client, timestamp now,
                                    const std::vector<std::string>& clusters);

/// What a client did: per operation its kind, outcome (0 or an errc) and latency; the
/// reservation ids it holds at the end; and anything wrong it saw in a reply.
struct client_report {
  std::int32_t client = 0;
  std::vector<std::uint8_t> kinds;
  std::vector<std::uint8_t> outcomes;
  std::vector<std::int64_t> latency_us;
  std::vector<std::string> live;
  std::vector<std::string> problems;
  std::vector<std::string> grid_jobs;  ///< grid jobs it was told are accepted
};

template <class Inspector>
auto inspect(Inspector& f, client_report& x) {
  return f(x.client, x.kinds, x.outcomes, x.latency_us, x.live, x.problems, x.grid_jobs);
}

using start_atom = caf::atom_constant<caf::atom("start")>;
using audit_atom = caf::atom_constant<caf::atom("audit")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;

}  // namespace arbroker::stress
