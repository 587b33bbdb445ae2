#include "config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "arbroker/actors/cluster_policy.hpp"
#include "arbroker/config/toml_fields.hpp"
#include "arbroker/core/preference.hpp"

namespace arbroker::simapp {
namespace {

// Raised by the readers below and turned into one error by load_experiment.
struct bad_key {
  std::string message;
};

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw bad_key{path + ": " + why};
}

// Table `t` at `path` knows only `known` (and, with_policy, every cluster policy key).
void only_known(const toml::table& t, const std::string& path, std::vector<std::string_view> known,
                bool with_policy = false) {
  if (with_policy)
    for (const auto& f : policy_fields())
      known.push_back(f.key);
  if (auto ok = config::only_known_keys(t, path, known); !ok) throw bad_key{ok.err().message};
}

std::string join(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

const toml::table& table(const toml::table& t, const std::string& parent, const char* key) {
  auto* sub = t.get_as<toml::table>(key);
  if (!sub) bad(join(parent, key), "expected a table");
  return *sub;
}

template <class T>
T get(const toml::table& t, const std::string& parent, const char* key, T fallback) {
  auto* node = t.get(key);
  if (!node) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto v = node->value<std::string>()) return *v;
    bad(join(parent, key), "expected a string");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (auto v = node->value<bool>()) return *v;
    bad(join(parent, key), "expected true or false");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto v = node->value<double>()) return *v;
    bad(join(parent, key), "expected a number");
  } else {
    auto v = node->value<std::int64_t>();
    if (!v || *v < 0) bad(join(parent, key), "expected a non-negative integer");
    return static_cast<T>(*v);
  }
}

std::vector<double> numbers(const toml::table& t, const std::string& parent, const char* key) {
  std::vector<double> out;
  auto* arr = t.get_as<toml::array>(key);
  if (!arr) bad(join(parent, key), "expected an array of numbers");
  for (const auto& n : *arr) {
    auto v = n.value<double>();
    if (!v) bad(join(parent, key), "expected an array of numbers");
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string> strings(const toml::table& t, const std::string& parent, const char* key) {
  std::vector<std::string> out;
  auto* arr = t.get_as<toml::array>(key);
  if (!arr) bad(join(parent, key), "expected an array of strings");
  for (const auto& n : *arr) {
    auto v = n.value<std::string>();
    if (!v) bad(join(parent, key), "expected an array of strings");
    out.push_back(*v);
  }
  return out;
}

std::pair<double, double> factor_pair(const toml::node& n, const std::string& path) {
  auto* arr = n.as_array();
  if (!arr || arr->size() != 2) bad(path, "expected [np_min_factor, np_max_factor]");
  auto a = (*arr)[0].value<double>();
  auto b = (*arr)[1].value<double>();
  if (!a || !b || !(*a > 0) || *a > *b) bad(path, "expected 0 < np_min_factor <= np_max_factor");
  return {*a, *b};
}

void check_esr(const std::string& esr, const std::string& path) {
  if (esr != "static" && esr != "history" && esr != "load")
    bad(path, "esr method '" + esr + "' is not static, history or load");
}

// Calls fn(table) for each table of the array of tables `key`; at least one is needed.
template <class Fn>
void for_each_table(const toml::table& root, const char* key, Fn fn) {
  auto* arr = root.get_as<toml::array>(key);
  const std::string why = std::string("expected an array of tables [[") + key + "]]";
  if (!arr || arr->empty()) bad(key, why);
  for (const auto& n : *arr) {
    auto* t = n.as_table();
    if (!t) bad(key, why);
    fn(*t);
  }
}

sim::walltime_rule walltime_rule_of(const std::string& rule, const std::string& path) {
  auto r = sim::parse_walltime_rule(rule);
  if (!r) bad(path, "'" + rule + "' is not kill or extend");
  return *r;
}

sim::soundness soundness_of(const std::string& rule, const std::string& path) {
  if (rule == "strict") return sim::soundness::strict;
  if (rule != "loose") bad(path, "'" + rule + "' is not strict or loose");
  return sim::soundness::loose;
}

grid_point point(const toml::table& t, const std::string& path, grid_point p) {
  p.book_ahead_h = get(t, path, "book_ahead_h", p.book_ahead_h);
  p.time_range_h = get(t, path, "time_range_h", p.time_range_h);
  p.esr = get(t, path, "esr", p.esr);
  check_esr(p.esr, path + ".esr");
  if (auto* f = t.get("np_factors"))
    std::tie(p.np_min_factor, p.np_max_factor) = factor_pair(*f, path + ".np_factors");
  if (p.book_ahead_h < 0 || p.time_range_h < 0) bad(path, "hours must be >= 0");
  return p;
}

workload_config workload(const toml::table& root) {
  const auto& t = table(root, "", "workload");
  workload_config w;
  w.source = get(t, "workload", "source", w.source);
  if (w.source == "swf") {
    w.trace = get(t, "workload", "trace", std::string());
    if (w.trace.empty()) bad("workload.trace", "a trace file is needed for source = \"swf\"");
  } else if (w.source != "lublin") {
    bad("workload.source", "'" + w.source + "' is not swf or lublin");
  }
  w.jobs = get<std::size_t>(t, "workload", "jobs", 0);
  w.rule =
      soundness_of(get(t, "workload", "soundness", std::string("strict")), "workload.soundness");
  w.walltime = walltime_rule_of(get(t, "workload", "walltime_rule", std::string("extend")),
                                "workload.walltime_rule");
  w.seed = get<std::uint64_t>(t, "workload", "seed", w.seed);
  w.model_procs = get<int>(t, "workload", "model_procs", 0);
  w.arrival_scale = get(t, "workload", "arrival_scale", w.arrival_scale);
  if (!(w.arrival_scale > 0) || !std::isfinite(w.arrival_scale))
    bad("workload.arrival_scale", "must be a number > 0");
  if (w.source == "lublin" && w.jobs == 0) bad("workload.jobs", "the model needs a job count");
  return w;
}

// The site's policy for the simulated clusters: every key of cluster_policy, as a node's
// `[[cluster]]` reads it (policy_fields; docs/config.md), over the experiment's defaults, from
// table `path` (errors name it).
void read_policy(const toml::table& t, const std::string& path, cluster_policy& p) {
  if (t.contains("history_delta"))
    bad(path + ".history_delta", "now esr_history_interval, as in a node's [[cluster]]");
  auto check = [](const auto& r) {
    if (!r) throw bad_key{r.err().message};
    return *r;
  };
  auto choice = [](const config::field& at, auto from, const char* choices) {
    auto text = config::text(at);
    if (!text) throw bad_key{text.err().message};
    auto v = from(*text);
    if (!v) bad(at.path, "'" + *text + "' is not one of " + choices);
    return *v;
  };
  for (const auto& f : policy_fields()) {
    const char* key = f.key.data();
    if (!t.contains(key)) continue;
    const auto at = config::at(t, path, key);
    std::visit(
        [&](auto* v) {
          using T = std::remove_pointer_t<decltype(v)>;
          if constexpr (std::is_same_v<T, duration>) *v = check(config::span_of(at));
          if constexpr (std::is_same_v<T, double>) *v = check(config::number(at));
          if constexpr (std::is_same_v<T, int>) *v = static_cast<int>(check(config::integer(at)));
          if constexpr (std::is_same_v<T, bool>) *v = check(config::boolean(at));
          if constexpr (std::is_same_v<T, ljp_policy>)
            *v = choice(at, ljp_policy_from, "enforce, default, off");
          if constexpr (std::is_same_v<T, ljp_method>)
            *v = choice(at, ljp_method_from, "ese, twkl");
          if constexpr (std::is_same_v<T, job_end_policy>)
            *v = choice(at, job_end_policy_from, "keep, release");
        },
        f.of(p));
  }
}

// [cluster], its policy keys over `policy` (the experiment's defaults).
sim::cluster_spec cluster(const toml::table& root, const cluster_policy& policy) {
  const auto& t = table(root, "", "cluster");
  sim::cluster_spec c;
  c.policy = policy;
  c.name = get(t, "cluster", "name", std::string("cluster"));
  c.cpus = get<int>(t, "cluster", "cpus", 0);
  if (c.cpus < 1) bad("cluster.cpus", "expected at least 1 CPU");
  c.pp = get(t, "cluster", "pp", c.pp);
  c.bunch = get<int>(t, "cluster", "bunch", c.bunch);
  c.scheduler = get(t, "cluster", "scheduler", c.scheduler);
  read_policy(t, "cluster", c.policy);
  return c;
}

request_config requests(const toml::table& root) {
  const auto& t = table(root, "", "requests");
  request_config r;
  r.group_size = get<std::size_t>(t, "requests", "group_size", r.group_size);
  if (r.group_size < 1) bad("requests.group_size", "expected at least 1");
  r.pick_seed = get<std::uint64_t>(t, "requests", "pick_seed", r.pick_seed);
  r.prefer = get(t, "requests", "prefer", r.prefer);
  if (auto p = parse_preferences(r.prefer); !p) bad("requests.prefer", p.err().message);
  r.esr_threshold = get(t, "requests", "esr_threshold", r.esr_threshold);
  r.tsn_max = get<int>(t, "requests", "tsn_max", r.tsn_max);
  r.tss_gap = get<duration>(t, "requests", "tss_gap", r.tss_gap);
  return r;
}

trace_experiment trace_experiment_of(const toml::table& root, std::string name,
                                     const cluster_policy& policy = sim::simulated_policy()) {
  return {std::move(name), workload(root), cluster(root, policy), requests(root)};
}

// An experiment's optional [grid] of cluster policy keys only (its other tables hold the rest).
void read_grid_policy(const toml::table& root, cluster_policy& p) {
  if (!root.contains("grid")) return;
  const auto& g = table(root, "", "grid");
  only_known(g, "grid", {}, true);
  read_policy(g, "grid", p);
}

paper000_config paper000(const toml::table& root, std::string name) {
  paper000_config c;
  // Paper 000's own rule unless [cluster] or [grid] names another: every reservation is
  // checked against T_wkl (Sec. 3.3.2), whether or not its request asks.
  static_cast<trace_experiment&>(c) =
      trace_experiment_of(root, std::move(name), with_ljp(ljp_policy::enforce, ljp_method::twkl));
  const auto& g = table(root, "", "grid");
  only_known(g, "grid", {"book_ahead_h", "time_range_h", "esr", "np_factors"}, true);
  read_policy(g, "grid", c.cluster.policy);
  c.book_ahead_h = numbers(g, "grid", "book_ahead_h");
  c.time_range_h = numbers(g, "grid", "time_range_h");
  c.esr_methods = strings(g, "grid", "esr");
  for (const auto& e : c.esr_methods)
    check_esr(e, "grid.esr");
  auto* pairs = g.get_as<toml::array>("np_factors");
  if (!pairs) bad("grid.np_factors", "expected an array of [min, max] pairs");
  for (const auto& p : *pairs)
    c.np_factors.push_back(factor_pair(p, "grid.np_factors"));
  if (c.book_ahead_h.empty() || c.time_range_h.empty() || c.esr_methods.empty() ||
      c.np_factors.empty())
    bad("grid", "every axis needs at least one value");
  c.fig6 = point(table(root, "", "fig6"), "fig6", {});
  c.fig7 = point(table(root, "", "fig7"), "fig7", {});
  c.table = point(table(root, "", "wait_table"), "wait_table", {});
  if (root.contains("gantt")) {
    const auto& t = table(root, "", "gantt");
    gantt_config gc;
    gc.run = point(t, "gantt", {});
    gc.from_h = get(t, "gantt", "from_h", gc.from_h);
    gc.to_h = get(t, "gantt", "to_h", gc.to_h);
    if (!(gc.to_h > gc.from_h)) bad("gantt", "to_h must be after from_h");
    c.gantt = gc;
  }
  if (root.contains("paper")) {
    const auto& p = table(root, "", "paper");
    if (p.contains("waits")) c.paper_waits = numbers(p, "paper", "waits");
    c.paper_baseline_wait = get(p, "paper", "baseline_wait", -1.0);
    if (p.contains("fig7_successes")) c.paper_fig7 = numbers(p, "paper", "fig7_successes");
  }
  return c;
}

replay_config replay(const toml::table& root, std::string name) {
  replay_config c;
  static_cast<trace_experiment&>(c) = trace_experiment_of(root, std::move(name));
  c.point = point(table(root, "", "reservations"), "reservations", {});
  return c;
}

paper001_config paper001(const toml::table& root, std::string name) {
  paper001_config c;
  c.name = std::move(name);
  read_grid_policy(root, c.policy);
  for_each_table(root, "resources", [&](const toml::table& t) {
    paper001_resource r;
    r.name = get(t, "resources", "name", std::string());
    r.cpus = get<int>(t, "resources", "cpus", 0);
    r.rating = get(t, "resources", "rating", 0.0);
    r.tz_h = static_cast<int>(get(t, "resources", "tz_h", 0.0));
    if (r.name.empty() || r.cpus < 1 || !(r.rating > 0))
      bad("resources", "each needs a name, cpus >= 1 and a rating > 0");
    c.resources.push_back(r);
  });
  const auto& w = table(root, "", "workload");
  c.users = get<std::size_t>(w, "workload", "users", c.users);
  c.jobs_per_user = get<std::size_t>(w, "workload", "jobs_per_user", c.jobs_per_user);
  c.mi_min = get(w, "workload", "mi_min", c.mi_min);
  c.mi_max = get(w, "workload", "mi_max", c.mi_max);
  c.jobs_per_minute = get(w, "workload", "jobs_per_minute", c.jobs_per_minute);
  c.max_arrival_min = get(w, "workload", "max_arrival_min", c.max_arrival_min);
  c.seed = get<std::uint64_t>(w, "workload", "seed", c.seed);
  if (!(c.mi_min > 0) || c.mi_max < c.mi_min) bad("workload", "need 0 < mi_min <= mi_max");
  if (!(c.jobs_per_minute > 0)) bad("workload.jobs_per_minute", "must be > 0");
  const auto& r = table(root, "", "reservations");
  c.shares = numbers(r, "reservations", "shares");
  for (double x : c.shares)
    if (x < 0 || x > 1) bad("reservations.shares", "each share must lie in [0, 1]");
  c.overestimate = get(r, "reservations", "overestimate", c.overestimate);
  c.book_ahead_min = get(r, "reservations", "book_ahead_min", c.book_ahead_min);
  c.window_h = get(r, "reservations", "window_h", c.window_h);
  if (!(c.overestimate > 0)) bad("reservations.overestimate", "must be > 0");
  c.underestimate = get(r, "reservations", "underestimate", c.underestimate);
  if (c.underestimate < 0)
    bad("reservations.underestimate", "must be >= 0 (0: no restartable runs)");
  c.parallel_np = get<int>(r, "reservations", "parallel_np", c.parallel_np);
  if (c.parallel_np < 0) bad("reservations.parallel_np", "must be >= 0 (0: no parallel runs)");
  for (const auto& resource : c.resources)
    if (c.parallel_np > resource.cpus)
      bad("reservations.parallel_np", "larger than resource " + resource.name + "'s CPUs");
  c.scheduler = get(w, "workload", "scheduler", c.scheduler);
  if (root.contains("paper")) {
    const auto& p = table(root, "", "paper");
    if (p.contains("mwt_increase")) c.paper_mwt_increase = numbers(p, "paper", "mwt_increase");
    if (p.contains("mot_min")) c.paper_mot_min = numbers(p, "paper", "mot_min");
  }
  return c;
}

paper002_config paper002(const toml::table& root, std::string name) {
  paper002_config c;
  c.name = std::move(name);
  only_known(root, "", {"experiment", "name", "grid", "workload", "requests", "paper"});
  const auto& g = table(root, "", "grid");
  only_known(g, "grid", {"clusters", "cpus", "scheduler"}, true);
  c.clusters = get<int>(g, "grid", "clusters", c.clusters);
  c.cpus = get<int>(g, "grid", "cpus", c.cpus);
  c.scheduler = get(g, "grid", "scheduler", c.scheduler);
  read_policy(g, "grid", c.policy);
  if (c.clusters < 1 || c.cpus < 1) bad("grid", "clusters >= 1 and cpus >= 1 are needed");
  const auto& w = table(root, "", "workload");
  only_known(w, "workload", {"jobs", "repetitions", "seed", "arrival_scale"});
  c.jobs = get<std::size_t>(w, "workload", "jobs", c.jobs);
  c.repetitions = get<std::size_t>(w, "workload", "repetitions", c.repetitions);
  c.seed = get<std::uint64_t>(w, "workload", "seed", c.seed);
  c.arrival_scale = get(w, "workload", "arrival_scale", c.arrival_scale);
  if (c.jobs == 0 || c.repetitions < 2)
    bad("workload", "jobs >= 1 and repetitions >= 2 are needed");
  if (!(c.arrival_scale > 0)) bad("workload.arrival_scale", "must be > 0");
  const auto& r = table(root, "", "requests");
  only_known(r, "requests", {"laxity_percent", "par", "policies", "ar_window_h", "od_deadline_h"});
  c.laxity_percent = numbers(r, "requests", "laxity_percent");
  c.par = numbers(r, "requests", "par");
  c.policies = strings(r, "requests", "policies");
  c.ar_window_h = get(r, "requests", "ar_window_h", c.ar_window_h);
  c.od_deadline_h = get(r, "requests", "od_deadline_h", c.od_deadline_h);
  for (double x : c.par)
    if (x < 0 || x > 1) bad("requests.par", "each must lie in [0, 1]");
  for (double x : c.laxity_percent)
    if (x < 0) bad("requests.laxity_percent", "each must be >= 0");
  if (c.policies.empty()) bad("requests.policies", "at least one policy");
  if (root.contains("paper"))
    c.paper_mli_over_imct =
        get(table(root, "", "paper"), "paper", "mli_over_imct", c.paper_mli_over_imct);
  return c;
}

paper004_config paper004(const toml::table& root, std::string name) {
  paper004_config c;
  c.name = std::move(name);
  read_grid_policy(root, c.policy);
  const auto& cl = table(root, "", "clusters");
  c.clusters = strings(cl, "clusters", "names");
  if (c.clusters.size() != 2) bad("clusters.names", "expected two cluster names");
  c.cpus = get<int>(cl, "clusters", "cpus", 0);
  if (c.cpus < 1) bad("clusters.cpus", "expected at least 1 CPU");
  c.scheduler = get(cl, "clusters", "scheduler", c.scheduler);
  for_each_table(root, "workloads", [&](const toml::table& t) {
    paper004_workload w;
    w.name = get(t, "workloads", "name", std::string());
    w.trace = get(t, "workloads", "trace", std::string());
    w.skip = get<std::size_t>(t, "workloads", "skip", 0);
    w.jobs = get<std::size_t>(t, "workloads", "jobs", 0);
    if (w.name.empty() || w.trace.empty() || w.jobs == 0)
      bad("workloads", "each needs a name, a trace and jobs >= 1");
    c.workloads.push_back(w);
  });
  const auto& e = table(root, "", "experiment_grid");
  c.rule = soundness_of(get(e, "experiment_grid", "soundness", std::string("loose")),
                        "experiment_grid.soundness");
  auto* pairs = e.get_as<toml::array>("pairs");
  if (!pairs || pairs->empty()) bad("experiment_grid.pairs", "expected [[a, b], ...]");
  for (const auto& n : *pairs) {
    auto* a = n.as_array();
    auto x = a && a->size() == 2 ? (*a)[0].value<std::int64_t>() : std::nullopt;
    auto y = a && a->size() == 2 ? (*a)[1].value<std::int64_t>() : std::nullopt;
    const auto W = static_cast<std::int64_t>(c.workloads.size());
    if (!x || !y || *x < 0 || *y < 0 || *x >= W || *y >= W)
      bad("experiment_grid.pairs", "each pair names two workloads by index (0-based)");
    c.pairs.emplace_back(static_cast<std::size_t>(*x), static_cast<std::size_t>(*y));
  }
  c.overestimates = numbers(e, "experiment_grid", "overestimates");
  for (double f : c.overestimates)
    if (!(f >= 1)) bad("experiment_grid.overestimates", "each must be >= 1 (walltime >= run time)");
  c.probe_start_h = get(e, "experiment_grid", "probe_start_h", c.probe_start_h);
  c.probe_every_h = get(e, "experiment_grid", "probe_every_h", c.probe_every_h);
  if (c.probe_start_h < 0 || !(c.probe_every_h > 0))
    bad("experiment_grid", "probe_start_h >= 0 and probe_every_h > 0 are needed");
  for_each_table(root, "test_jobs", [&](const toml::table& t) {
    paper004_test_job j;
    j.name = get(t, "test_jobs", "name", std::string());
    j.np = get<int>(t, "test_jobs", "np", 0);
    j.runtime = get<duration>(t, "test_jobs", "runtime_s", 0);
    if (j.name.empty() || j.np < 1 || j.np > c.cpus || j.runtime < 1)
      bad("test_jobs", "each needs a name, 1 <= np <= clusters.cpus and runtime_s >= 1");
    c.test_jobs.push_back(j);
  });
  if (root.contains("paper")) {
    const auto& p = table(root, "", "paper");
    c.paper_ranking_correct = get(p, "paper", "ranking_correct", c.paper_ranking_correct);
    c.paper_ranking_correct_at_max =
        get(p, "paper", "ranking_correct_at_max", c.paper_ranking_correct_at_max);
  }
  return c;
}

grid5_config grid5(const toml::table& root, std::string name) {
  grid5_config c;
  c.name = std::move(name);
  only_known(root, "", {"experiment", "name", "grid", "clusters", "strategies"});
  const auto& g = table(root, "", "grid");
  only_known(g, "grid",
             {"scheduler", "days", "grid_every", "poll_s", "event_hooks", "walltime_rule",
              "adaptation_s", "bandwidth_mb_s"},
             true);
  c.scheduler = get(g, "grid", "scheduler", c.scheduler);
  c.days = get(g, "grid", "days", c.days);
  c.grid_every = get<std::size_t>(g, "grid", "grid_every", c.grid_every);
  c.poll_s = get<duration>(g, "grid", "poll_s", c.poll_s);
  c.event_hooks = get(g, "grid", "event_hooks", c.event_hooks);
  c.walltime = walltime_rule_of(get(g, "grid", "walltime_rule", std::string("extend")),
                                "grid.walltime_rule");
  c.adaptation_s = get<duration>(g, "grid", "adaptation_s", c.adaptation_s);
  c.bandwidth_mb_s = get(g, "grid", "bandwidth_mb_s", c.bandwidth_mb_s);
  if (!(c.bandwidth_mb_s >= 0) || !std::isfinite(c.bandwidth_mb_s))
    bad("grid", "bandwidth_mb_s must be a finite number >= 0");
  read_policy(g, "grid", c.policy);
  if (!(c.days > 0) || c.grid_every < 1 || c.poll_s < 0 || c.adaptation_s < 1)
    bad("grid", "days > 0, grid_every >= 1, poll_s >= 0 and adaptation_s >= 1 are needed");
  if (!c.event_hooks && c.poll_s < 1)
    bad("grid", "without event_hooks the manager learns only from polls: poll_s >= 1 is needed");
  for_each_table(root, "clusters", [&](const toml::table& t) {
    only_known(t, "clusters", {"name", "trace", "cpus"});
    grid5_cluster k;
    k.name = get(t, "clusters", "name", std::string());
    k.trace = get(t, "clusters", "trace", std::string());
    k.cpus = get<int>(t, "clusters", "cpus", 0);
    if (k.name.empty() || k.trace.empty() || k.cpus < 1)
      bad("clusters", "each needs a name, a trace and cpus >= 1");
    c.clusters.push_back(k);
  });
  for_each_table(root, "strategies", [&](const toml::table& t) {
    only_known(t, "strategies",
               {"name", "strategy", "width", "min_gain_s", "finish_eq7", "fail_cluster",
                "fail_at_h", "max_resubmits", "max_migrations", "dag", "output_gb", "locality"});
    grid5_strategy s;
    s.name = get(t, "strategies", "name", std::string());
    s.strategy = get(t, "strategies", "strategy", s.strategy);
    s.width = get<int>(t, "strategies", "width", s.width);
    s.min_gain = get<duration>(t, "strategies", "min_gain_s", s.min_gain);
    s.finish_eq7 = get(t, "strategies", "finish_eq7", s.finish_eq7);
    s.fail_cluster = get(t, "strategies", "fail_cluster", s.fail_cluster);
    s.fail_at_h = get(t, "strategies", "fail_at_h", s.fail_at_h);
    s.max_resubmits = get<std::int32_t>(t, "strategies", "max_resubmits", s.max_resubmits);
    s.max_migrations = get<std::int32_t>(t, "strategies", "max_migrations", s.max_migrations);
    s.dag = get<int>(t, "strategies", "dag", s.dag);
    s.output_gb = get(t, "strategies", "output_gb", s.output_gb);
    s.locality = get(t, "strategies", "locality", s.locality);
    if (s.dag != 0 && (s.dag < 3 || s.dag > 64))
      bad("strategies", "dag: 0 (no workflows) or 3..64 jobs per workflow");
    if (!(s.output_gb >= 0) || s.output_gb > 1e6)
      bad("strategies", "output_gb must be a number in 0..1000000");
    if (!s.fail_cluster.empty() &&
        std::none_of(c.clusters.begin(), c.clusters.end(),
                     [&](const grid5_cluster& k) { return k.name == s.fail_cluster; }))
      bad("strategies", "fail_cluster '" + s.fail_cluster + "' is none of the [[clusters]]");
    if (!(s.fail_at_h >= 0) || s.max_resubmits < -1 || s.max_resubmits > max_grid_placements ||
        s.max_migrations < -1 || s.max_migrations > 1000)
      bad("strategies", "fail_at_h >= 0, max_resubmits in -1..100 and max_migrations in -1..1000");
    if (s.name.empty() || (s.strategy != "none" && !grid_strategy_from(s.strategy)) ||
        s.width < 1 || s.width > max_grid_width || s.min_gain < 0)
      bad("strategies",
          "each needs a name, a strategy (single, flood, adaptive, reserve, none), "
          "1 <= width <= 16 and min_gain_s >= 0");
    c.strategies.push_back(s);
  });
  if (c.clusters.size() < 2 || c.strategies.empty())
    bad("clusters", "at least two clusters and one strategy");
  return c;
}

}  // namespace

std::string grid_point::key() const {
  std::ostringstream os;
  os << "ba" << book_ahead_h << "_k" << time_range_h << "_p" << np_min_factor << '-'
     << np_max_factor << '_' << esr;
  return os.str();
}

std::string grid_point::describe() const {
  std::ostringstream os;
  os << "book-ahead " << book_ahead_h << " h, time range " << time_range_h
     << " h, processor range <" << np_min_factor << ", " << np_max_factor
     << "> x its processors, esr " << esr;
  return os.str();
}

namespace {

// Sets `path` ("requests.par") in `root` to `value`, read as TOML ("[1]", "\"off\"", "2") or,
// when it is not a TOML value, as a string ("off"). The tables on the way must exist or are
// made; a key on the way that is not a table is refused.
void apply_override(toml::table& root, const std::string& item) {
  const auto eq = item.find('=');
  if (eq == std::string::npos || eq == 0)
    bad("--set " + item, "expected KEY=VALUE (a dotted key such as grid.ljp)");
  const std::string path = item.substr(0, eq);
  const std::string text = item.substr(eq + 1);
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + text);
  } catch (const toml::parse_error&) {
    parsed.insert_or_assign("v", text);
  }
  toml::table* t = &root;
  std::string_view rest = path;
  for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    const std::string key(rest.substr(0, dot));
    rest.remove_prefix(dot + 1);
    if (!t->contains(key)) t->insert(key, toml::table{});
    t = t->get_as<toml::table>(key);
    if (!t) bad("--set " + path, "'" + key + "' is not a table");
  }
  if (rest.empty()) bad("--set " + item, "expected KEY=VALUE (a dotted key such as grid.ljp)");
  t->insert_or_assign(std::string(rest), std::move(*parsed.get("v")));
}

}  // namespace

result<experiment_config> load_experiment(const std::filesystem::path& file,
                                          const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << file.string() << ": " << e.description() << " (line " << e.source().begin.line << ")";
    return fail(errc::invalid_parameter, os.str());
  }
  try {
    for (const auto& o : overrides)
      apply_override(root, o);
    experiment_config out;
    out.kind = get(root, "", "experiment", std::string());
    auto name = get(root, "", "name", file.stem().string());
    out.name = name;
    if (out.kind == "paper000")
      out.paper000 = paper000(root, name);
    else if (out.kind == "paper001")
      out.paper001 = paper001(root, name);
    else if (out.kind == "paper002")
      out.paper002 = paper002(root, name);
    else if (out.kind == "paper004")
      out.paper004 = paper004(root, name);
    else if (out.kind == "grid5")
      out.grid5 = grid5(root, name);
    else if (out.kind == "replay")
      out.replay = replay(root, name);
    else
      bad("experiment",
          "'" + out.kind + "' is not paper000, paper001, paper002, paper004, grid5 or replay");
    return out;
  } catch (const bad_key& e) {
    return fail(errc::invalid_parameter, file.string() + ": " + e.message);
  }
}

std::string admission_of(const cluster_policy& p) {
  if (p.ljp == ljp_policy::off) return "ljp off";  // the method checks nothing then
  return "ljp " + std::string(to_string(p.ljp)) + ", ljp_method " +
         std::string(to_string(p.ljp_check));
}

std::string admission_of(const experiment_config& c) {
  if (c.kind == "paper000") return admission_of(c.paper000.cluster.policy);
  if (c.kind == "paper001") return admission_of(c.paper001.policy);
  if (c.kind == "paper002") return admission_of(c.paper002.policy);
  if (c.kind == "paper004") return admission_of(c.paper004.policy);
  if (c.kind == "grid5") return admission_of(c.grid5.policy);
  return admission_of(c.replay.cluster.policy);
}

}  // namespace arbroker::simapp
