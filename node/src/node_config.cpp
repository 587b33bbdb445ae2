#include "arbroker/node/node_config.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "arbroker/api/validate.hpp"
#include "arbroker/config/toml_fields.hpp"
#include "arbroker/core/grid_job.hpp"
#include "arbroker/store/store.hpp"
#include "config_reading.hpp"
#include "remote_config.hpp"

namespace arbroker {
namespace {

using namespace detail::reading;

// Text that may be part of a name in every LRMS (Slurm reservations, Grid Engine ARs).
bool name_like(const std::string& s, std::size_t max) {
  return !s.empty() && s.size() <= max && std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_' || ch == '.';
  });
}

}  // namespace

std::vector<std::string_view> cluster_keys() {
  std::vector<std::string_view> keys = {
      "name",        "kind",           "cpus",      "pp",           "bunch",
      "counts",      "tz_offset",      "os",        "features",     "allowed_users",
      "name_prefix", "base_unit_cost", "base_unit", "day_rates",    "agreements",
      "local_jobs",  "slurm_conf",     "partition", "sge_root",     "sge_cell",
      "pe",          "benchmarks",     "bandwidth", "max_walltime", "nodes"};
  for (const auto& f : policy_fields())
    keys.push_back(f.key);
  return keys;
}

namespace {

// Memory of a node: MiB as an integer, or Slurm's words ("16G").
status read_memory(const toml::table& t, const std::string& path, std::int64_t& out) {
  if (!t.contains("memory")) return {};
  auto node = t["memory"];
  if (auto n = node.value<std::int64_t>(); n && node.is_integer()) {
    if (*n < 0 || *n > max_memory_mib)
      return bad(path + ".memory", "expected MiB in 0.." + std::to_string(max_memory_mib));
    out = *n;
    return {};
  }
  auto text = node.value<std::string>();
  if (!text) return bad(path + ".memory", "expected MiB (16384) or a size (\"16G\")");
  auto mib = parse_memory_mib(*text);
  if (!mib) return bad(path + ".memory", mib.err().message);
  out = *mib;
  return {};
}

// [[cluster.nodes]]: the cluster's nodes, grouped alike (core/job_requirements.hpp).
status read_nodes(const toml::table& t, const std::string& path, std::vector<node_group>& out) {
  if (!t.contains("nodes")) return {};
  auto* arr = t["nodes"].as_array();
  if (!arr) return bad(path + ".nodes", "expected [[cluster.nodes]] tables");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string p = path + ".nodes[" + std::to_string(i) + "]";
    auto* n = arr->get(i)->as_table();
    if (!n) return bad(p, "expected a table {count, cpus, memory, features}");
    ARB_TRY(only_known_keys(*n, p, {"count", "cpus", "memory", "features"}));
    node_group g;
    ARB_TRY(optional(*n, p, "count", g.count, as_int));
    if (!n->contains("cpus")) return bad(p + ".cpus", "missing: the CPUs of each node");
    ARB_TRY(optional(*n, p, "cpus", g.cpus, as_int));
    if (g.count < 1 || g.cpus < 1) return bad(p, "count and cpus must be at least 1");
    ARB_TRY(read_memory(*n, p, g.memory));
    auto features = strings(*n, p, "features");
    if (!features) return features.err();
    g.features = std::move(*features);
    if (auto ok = check(job_requirements{0, 0, g.features, {}}); !ok)
      return bad(p + ".features", ok.err().message);
    out.push_back(std::move(g));
  }
  return {};
}

// The site's policy for one cluster's service: every key of cluster_policy (policy_fields).
status read_policy(const toml::table& t, const std::string& path, cluster_policy& p) {
  for (const auto& f : policy_fields()) {
    const char* key = f.key.data();
    auto ok = std::visit(
        [&](auto* v) -> status {
          using T = std::remove_pointer_t<decltype(v)>;
          if constexpr (std::is_same_v<T, duration>) return optional(t, path, key, *v, as_span);
          if constexpr (std::is_same_v<T, double>) return optional(t, path, key, *v, as_number);
          if constexpr (std::is_same_v<T, int>) return optional(t, path, key, *v, as_int);
          if constexpr (std::is_same_v<T, bool>) return optional(t, path, key, *v, as_bool);
          if constexpr (std::is_same_v<T, ljp_policy>)
            return optional_choice(t, path, key, *v, ljp_policy_from, "enforce, default, off");
          if constexpr (std::is_same_v<T, ljp_method>)
            return optional_choice(t, path, key, *v, ljp_method_from, "ese, twkl");
          if constexpr (std::is_same_v<T, job_end_policy>)
            return optional_choice(t, path, key, *v, job_end_policy_from, "keep, release");
        },
        f.of(p));
    if (!ok) return ok;
  }
  return {};
}

result<cluster_entry> read_cluster(const toml::table& t, const std::string& path) {
  if (t.contains("agent")) return detail::read_remote_cluster(t, path);
  ARB_TRY(only_known_keys(t, path, cluster_keys()));
  cluster_entry c;
  auto name = config::text(at(t, path, "name"));
  if (!name) return name.err();
  c.info.name = *name;
  std::string kind = "simulated";
  ARB_TRY(optional(t, path, "kind", kind, as_text));
  const batch_system* system_of = nullptr;
  if (kind != "simulated") {
    auto system = find_batch_system(kind);
    if (!system) {
      if (system.err().code != errc::not_found) return bad(path + ".kind", system.err().message);
      std::string kinds = "simulated";
      for (const auto& b : batch_systems())
        kinds += ", " + std::string(b.name);
      return bad(path + ".kind", "'" + kind + "' is not one of " + kinds);
    }
    c.kind = cluster_kind::batch;
    c.batch_system = kind;
    system_of = *system;
  }
  if (c.kind == cluster_kind::simulated || t.contains("cpus")) {
    auto cpus = config::integer(at(t, path, "cpus"));
    if (!cpus) return cpus.err();
    c.info.cpus = *cpus;
  }
  ARB_TRY(optional(t, path, "pp", c.info.pp, as_number));
  ARB_TRY(optional(t, path, "bunch", c.info.bunch, as_int));
  if (t.contains("counts")) {
    auto* arr = t["counts"].as_array();
    if (!arr) return bad(path + ".counts", "expected an array of CPU counts");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      auto v = arr->get(i)->value<std::int64_t>();
      if (!v || *v < 1 || *v > INT32_MAX)
        return bad(path + ".counts[" + std::to_string(i) + "]", "expected a positive integer");
      c.info.counts.push_back(static_cast<std::int32_t>(*v));
    }
  }
  if (t.contains("tz_offset")) {
    auto v = config::span_of(at(t, path, "tz_offset"), true);
    if (!v) return v.err();
    c.info.tz_offset = *v;
  }
  ARB_TRY(optional(t, path, "os", c.info.os, as_text));
  auto features = strings(t, path, "features");
  if (!features) return features.err();
  c.info.features = std::move(*features);
  auto allowed = strings(t, path, "allowed_users");
  if (!allowed) return allowed.err();
  c.info.allowed_users = std::move(*allowed);
  if (t.contains("benchmarks")) {
    auto* b = t["benchmarks"].as_table();
    if (!b) return bad(path + ".benchmarks", "expected a table {name = result}");
    for (const auto& [key, value] : *b) {
      auto v = value.value<double>();
      if (!v || !(*v > 0) || *v > 1e300)
        return bad(path + ".benchmarks." + std::string(key.str()),
                   "expected a positive benchmark result");
      c.info.benchmark_names.emplace_back(key.str());
      c.info.benchmark_results.push_back(*v);
    }
  }
  ARB_TRY(optional(t, path, "bandwidth", c.info.bandwidth, as_number));
  ARB_TRY(optional(t, path, "max_walltime", c.info.max_walltime, as_span));
  ARB_TRY(read_nodes(t, path, c.info.nodes));
  if (!(c.info.bandwidth >= 0) || c.info.bandwidth > 1e300)
    return bad(path + ".bandwidth", "expected bytes per second >= 0");
  ARB_TRY(read_policy(t, path, c));
  ARB_TRY(optional(t, path, "name_prefix", c.name_prefix, as_text));
  if (t.contains("name_prefix") && c.name_prefix.empty())
    return bad(path + ".name_prefix", "must not be empty (leave it out for the node's own)");
  if (c.overrun_quantum < 0) return bad(path + ".overrun_quantum", "expected a duration >= 0");
  if (c.overrun_notice < 1) return bad(path + ".overrun_notice", "expected a duration >= 1 s");
  if (c.overrun_max < 0) return bad(path + ".overrun_max", "expected a count >= 0");
  auto cost = config::cost_of(t, path);
  if (!cost) return cost.err();
  c.cost = std::move(*cost);
  if (t.contains("local_jobs")) {
    if (c.kind != cluster_kind::simulated)
      return bad(path + ".local_jobs", "only a simulated cluster has configured local jobs");
    auto* arr = t["local_jobs"].as_array();
    if (!arr) return bad(path + ".local_jobs", "expected an array of {np, walltime, runtime}");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string jp = path + ".local_jobs[" + std::to_string(i) + "]";
      auto* j = arr->get(i)->as_table();
      if (!j) return bad(jp, "expected a table {np, walltime, runtime}");
      ARB_TRY(only_known_keys(*j, jp, {"np", "walltime", "runtime"}));
      simulated_job job;
      auto np = config::integer(at(*j, jp, "np"));
      if (!np) return np.err();
      job.np = *np;
      auto wall = config::span_of(at(*j, jp, "walltime"));
      if (!wall) return wall.err();
      job.walltime = *wall;
      job.runtime = job.walltime;
      ARB_TRY(optional(*j, jp, "runtime", job.runtime, as_span));
      if (job.np < 1 || job.np > c.info.cpus) return bad(jp + ".np", "must be in [1, cpus]");
      if (job.walltime <= 0 || job.runtime <= 0)
        return bad(jp, "walltime and runtime must be positive");
      c.local_jobs.push_back(job);
    }
  }
  ARB_TRY(optional(t, path, "slurm_conf", c.batch.slurm_conf, as_text));
  ARB_TRY(optional(t, path, "partition", c.batch.partition, as_text));
  ARB_TRY(optional(t, path, "sge_root", c.batch.sge_root, as_text));
  ARB_TRY(optional(t, path, "sge_cell", c.batch.sge_cell, as_text));
  ARB_TRY(optional(t, path, "pe", c.batch.pe, as_text));
  if (system_of)
    if (auto problem = system_of->check(c.batch))
      return bad(path + "." + problem->key, problem->message);
  return c;
}

}  // namespace

result<std::pair<std::string, unsigned short>> parse_endpoint(const std::string& text,
                                                              bool allow_any_port) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return fail(errc::invalid_parameter, "'" + text + "' is not host:port");
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return fail(errc::invalid_parameter, "'" + text + "': port must be a number");
  const int p = std::stoi(port);
  if (p > 65535 || (p == 0 && !allow_any_port))
    return fail(errc::invalid_parameter, "'" + text + "': port must be in 1..65535");
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);  // [::1]:7400
  return std::pair{host, static_cast<unsigned short>(p)};
}

std::string store_file(const node_config& cfg) {
  if (cfg.data_dir.empty()) return {};
  return (std::filesystem::path(cfg.data_dir) / "arbroker.db").string();
}

namespace {

/// 0.0.0.0 or :: (any address): not where a client can be sent.
bool is_wildcard_endpoint(const std::string& listen) {
  auto ep = parse_endpoint(listen);
  return ep && (ep->first == "0.0.0.0" || ep->first == "::" || ep->first.empty());
}

status validate_broker(const broker_entry& b, const std::string& p) {
  if (b.hold_seconds <= 0 || b.prepare_expiry <= 0 || b.request_timeout <= 0)
    return bad(p, "hold, prepare_expiry and request_timeout must be positive");
  if (b.esr_threshold > 1) return bad(p + ".esr_threshold", "must be at most 1");
  if (b.max_tries < 1) return bad(p + ".max_tries", "must be at least 1");
  if (b.selection_window < 0)
    return bad(p + ".selection_window", "must be >= 0 (0: every cluster)");
  return {};
}

// Each instance valid, names unique, and every user served by one rule at most: a user in
// one list, a VO to one instance, one instance for everyone else.
status validate_brokers(const node_config& cfg) {
  if (cfg.brokers.empty()) return validate_broker(cfg.broker, "broker");
  std::set<std::string> names, vos, listed;
  bool catch_all = false;
  for (std::size_t i = 0; i < cfg.brokers.size(); ++i) {
    const auto& b = cfg.brokers[i];
    const std::string p = "broker[" + std::to_string(i) + "]";
    if (auto ok = validate_broker(b, p); !ok) return ok;
    if (b.name.empty()) return bad(p + ".name", "must not be empty");
    if (!names.insert(b.name).second) return bad(p + ".name", "'" + b.name + "' appears twice");
    if (!b.vo.empty() && !vos.insert(b.vo).second)
      return bad(p + ".vo", "VO '" + b.vo + "' is served by another instance already");
    for (const auto& u : b.users)
      if (u.empty())
        return bad(p + ".users", "names must not be empty");
      else if (!listed.insert(u).second)
        return bad(p + ".users", "user '" + u + "' is listed by another instance already");
    if (b.vo.empty() && b.users.empty()) {
      if (catch_all)
        return bad(p, "a second instance without vo or users (only one serves everyone else)");
      catch_all = true;
    }
  }
  return {};
}

}  // namespace

std::vector<broker_entry> broker_instances(const node_config& cfg) {
  return cfg.brokers.empty() ? std::vector<broker_entry>{cfg.broker} : cfg.brokers;
}

std::optional<std::size_t> instance_for(const std::vector<broker_entry>& instances,
                                        const std::vector<user_entry>& users,
                                        const std::string& user) {
  for (std::size_t i = 0; i < instances.size(); ++i)
    if (std::find(instances[i].users.begin(), instances[i].users.end(), user) !=
        instances[i].users.end())
      return i;
  auto u =
      std::find_if(users.begin(), users.end(), [&](const user_entry& e) { return e.name == user; });
  if (u != users.end() && !u->vo.empty())
    for (std::size_t i = 0; i < instances.size(); ++i)
      if (instances[i].vo == u->vo) return i;
  for (std::size_t i = 0; i < instances.size(); ++i)
    if (instances[i].vo.empty() && instances[i].users.empty()) return i;
  return std::nullopt;
}

broker_routes::broker_routes(const node_config& cfg) : instances_(broker_instances(cfg)) {
  catch_all_ = instance_for(instances_, {}, "");  // no name, no VO: the catch-all
  auto route = [&](const std::string& user) {
    if (auto i = instance_for(instances_, cfg.users, user)) by_user_.emplace(user, *i);
  };
  for (const auto& u : cfg.users)
    route(u.name);
  for (const auto& b : instances_)
    for (const auto& u : b.users)
      route(u);
}

std::optional<std::size_t> broker_routes::of(const std::string& user) const {
  auto it = by_user_.find(user);
  return it != by_user_.end() ? std::optional<std::size_t>(it->second) : catch_all_;
}

result<node_config> with_overrides(result<node_config> cfg, const node_config_overrides& over) {
  if (!cfg) return cfg;
  if (over.listen) cfg->listen = *over.listen;
  if (over.metrics_listen) cfg->metrics_listen = *over.metrics_listen;
  if (over.http_listen) cfg->http_listen = *over.http_listen;
  if (over.data_dir) cfg->data_dir = *over.data_dir;
  if (over.store) cfg->store = *over.store;
  if (over.lease) cfg->lease = *over.lease;
  if (over.log_level) cfg->log_level = *over.log_level;
  cfg->adopt = over.adopt;
  if (auto ok = validate(*cfg); !ok) return ok.err();
  return cfg;
}

status validate(const node_config& cfg) {
  if (cfg.name.empty()) return fail(errc::invalid_parameter, "node.name: must not be empty");
  if (!cfg.id.empty() &&
      (cfg.id.size() > 16 || !std::all_of(cfg.id.begin(), cfg.id.end(), [](char ch) {
         return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
       })))
    return bad("node.id", "must be 1-16 lowercase letters and digits (it is in LRMS names)");
  if (auto ok = parse_endpoint(cfg.listen); !ok) return bad("node.listen", ok.err().message);
  if (!cfg.metrics_listen.empty())
    if (auto ok = parse_endpoint(cfg.metrics_listen); !ok)
      return bad("node.metrics", ok.err().message);
  if (!cfg.http_listen.empty())
    if (auto ok = parse_endpoint(cfg.http_listen); !ok) return bad("node.http", ok.err().message);
  static const std::set<std::string> levels{"trace", "debug", "info", "warn", "error", "off"};
  if (!levels.count(cfg.log_level))
    return bad("node.log_level",
               "'" + cfg.log_level + "' is not one of trace, debug, info, warn, error, off");
  if (cfg.threads < 1 || cfg.threads > 64) return bad("node.threads", "must be in 1..64");
  if (cfg.durability != "full" && cfg.durability != "normal")
    return bad("node.durability", "'" + cfg.durability + "' is not one of full, normal");
  if (!cfg.store.empty() && !is_postgresql_uri(cfg.store))
    return bad("node.store", "'" + redact_uri(cfg.store) +
                                 "' is not a PostgreSQL URI (postgresql://...); leave it out for "
                                 "the SQLite file in data_dir");
  if (!cfg.store.empty() && !postgresql_store_built()) return bad("node.store", no_postgresql);
  if (cfg.lease < 0 || cfg.lease > 3600) return bad("node.lease", "must be in 0s..1h");
  if (cfg.lease > 0 && cfg.lease < 3)
    return bad("node.lease", "must be 3 s or more (it is renewed every third of it)");
  if (cfg.lease > 0 && cfg.store.empty())
    return bad("node.lease",
               "needs a store shared by the nodes: set node.store to a PostgreSQL URI");
  if (!cfg.advertise.empty())
    if (auto ok = parse_endpoint(cfg.advertise, false); !ok)
      return bad("node.advertise", ok.err().message);
  if (!cfg.advertise_http.empty())
    if (auto ok = parse_endpoint(cfg.advertise_http, false); !ok)
      return bad("node.advertise_http", ok.err().message);
  if (cfg.lease > 0 && cfg.advertise.empty() && is_wildcard_endpoint(cfg.listen))
    return bad("node.advertise", "node.listen '" + cfg.listen +
                                     "' is a wildcard address: with a lease, say where clients "
                                     "reach this node (host:port)");
  if (cfg.lease > 0 && cfg.advertise_http.empty() && !cfg.http_listen.empty() &&
      is_wildcard_endpoint(cfg.http_listen))
    return bad("node.advertise_http", "node.http '" + cfg.http_listen +
                                          "' is a wildcard address: with a lease, say where "
                                          "clients reach this node's HTTP API (host:port)");
  if (auto ok = validate_brokers(cfg); !ok) return ok;
  if (cfg.max_frame_bytes < 1024 || cfg.max_frame_bytes > (64u << 20))
    return bad("limits.max_frame_bytes", "must be in 1 KiB .. 64 MiB");
  if (cfg.max_in_flight < 1) return bad("limits.max_in_flight", "must be at least 1");
  if (cfg.max_connections < 1) return bad("limits.max_connections", "must be at least 1");
  if (cfg.handshake_timeout <= 0 || cfg.shutdown_grace < 0)
    return bad("limits", "handshake_timeout must be positive and shutdown_grace >= 0");
  std::set<std::string> users;
  for (std::size_t i = 0; i < cfg.users.size(); ++i) {
    const auto& u = cfg.users[i];
    const std::string p = "user[" + std::to_string(i) + "]";
    // The API's rule for user names: they travel in requests, and an agent scopes them per
    // broker ("<broker>:<user>", actors/broker_scope.hpp), so a ':' must not be in one.
    if (!api::valid_user_name(u.name))
      return bad(p + ".name", "'" + u.name +
                                  "' is not a user name (1..64 characters of A-Z a-z "
                                  "0-9 . _ @ -)");
    if (!u.token.empty() && !u.token_hash.empty())
      return bad(p, "give token or token_hash, not both");
    if (u.token_hash.empty() && u.token.size() < 8)
      return bad(p + ".token", "must be at least 8 characters (or give token_hash)");
    // The shipped example's placeholders (scripts/install.sh installs it): a node started with
    // them would let anyone who read the example in.
    if (u.token.starts_with("change-me"))
      return bad(p + ".token", "'" + u.token +
                                   "' is the example's placeholder: set a secret of your own "
                                   "(or a token_hash, `arbd --hash-token`)");
    // The full check is libsodium's, when the API server takes the table (arbd).
    if (!u.token_hash.empty() && u.token_hash.rfind("$argon2id$", 0) != 0)
      return bad(p + ".token_hash",
                 "must be an argon2id hash ('$argon2id$...', as `arbd --hash-token` prints)");
    if (!users.insert(u.name).second) return bad(p + ".name", "'" + u.name + "' appears twice");
  }
  if (cfg.clusters.empty()) return bad("cluster", "a node needs at least one cluster");
  if (cfg.job_poll_interval < 1 || cfg.adaptation_interval < 1)
    return bad("grid_jobs", "poll_interval and adaptation_interval must be at least 1 s");
  if (cfg.default_min_gain < 0) return bad("grid_jobs.min_gain", "must be >= 0");
  if (cfg.job_retention < 60) return bad("grid_jobs.retention", "must be at least 1 minute");
  if (cfg.watch_keep < 60) return bad("watch.keep", "must be at least 1 minute");
  if (cfg.watch_buffer < 100 || cfg.watch_buffer > 1000000)
    return bad("watch.buffer", "must be between 100 and 1000000 events");
  if (cfg.default_max_migrations < -1)
    return bad("grid_jobs.max_migrations", "must be >= -1 (-1: unbounded)");
  if (cfg.default_max_resubmits < 0 || cfg.default_max_resubmits > max_grid_placements)
    return bad("grid_jobs.max_resubmits",
               "must be between 0 and " + std::to_string(max_grid_placements));
  if (cfg.lost_after < 0) return bad("grid_jobs.lost_after", "must be >= 0");
  if (!(cfg.migration_share > 0 && cfg.migration_share <= 1))
    return bad("grid_jobs.migration_share", "must be a share above 0 and at most 1");
  std::set<std::string> names;
  for (std::size_t i = 0; i < cfg.clusters.size(); ++i) {
    const auto& c = cfg.clusters[i];
    const std::string p = "cluster[" + std::to_string(i) + "]";
    if (c.info.name.empty() || c.info.name.find('/') != std::string::npos)
      return bad(p + ".name", "must be non-empty and contain no '/'");
    if (!names.insert(c.info.name).second)
      return bad(p + ".name", "'" + c.info.name + "' appears twice");
    if (c.kind == cluster_kind::simulated && c.info.cpus < 1)
      return bad(p + ".cpus", "must be at least 1");
    if (c.kind == cluster_kind::simulated && !c.info.nodes.empty()) {
      std::int64_t sum = 0;
      for (const auto& g : c.info.nodes)
        sum += std::int64_t{g.count} * g.cpus;
      if (sum != c.info.cpus)
        return bad(p + ".nodes", "count x cpus add up to " + std::to_string(sum) +
                                     " CPUs, the cluster has " + std::to_string(c.info.cpus));
    }
    if (c.info.pp <= 0) return bad(p + ".pp", "must be positive");
    if (c.info.bunch < 1) return bad(p + ".bunch", "must be at least 1");
    if (c.refresh < 0 || c.max_hold <= 0)
      return bad(p, "refresh must be >= 0 and max_hold positive");
    if (c.full_refresh < 0) return bad(p + ".full_refresh", "must not be negative");
    if (c.retention < 0) return bad(p + ".retention", "must not be negative");
    if (c.esr_static_h <= 0) return bad(p + ".esr_static_h", "must be positive");
    if (c.info.max_walltime < 0) return bad(p + ".max_walltime", "must not be negative");
    if (c.history_delta <= 0) return bad(p + ".esr_history_interval", "must be positive");
    for (auto [key, v] : {std::pair{".acc_r", c.load.acc_r}, std::pair{".acc_w", c.load.acc_w}})
      if (!(v >= 0) || v > 1e6) return bad(p + key, "must be a finite number >= 0");
    if (!c.name_prefix.empty() && !name_like(c.name_prefix, 32))
      return bad(p + ".name_prefix", "must be at most 32 letters, digits, '-', '_' or '.'");
  }
  return detail::validate_remote(cfg);
}

namespace {

// The defaults a broker applies to the requests it serves, from [broker] or a [[broker]].
status read_broker_defaults(const toml::table& t, const std::string& p, broker_entry& b) {
  ARB_TRY(optional(t, p, "esr_threshold", b.esr_threshold, as_number));
  ARB_TRY(optional(t, p, "hold", b.hold_seconds, as_span));
  ARB_TRY(optional(t, p, "prepare_expiry", b.prepare_expiry, as_span));
  ARB_TRY(optional(t, p, "request_timeout", b.request_timeout, as_span));
  ARB_TRY(optional(t, p, "max_tries", b.max_tries, as_int));
  ARB_TRY(optional(t, p, "selection_window", b.selection_window, as_int));
  return {};
}

result<node_config> from_table(const toml::table& root) {
  node_config cfg;
  ARB_TRY(only_known_keys(root, "",
                          {"node", "tls", "broker", "grid_jobs", "watch", "limits", "user",
                           "cluster", "agent", "remote"}));
  ARB_TRY(detail::read_agent(root, cfg));
  ARB_TRY(detail::read_remote(root, cfg));
  if (auto* n = root["node"].as_table()) {
    ARB_TRY(only_known_keys(*n, "node",
                            {"name", "id", "listen", "allow_plaintext", "metrics", "http",
                             "http_metrics", "console", "data_dir", "store", "lease", "advertise",
                             "advertise_http", "durability", "log_level", "audit", "threads"}));
    ARB_TRY(optional(*n, "node", "name", cfg.name, as_text));
    ARB_TRY(optional(*n, "node", "id", cfg.id, as_text));
    if (n->contains("id") && cfg.id.empty())
      return bad("node.id", "must not be empty (leave it out for a generated one)");
    ARB_TRY(optional(*n, "node", "allow_plaintext", cfg.allow_plaintext, as_bool));
    ARB_TRY(optional(*n, "node", "listen", cfg.listen, as_text));
    ARB_TRY(optional(*n, "node", "metrics", cfg.metrics_listen, as_text));
    ARB_TRY(optional(*n, "node", "http", cfg.http_listen, as_text));
    ARB_TRY(optional(*n, "node", "http_metrics", cfg.http_metrics, as_bool));
    ARB_TRY(optional(*n, "node", "console", cfg.console, as_bool));
    ARB_TRY(optional(*n, "node", "data_dir", cfg.data_dir, as_text));
    ARB_TRY(optional(*n, "node", "store", cfg.store, as_text));
    ARB_TRY(optional(*n, "node", "lease", cfg.lease, as_span));
    ARB_TRY(optional(*n, "node", "advertise", cfg.advertise, as_text));
    ARB_TRY(optional(*n, "node", "advertise_http", cfg.advertise_http, as_text));
    ARB_TRY(optional(*n, "node", "durability", cfg.durability, as_text));
    ARB_TRY(optional(*n, "node", "log_level", cfg.log_level, as_text));
    ARB_TRY(optional(*n, "node", "audit", cfg.audit, as_bool));
    int threads = static_cast<int>(cfg.threads);
    ARB_TRY(optional(*n, "node", "threads", threads, as_int));
    if (threads < 1) return bad("node.threads", "must be in 1..64");
    cfg.threads = static_cast<std::size_t>(threads);
  }
  if (auto* t = root["tls"].as_table()) {
    ARB_TRY(only_known_keys(*t, "tls", {"certificate", "private_key", "client_ca"}));
    ARB_TRY(optional(*t, "tls", "certificate", cfg.tls_certificate, as_text));
    ARB_TRY(optional(*t, "tls", "private_key", cfg.tls_private_key, as_text));
    ARB_TRY(optional(*t, "tls", "client_ca", cfg.tls_client_ca, as_text));
    if (cfg.tls_certificate.empty() || cfg.tls_private_key.empty())
      return bad("tls", "needs certificate and private_key");
  } else if (root.contains("tls")) {
    return bad("tls", "expected a table");
  }
  // [broker]: the defaults of the node's one broker; [[broker]]: named instances.
  if (auto* b = root["broker"].as_table()) {
    ARB_TRY(only_known_keys(*b, "broker",
                            {"esr_threshold", "hold", "prepare_expiry", "request_timeout",
                             "max_tries", "selection_window"}));
    ARB_TRY(read_broker_defaults(*b, "broker", cfg.broker));
  } else if (auto* arr = root["broker"].as_array()) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string p = "broker[" + std::to_string(i) + "]";
      auto* t = arr->get(i)->as_table();
      if (!t) return bad(p, "expected a table");
      ARB_TRY(only_known_keys(*t, p,
                              {"name", "vo", "users", "esr_threshold", "hold", "prepare_expiry",
                               "request_timeout", "max_tries", "selection_window"}));
      broker_entry e;
      auto name = config::text(at(*t, p, "name"));
      if (!name) return name.err();
      e.name = *name;
      ARB_TRY(optional(*t, p, "vo", e.vo, as_text));
      auto users = strings(*t, p, "users");
      if (!users) return users.err();
      e.users = std::move(*users);
      ARB_TRY(read_broker_defaults(*t, p, e));
      cfg.brokers.push_back(std::move(e));
    }
  } else if (root.contains("broker")) {
    return bad("broker", "expected a [broker] table or [[broker]] tables");
  }
  if (auto* g = root["grid_jobs"].as_table()) {
    ARB_TRY(only_known_keys(
        *g, "grid_jobs",
        {"poll_interval", "adaptation_interval", "min_gain", "max_migrations", "migration_share",
         "retention", "max_resubmits", "lost_after", "reserve_finish"}));
    ARB_TRY(optional(*g, "grid_jobs", "poll_interval", cfg.job_poll_interval, as_span));
    ARB_TRY(optional(*g, "grid_jobs", "adaptation_interval", cfg.adaptation_interval, as_span));
    ARB_TRY(optional(*g, "grid_jobs", "min_gain", cfg.default_min_gain, as_span));
    ARB_TRY(optional(*g, "grid_jobs", "max_migrations", cfg.default_max_migrations, as_int));
    ARB_TRY(optional(*g, "grid_jobs", "migration_share", cfg.migration_share, as_number));
    ARB_TRY(optional(*g, "grid_jobs", "retention", cfg.job_retention, as_span));
    ARB_TRY(optional(*g, "grid_jobs", "max_resubmits", cfg.default_max_resubmits, as_int));
    ARB_TRY(optional(*g, "grid_jobs", "lost_after", cfg.lost_after, as_span));
    std::string finish = "run";
    ARB_TRY(optional(*g, "grid_jobs", "reserve_finish", finish, as_text));
    if (finish != "run" && finish != "eq7")
      return bad("grid_jobs.reserve_finish", "'" + finish + "' is not one of run, eq7");
    cfg.reserve_finish_eq7 = finish == "eq7";
  }
  if (auto* w = root["watch"].as_table()) {
    ARB_TRY(only_known_keys(*w, "watch", {"keep", "buffer", "max_watchers"}));
    ARB_TRY(optional(*w, "watch", "keep", cfg.watch_keep, as_span));
    int buffer = static_cast<int>(cfg.watch_buffer);
    int watchers = static_cast<int>(cfg.max_watchers);
    ARB_TRY(optional(*w, "watch", "buffer", buffer, as_int));
    ARB_TRY(optional(*w, "watch", "max_watchers", watchers, as_int));
    if (buffer < 0 || watchers < 0) return bad("watch", "sizes must not be negative");
    cfg.watch_buffer = static_cast<std::size_t>(buffer);
    cfg.max_watchers = static_cast<std::size_t>(watchers);
  }
  if (auto* l = root["limits"].as_table()) {
    ARB_TRY(only_known_keys(*l, "limits",
                            {"max_frame_bytes", "max_in_flight", "max_connections",
                             "handshake_timeout", "shutdown_grace"}));
    int frame = static_cast<int>(cfg.max_frame_bytes);
    int in_flight = static_cast<int>(cfg.max_in_flight);
    int connections = static_cast<int>(cfg.max_connections);
    ARB_TRY(optional(*l, "limits", "max_frame_bytes", frame, as_int));
    ARB_TRY(optional(*l, "limits", "max_in_flight", in_flight, as_int));
    ARB_TRY(optional(*l, "limits", "max_connections", connections, as_int));
    if (frame < 0 || in_flight < 0 || connections < 0)
      return bad("limits", "sizes must not be negative");
    cfg.max_frame_bytes = static_cast<std::size_t>(frame);
    cfg.max_in_flight = static_cast<std::size_t>(in_flight);
    cfg.max_connections = static_cast<std::size_t>(connections);
    ARB_TRY(optional(*l, "limits", "handshake_timeout", cfg.handshake_timeout, as_span));
    ARB_TRY(optional(*l, "limits", "shutdown_grace", cfg.shutdown_grace, as_span));
  }
  if (root.contains("user")) {
    auto* arr = root["user"].as_array();
    if (!arr) return bad("user", "expected [[user]] tables");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string p = "user[" + std::to_string(i) + "]";
      auto* u = arr->get(i)->as_table();
      if (!u) return bad(p, "expected a table {name, token or token_hash, admin}");
      ARB_TRY(only_known_keys(*u, p, {"name", "token", "token_hash", "admin", "vo"}));
      user_entry e;
      auto name = config::text(at(*u, p, "name"));
      if (!name) return name.err();
      e.name = *name;
      if (!u->contains("token") && !u->contains("token_hash"))
        return bad(p, "needs token or token_hash");
      ARB_TRY(optional(*u, p, "token", e.token, as_text));
      ARB_TRY(optional(*u, p, "token_hash", e.token_hash, as_text));
      ARB_TRY(optional(*u, p, "admin", e.admin, as_bool));
      ARB_TRY(optional(*u, p, "vo", e.vo, as_text));
      if (u->contains("vo") && e.vo.empty()) return bad(p + ".vo", "must not be empty");
      cfg.users.push_back(std::move(e));
    }
  }
  if (root.contains("cluster")) {
    auto* arr = root["cluster"].as_array();
    if (!arr) return bad("cluster", "expected [[cluster]] tables");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string p = "cluster[" + std::to_string(i) + "]";
      auto* c = arr->get(i)->as_table();
      if (!c) return bad(p, "expected a table");
      auto entry = read_cluster(*c, p);
      if (!entry) return entry.err();
      cfg.clusters.push_back(std::move(*entry));
    }
  }
  ARB_TRY(validate(cfg));
  return cfg;
}

result<node_config> located(result<node_config> cfg, const std::string& origin) {
  if (!cfg) return error{cfg.err().code, origin + ": " + cfg.err().message};
  return cfg;
}

}  // namespace

result<node_config> parse_node_config(std::string_view toml_text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    return fail(errc::invalid_parameter, origin + ":" + std::to_string(e.source().begin.line) +
                                             ": " + std::string(e.description()));
  }
  return located(from_table(root), origin);
}

result<node_config> load_node_config(const std::string& path) {
  auto parsed = config::parse_file(path);
  if (!parsed) return parsed.err();
  return located(from_table(*parsed), path);
}

status check_api_transport(const node_config& cfg) {
  if (!cfg.tls_certificate.empty()) return {};
  if (!cfg.allow_plaintext)
    return fail(errc::invalid_parameter,
                "the API has no [tls] (certificate, private_key): configure it, or set "
                "[node] allow_plaintext = true to serve plain text on loopback");
  for (const auto* listen : {&cfg.listen, &cfg.http_listen}) {
    if (listen->empty()) continue;  // no HTTP API
    auto ep = parse_endpoint(*listen);
    if (!ep) return ep.err();
    const auto& host = ep->first;
    boost::system::error_code ec;
    const auto addr = boost::asio::ip::make_address(host, ec);
    if (ec || !addr.is_loopback())
      return fail(errc::invalid_parameter,
                  "node.allow_plaintext: plain text is allowed on loopback only, not on '" + host +
                      "'; configure [tls] to listen there");
  }
  return {};
}

node_config default_node_config() {
  node_config cfg;
  cfg.allow_plaintext = true;  // loopback only, the demo tokens are public anyway
  cfg.http_listen = "127.0.0.1:7480";
  cfg.users = {{"alice", "alice-secret", false},
               {"bob", "bob-secret", false},
               {"admin", "admin-secret", true}};
  struct spec {
    const char* name;
    int cpus;
    double pp;
    int bunch;
    duration tz;
    double unit_cost;
    std::vector<std::string> benchmark_names;
    std::vector<double> benchmark_results;
    double bandwidth;  // bytes/s
    std::vector<node_group> nodes;
  };
  // Benchmarks and bandwidths for paper 003's runtime prediction and staging: potsdam has the
  // fastest linpack but publishes no stream result, boston the widest network.
  for (const auto& s : {spec{"berlin",
                             64,
                             1500,
                             4,
                             3600,
                             1.0,
                             {"linpack", "stream"},
                             {15, 40},
                             1e8,
                             {{4, 16, 65536, {"avx512", "ib"}}}},
                        spec{"potsdam",
                             32,
                             2000,
                             8,
                             3600,
                             1.6,
                             {"linpack"},
                             {20},
                             2e7,
                             {{2, 16, 262144, {"avx512"}}}},
                        spec{"boston",
                             128,
                             1000,
                             16,
                             -5 * 3600,
                             0.6,
                             {"linpack", "stream"},
                             {10, 10},
                             5e8,
                             {{6, 16, 32768, {}}, {2, 16, 32768, {"gpu"}}}}}) {
    cluster_entry c;
    c.info.name = s.name;
    c.info.cpus = s.cpus;
    c.info.pp = s.pp;
    c.info.bunch = s.bunch;
    c.info.tz_offset = s.tz;
    c.info.os = "linux";
    c.info.benchmark_names = s.benchmark_names;
    c.info.benchmark_results = s.benchmark_results;
    c.info.bandwidth = s.bandwidth;
    // Nodes for jobs' needs: InfiniBand only in berlin, large memory in potsdam, GPUs on two
    // of boston's.
    c.info.nodes = s.nodes;
    c.cost = *cost_model::create(s.unit_cost, 3600, {{0, 6 * 3600, 0.5}}, s.tz);
    // A quarter busy for two hours, half of it queued behind: reservations have to fit in.
    c.local_jobs = {{s.cpus / 4, 2 * 3600, 2 * 3600}, {s.cpus / 2, 3600, 3600}};
    cfg.clusters.push_back(std::move(c));
  }
  return cfg;
}

}  // namespace arbroker
