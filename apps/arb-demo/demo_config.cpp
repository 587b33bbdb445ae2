#include "demo_config.hpp"

#include "arbroker/config/toml_fields.hpp"
#include "arbroker/core/time_format.hpp"

namespace arbroker::demo {
namespace {

using config::at;
using config::bad;
using config::integer;
using config::number;
using config::span_of;
using config::text;
using config::time_of;

template <class T>
error wrap(const std::string& path, const result<T>& r) {
  return bad(path, r.err().message);
}

result<demo_cluster> read_cluster(const toml::table& t, const std::string& path, timestamp now) {
  demo_cluster c{{}, *cost_model::create(1, 3600, {}, 0), {}};
  auto name = text(at(t, path, "name"));
  if (!name) return name.err();
  c.site.name = *name;
  auto cpus = integer(at(t, path, "cpus"));
  if (!cpus) return cpus.err();
  c.site.cpus = *cpus;
  c.workload.cpus = *cpus;
  auto pp = number(at(t, path, "pp"));
  if (!pp) return pp.err();
  c.site.pp = *pp;
  if (t.contains("bunch")) {
    auto b = integer(at(t, path, "bunch"));
    if (!b) return b.err();
    c.site.sizes.bunch = *b;
  }
  if (auto ok = validate(c.site); !ok) return bad(path, ok.err().message);

  auto cost = config::cost_of(t, path);
  if (!cost) return cost.err();
  c.cost = std::move(*cost);

  if (auto* arr = t["running"].as_array()) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string jp = path + ".running[" + std::to_string(i) + "]";
      auto* j = arr->get(i)->as_table();
      if (!j) return bad(jp, "expected a table {np, remaining}");
      auto np = integer(at(*j, jp, "np"));
      auto rem = span_of(at(*j, jp, "remaining"));
      if (!np) return np.err();
      if (!rem) return rem.err();
      c.workload.running.push_back({*np, *rem});
    }
  }
  if (auto* arr = t["queued"].as_array()) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string jp = path + ".queued[" + std::to_string(i) + "]";
      auto* j = arr->get(i)->as_table();
      if (!j) return bad(jp, "expected a table {np, walltime}");
      auto np = integer(at(*j, jp, "np"));
      auto wall = span_of(at(*j, jp, "walltime"));
      if (!np) return np.err();
      if (!wall) return wall.err();
      c.workload.queued.push_back({*np, *wall});
    }
  }
  if (auto* arr = t["reservations"].as_array()) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string jp = path + ".reservations[" + std::to_string(i) + "]";
      auto* j = arr->get(i)->as_table();
      if (!j) return bad(jp, "expected a table {start, end, np}");
      auto start = time_of(at(*j, jp, "start"), now);
      auto end = time_of(at(*j, jp, "end"), now);
      auto np = integer(at(*j, jp, "np"));
      if (!start) return start.err();
      if (!end) return end.err();
      if (!np) return np.err();
      c.workload.reservations.push_back({*start, *end, *np});
    }
  }
  return c;
}

}  // namespace

result<demo_config> load_demo_config(const std::string& path) {
  auto parsed = config::parse_file(path);
  if (!parsed) return parsed.err();
  const toml::table& root = *parsed;
  demo_config cfg;
  auto now = text(at(root, "", "now"));
  if (!now) return now.err();
  auto now_t = parse_time(*now, 0);
  if (!now_t) return bad("now", now_t.err().message);
  cfg.now = *now_t;

  auto* req = root["request"].as_table();
  if (!req) return bad("request", "missing table [request]");
  auto& r = cfg.request;
  auto user = text(at(*req, "request", "user"));
  if (!user) return user.err();
  r.user = *user;
  auto est = time_of(at(*req, "request", "est"), cfg.now);
  auto let = time_of(at(*req, "request", "let"), cfg.now);
  if (!est) return est.err();
  if (!let) return let.err();
  r.est = *est;
  r.let = *let;
  auto* np = (*req)["np"].as_array();
  if (!np || np->size() != 2) return bad("request.np", "expected [np_min, np_max]");
  auto np_min = np->get(0)->value<std::int64_t>();
  auto np_max = np->get(1)->value<std::int64_t>();
  if (!np_min || !np_max) return bad("request.np", "expected two integers");
  r.np_min = static_cast<int>(*np_min);
  r.np_max = static_cast<int>(*np_max);
  auto dur = span_of(at(*req, "request", "dur_ref"));
  if (!dur) return dur.err();
  r.dur_ref = *dur;
  auto pp = number(at(*req, "request", "pp_ref"));
  if (!pp) return pp.err();
  r.pp_ref = *pp;
  auto np_ref = integer(at(*req, "request", "np_ref"));
  if (!np_ref) return np_ref.err();
  r.np_ref = *np_ref;
  auto sp_text = text(at(*req, "request", "speedup"));
  if (!sp_text) return sp_text.err();
  auto sp = speedup_model::parse(*sp_text);
  if (!sp) return wrap("request.speedup", sp);
  r.sp = std::move(*sp);
  if (auto ok = validate(r); !ok) return bad("request", ok.err().message);
  auto prefer = text(at(*req, "request", "prefer"));
  if (!prefer) return prefer.err();
  auto prefs = parse_preferences(*prefer);
  if (!prefs) return wrap("request.prefer", prefs);
  cfg.prefs = std::move(*prefs);

  if (auto* probe = root["probe"].as_table()) {
    auto& p = cfg.probe;
    if (probe->contains("tsn_max")) {
      auto v = integer(at(*probe, "probe", "tsn_max"));
      if (!v) return v.err();
      p.limits.tsn_max = *v;
    }
    if (probe->contains("tss_gap")) {
      auto v = span_of(at(*probe, "probe", "tss_gap"));
      if (!v) return v.err();
      p.limits.tss_gap = *v;
    }
    if (probe->contains("esr_method")) {
      auto v = text(at(*probe, "probe", "esr_method"));
      if (!v) return v.err();
      auto m = parse_esr_method(*v);
      if (!m) return wrap("probe.esr_method", m);
      if (*m == esr_method::history)
        return bad("probe.esr_method",
                   "the demonstration has no recorded history; use static or load");
      p.method = *m;
    }
    if (probe->contains("esr_threshold")) {
      auto v = number(at(*probe, "probe", "esr_threshold"));
      if (!v) return v.err();
      p.threshold = *v;
    }
    if (probe->contains("static_h")) {
      auto v = span_of(at(*probe, "probe", "static_h"));
      if (!v) return v.err();
      p.static_h = *v;
    }
    for (auto [key, target] : {std::pair{"acc_r", &p.load.acc_r}, {"acc_w", &p.load.acc_w}}) {
      if (!probe->contains(key)) continue;
      auto v = number(at(*probe, "probe", key));
      if (!v) return v.err();
      *target = *v;
    }
  }

  auto* clusters = root["cluster"].as_array();
  if (!clusters || clusters->empty()) return bad("cluster", "no [[cluster]] defined");
  for (std::size_t i = 0; i < clusters->size(); ++i) {
    auto* t = clusters->get(i)->as_table();
    const std::string where = "cluster[" + std::to_string(i) + "]";
    if (!t) return bad(where, "expected a table");
    auto c = read_cluster(*t, where, cfg.now);
    if (!c) return c.err();
    cfg.clusters.push_back(std::move(*c));
  }
  return cfg;
}

}  // namespace arbroker::demo
