#pragma once

// The configuration of a broker node (arbd), read from TOML. See docs/config.md.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arbroker/actors/cluster_policy.hpp"
#include "arbroker/adapters/batch_systems.hpp"
#include "arbroker/core/cost.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker {

/// A client of the node and its secret. Admins may act on every user's reservations.
struct user_entry {
  std::string name;
  std::string token;  ///< in clear; or, better, token_hash (exactly one of the two)
  bool admin = false;
  std::string token_hash = {};  ///< argon2id, as `arbd --hash-token` prints it
  /// The user's virtual organization ("" = none): a cluster's cost agreement for it applies
  /// to the user when the user has none of their own (paper 000, Sec. 3.3).
  std::string vo = {};
};

/// simulated: an in-memory batch system on the wall clock (sim_backend/).
/// batch: a real batch system through its adapter, cluster_entry::batch_system names which
/// (adapters/batch_systems.hpp lists them and says which this build has).
/// remote: a cluster an agent serves (arb-agent, or another node's [agent]); the node reaches
/// it over the agent protocol (remote/README.md) and holds nothing of it itself.
enum class cluster_kind { simulated, batch, remote };

/// Local work a simulated cluster starts with, so that its schedule is not empty.
struct simulated_job {
  int np = 1;
  duration walltime = 3600;
  duration runtime = 3600;  ///< what it really runs (<= walltime: ends early)
};

/// One cluster the node brokers for: the site's policy for its service (cluster_policy.hpp;
/// its TOML keys are listed there once) and how to reach and describe it.
struct cluster_entry : cluster_policy {
  /// Finished reservations stay in the store's history (show, list --history) this long; a
  /// node without a store keeps them in memory instead, for an hour at most.
  cluster_entry() { retention = 30 * seconds_per_day; }

  cluster_kind kind = cluster_kind::simulated;
  msg::cluster_info info;  ///< name, cpus, pp, bunch, tz_offset, os, features, ...
  cost_model cost = *cost_model::create(1.0, 3600, {}, 0);
  /// Names of the LRMS reservations arbroker makes: this prefix, then a number. "": the one
  /// the store claimed for the cluster, or "arb-<node id>-" on a new store.
  std::string name_prefix;
  std::vector<simulated_job> local_jobs;  ///< simulated only
  std::string batch_system;               ///< batch only: "slurm", "gridengine", ...
  batch_system_settings batch;            ///< batch only: how to reach it
  /// remote only: the agent's address ("host:port") and its certificate's common name.
  std::string agent;
  std::string agent_name;
};

/// `[agent]`: the node serves its own clusters to broker nodes in other processes (what
/// arb-agent runs): mutual TLS, only the listed brokers (their certificates' names).
struct agent_entry {
  std::string listen;  ///< host:port
  std::string name;    ///< its certificate's common name ("": the node's name)
  std::string certificate, private_key;
  std::string broker_ca;             ///< the CA that signs the brokers' certificates
  std::vector<std::string> brokers;  ///< who may connect
  /// Brokers that may act on every broker's reservations and jobs (the others reach only
  /// what they made); they may connect without being in `brokers`.
  std::vector<std::string> admin_brokers;
  bool allow_plaintext = false;  ///< without TLS, on loopback only (tests, demos)
  duration opening = 5;          ///< TLS handshake + hello, at most
  duration silence = 30;         ///< a broker that says nothing this long is cut
};

/// `[remote]`: how the node reaches agents (its clusters with `agent = ...`): its identity as
/// a broker, the agents' CA, and the deadlines of the link and of each call.
struct remote_entry {
  std::string certificate, private_key;  ///< this node's (its common name: the node's name)
  std::string agent_ca;                  ///< the CA that signs the agents' certificates
  bool allow_plaintext = false;          ///< without TLS, to loopback agents only
  double call_timeout = 10;              ///< seconds: an unanswered call gets `timeout`
  double heartbeat = 1;                  ///< seconds between pings on an idle link
  double silence = 5;                    ///< seconds without a word: the link is dead
};

/// A named broker instance of the node (paper 000, Sec. 2.2: "multiple GRS instances, e.g.
/// per user, per virtual organization"), with its own defaults for the requests it serves:
/// those of the users it lists, else of the users of its VO; one instance with neither
/// serves everyone else.
struct broker_entry {
  std::string name = "default";
  std::string vo;                  ///< serves the users of this VO ("" = none by VO)
  std::vector<std::string> users;  ///< serves these users (before any VO rule)
  double esr_threshold = -1;       ///< applied when a request gives none (< 0: no filter)
  duration hold_seconds = 120;
  duration prepare_expiry = 30;
  duration request_timeout = 30;
  int max_tries = 64;
  int selection_window = 0;  ///< paper 002: clusters passed to the matchmaker (0: all)
};

/// The keys a `[[cluster]]` table of a local cluster may have (one an agent serves has its
/// own: docs/config.md): its description and how to reach it, then policy_fields().
std::vector<std::string_view> cluster_keys();

struct node_config {
  std::string name = "arbd";
  /// The node's identity, in the names of its reservations in every LRMS ("arb-<id>-<n>")
  /// unless a cluster names its own prefix. "": the store's, or a new random one kept there.
  std::string id;
  /// Take over reservations under this node's prefixes that another node made (or that a
  /// lost store knew) instead of refusing to start (`arbd --adopt`; not read from TOML).
  bool adopt = false;
  std::string listen = "127.0.0.1:7400";  ///< network API
  /// [tls]: the API's certificate chain and key (PEM); with client_ca, clients must present a
  /// certificate it signed whose common name is their user name.
  std::string tls_certificate, tls_private_key, tls_client_ca;
  /// Without [tls], the API speaks plain text only if this is set, and only on loopback.
  bool allow_plaintext = false;
  std::string metrics_listen = "127.0.0.1:9464";  ///< Prometheus /metrics ("" = off)
  /// The HTTP/JSON API ("" = off): same users, operations and [tls] as `listen`.
  std::string http_listen;
  /// GET /metrics on the HTTP port too (no login, as on the metrics port).
  bool http_metrics = true;
  /// The web console (docs/console.md) on the HTTP port, at /console/ (GET / leads there).
  bool console = true;
  std::string data_dir = "arbd-data";  ///< SQLite store ("" = keep nothing)
  /// The store in a PostgreSQL database instead of data_dir's SQLite file: its libpq URI
  /// ("postgresql://arb@db.example.org/arb"); "" = the SQLite file.
  std::string store;
  /// Several nodes on one PostgreSQL store, one serving (docs/operations.md, "Two nodes, one
  /// store"): the term of the store's lease in seconds (0: no lease, this node alone). A node
  /// waits as a standby until it holds the lease and stops when it cannot keep it.
  duration lease = 0;
  /// Where clients reach this node's API and its HTTP API, told to others through the lease
  /// and by standbys to clients ("": `listen` and `http`, with the ports bound; required
  /// with a lease when those are wildcard addresses).
  std::string advertise;
  std::string advertise_http;
  /// Set by arbd once it holds the lease (not read from a file): the epoch its store's
  /// writes are fenced by.
  std::uint64_t lease_epoch = 0;
  /// "full": every acknowledgement is on disk (survives a power cut); "normal": in the OS or
  /// with the database server (survives kill -9 only). See store/include/arbroker/store/store.hpp.
  std::string durability = "full";
  std::string log_level = "info";  ///< trace, debug, info, warn, error, off
  bool audit = true;        ///< one log line per request and per refused login, at any log level
  std::size_t threads = 2;  ///< CAF worker threads

  /// Named broker instances (`[[broker]]`); empty: the one below.
  std::vector<broker_entry> brokers;
  /// `[broker]`: the node's one instance, "default", serving everyone (without [[broker]]).
  broker_entry broker;

  // Grid jobs (actors/grid_jobs.hpp).
  duration job_poll_interval = 10;      ///< how often the LRMSs are asked about copies
  duration adaptation_interval = 60;    ///< how often queued adaptive jobs are re-evaluated
  duration default_min_gain = 0;        ///< adaptive jobs that name none (paper: any gain)
  int default_max_migrations = -1;      ///< adaptive jobs that name none (-1: unbounded)
  double migration_share = 0.1;         ///< of the jobs a round evaluates, at most so many move
  int default_max_resubmits = 2;        ///< jobs that name none: placements again after losses
  duration lost_after = 300;            ///< a cluster unreachable this long loses its copies
  bool reserve_finish_eq7 = false;      ///< reserve jobs keep holds by eq. 7 as printed
  duration job_retention = 30 * 86400;  ///< ended grid jobs stay in the store this long

  // Watches (docs/watch.md): events stay in the store this long (a watcher may resume within
  // it); the node keeps the newest `watch_buffer` in memory, and a watcher that falls further
  // behind is cut off (slow_consumer); at most `max_watchers` at once (more: busy).
  duration watch_keep = 86400;
  std::size_t watch_buffer = 10000;
  std::size_t max_watchers = 2000;

  // Network limits per connection.
  std::size_t max_frame_bytes = 1 << 20;
  std::size_t max_in_flight = 64;
  std::size_t max_connections = 1024;  ///< further connections are refused (`busy`) and closed
  duration handshake_timeout = 10;
  duration shutdown_grace = 10;  ///< in-flight requests may finish this long on SIGTERM

  std::vector<user_entry> users;
  std::vector<cluster_entry> clusters;

  std::optional<agent_entry> agent;  ///< set: serve the local clusters to other nodes
  remote_entry remote;               ///< for the clusters of kind remote
};

/// The node a bare `arbd` starts: three simulated clusters with some local work, users
/// alice, bob (tokens "alice-secret", "bob-secret") and admin ("admin-secret"), listening on
/// loopback only. For trying arbroker out, never for production.
node_config default_node_config();

/// Reads a node configuration; errors name the file and the key ("cluster[1].cpus: ...").
/// Every value is checked (names unique and without '/', positive sizes, known kinds,
/// non-empty tokens, addresses of the form host:port).
result<node_config> load_node_config(const std::string& path);
result<node_config> parse_node_config(std::string_view toml_text, const std::string& origin);

/// The store's database file in `cfg.data_dir` ("" when nothing persists).
std::string store_file(const node_config& cfg);

/// Checks a configuration built in code the same way.
status validate(const node_config& cfg);

/// What a daemon's command line (arbd, arb-agent) sets over its configuration file; what is
/// unset stays as the file says.
struct node_config_overrides {
  std::optional<std::string> listen, metrics_listen, http_listen, data_dir, store, log_level;
  std::optional<duration> lease;
  bool adopt = false;
};

/// A configuration as read (or its error) with `over` applied, then checked as validate does.
result<node_config> with_overrides(result<node_config> cfg, const node_config_overrides& over);

/// The node's broker instances: cfg.brokers, or the one "default" instance of [broker].
std::vector<broker_entry> broker_instances(const node_config& cfg);

/// Which instance serves `user`: the one that lists the user, else the one of the user's VO
/// ([[user]] vo), else the one with neither; nothing when none does.
std::optional<std::size_t> instance_for(const std::vector<broker_entry>& instances,
                                        const std::vector<user_entry>& users,
                                        const std::string& user);

/// instance_for over a whole config, worked out once: for every user the config names, and
/// the catch-all (if any) for anyone else. What a node asks per request.
class broker_routes {
 public:
  broker_routes() = default;
  explicit broker_routes(const node_config& cfg);
  const std::vector<broker_entry>& instances() const noexcept { return instances_; }
  /// The index in instances() of the one that serves `user`; nothing when none does.
  std::optional<std::size_t> of(const std::string& user) const;

 private:
  std::vector<broker_entry> instances_;
  std::unordered_map<std::string, std::size_t> by_user_;
  std::optional<std::size_t> catch_all_;
};

/// What arbd checks before it serves: TLS configured, or plain text explicitly allowed and
/// `listen` on a loopback address (127.0.0.0/8, ::1). Separate from validate(), which
/// engines embedded without the API also use.
status check_api_transport(const node_config& cfg);

/// "host:port" split; invalid_parameter unless the port is 1..65535 (0 allowed if
/// allow_any_port, for tests that let the OS choose).
result<std::pair<std::string, unsigned short>> parse_endpoint(const std::string& text,
                                                              bool allow_any_port = true);

}  // namespace arbroker
