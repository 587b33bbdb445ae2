// `arb`'s options -> the request body each command sends: values parsed and checked here,
// each error naming its option.
#include "cli.hpp"

#include <algorithm>
#include <charconv>
#include <tuple>

#include "arbroker/core/job_requirements.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time_format.hpp"
#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker::cli {

namespace {

error bad_option(std::string_view option, std::string problem) {
  return fail(errc::invalid_parameter, "--" + std::string(option) + ": " + std::move(problem));
}

template <class T>
result<T> parse_number(std::string_view option, std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    return bad_option(option, "not a number: '" + std::string(text) + "'");
  return value;
}

result<timestamp> time_option(std::string_view option, const std::string& text, timestamp now) {
  auto t = parse_time(text, now);
  if (!t) return bad_option(option, t.err().message);
  return *t;
}

result<duration> duration_option(std::string_view option, const std::string& text) {
  if (text.empty()) return bad_option(option, "required");
  auto d = parse_duration(text);
  if (!d) return bad_option(option, d.err().message);
  return *d;
}

result<msg::speedup_spec> speedup_option(std::string_view option, const std::string& text) {
  auto m = speedup_model::parse(text);
  if (!m) return bad_option(option, m.err().message);
  return msg::to_spec(*m);
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto next = text.find(sep, pos);
    if (next == std::string_view::npos) next = text.size();
    out.emplace_back(text.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

/// The user field of a body: empty (the server fills in the caller) unless --for.
std::string body_user(const options& o) {
  return o.as_user;
}

// --prefer: the text a user types ("end,cost,-esr"), as the list the protocol carries.
result<preferences> prefer_option(const std::string& text) {
  auto p = parse_preferences(text);
  if (!p) return bad_option("prefer", p.err().message);
  return p;
}

// --benchmark, --input, --output-size and --penalty (paper 003 Sec. 3.2) into a grid job or
// an elastic request, which carry the same fields.
template <class Request>
status runtime_hints(const options& o, Request& r) {
  for (const auto& b : o.benchmarks) {
    const auto eq = b.find('=');
    const auto colon = b.rfind(':');
    if (eq == std::string::npos || colon == std::string::npos || colon < eq)
      return bad_option("benchmark", "expected name=result:time, got '" + b + "'");
    auto result_value = parse_number<double>("benchmark", b.substr(eq + 1, colon - eq - 1));
    if (!result_value) return result_value.err();
    auto t = duration_option("benchmark", b.substr(colon + 1));
    if (!t) return t.err();
    r.benchmarks.push_back({b.substr(0, eq), *result_value, *t});
  }
  for (const auto& in : o.inputs) {
    const auto colon = in.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return bad_option("input", "expected location:size, got '" + in + "'");
    auto bytes = parse_bytes("input", std::string_view(in).substr(colon + 1));
    if (!bytes) return bytes.err();
    r.inputs.push_back({in.substr(0, colon), *bytes});
  }
  if (!o.output_size.empty()) {
    auto bytes = parse_bytes("output-size", o.output_size);
    if (!bytes) return bytes.err();
    r.output_bytes = *bytes;
  }
  r.penalty = o.penalty;
  return {};
}

result<msg::elastic_request> elastic(const options& o, timestamp now, msg::request_mode mode) {
  msg::elastic_request r;
  r.user = body_user(o);
  r.mode = mode;
  auto est = time_option("est", o.est, now);
  if (!est) return est.err();
  r.est = *est;
  if (o.let.empty()) return bad_option("let", "required (latest end time, e.g. now+12h)");
  auto let = time_option("let", o.let, now);
  if (!let) return let.err();
  r.let = *let;
  if (o.np.empty()) return bad_option("np", "required (e.g. 8 or 4-32)");
  auto np = parse_np_range(o.np);
  if (!np) return np.err();
  r.np_min = np->first;
  r.np_max = np->second;
  if (auto ok = runtime_hints(o, r); !ok) return ok.err();
  if (!o.dur_ref.empty()) {
    auto dur = duration_option("runtime", o.dur_ref);
    if (!dur) return dur.err();
    r.dur_ref = *dur;
  } else if (r.benchmarks.empty()) {
    return bad_option("runtime",
                      "required (e.g. 2h: the run time on the lower end of --np, "
                      "or --benchmark)");
  } else {
    // The benchmarks give the run time on every cluster; dur_ref is only the request's shape.
    for (const auto& b : r.benchmarks)
      r.dur_ref = std::max(r.dur_ref, b.seconds);
  }
  r.pp_ref = o.pp_ref;
  r.np_ref = o.np_ref;
  auto sp = speedup_option("speedup", o.speedup);
  if (!sp) return sp.err();
  r.speedup = *sp;
  if (!o.prefer.empty()) {
    auto p = prefer_option(o.prefer);
    if (!p) return p.err();
    r.prefer = std::move(*p);
  }
  r.policy = o.policy;
  auto method = parse_esr_method(o.esr);
  if (!method) return bad_option("esr", method.err().message);
  r.esr = *method;
  r.esr_threshold = o.esr_threshold;
  r.tsn_max = o.tsn_max;
  auto gap = duration_option("tss-gap", o.tss_gap);
  if (!gap) return gap.err();
  r.tss_gap = *gap;
  if (!o.hold_for.empty()) {
    if (mode != msg::request_mode::hold) return bad_option("hold-for", "only for `arb hold`");
    auto h = duration_option("hold-for", o.hold_for);
    if (!h) return h.err();
    r.hold_seconds = *h;
  }
  r.os = o.os;
  r.features = o.features;
  r.clusters = o.clusters;
  r.local_jobs_preferred = !o.no_local_preference;
  r.account = o.account;
  r.movable = o.movable;
  return r;
}

result<msg::coreservation_request> coreservation(const options& o, timestamp now) {
  msg::coreservation_request r;
  r.user = body_user(o);
  auto est = time_option("est", o.est, now);
  if (!est) return est.err();
  r.est = *est;
  if (o.let.empty()) return bad_option("let", "required");
  auto let = time_option("let", o.let, now);
  if (!let) return let.err();
  r.let = *let;
  if (o.components.empty()) return bad_option("component", "at least one is required");
  for (const auto& spec : o.components) {
    auto c = parse_component(spec);
    if (!c) return c.err();
    r.components.push_back(*c);
  }
  if (!o.prefer.empty()) {
    auto p = prefer_option(o.prefer);
    if (!p) return p.err();
    r.prefer = std::move(*p);
  }
  r.tsn_max = o.tsn_max;
  auto gap = duration_option("tss-gap", o.tss_gap);
  if (!gap) return gap.err();
  r.tss_gap = *gap;
  r.max_attempts = o.max_attempts;
  r.local_jobs_preferred = !o.no_local_preference;
  r.account = o.account;
  auto method = parse_esr_method(o.esr);
  if (!method) return bad_option("esr", method.err().message);
  r.esr = *method;
  r.esr_threshold = o.esr_threshold;
  return r;
}

result<std::int32_t> single_np(const options& o) {
  if (o.np.empty()) return bad_option("np", "required");
  return parse_number<std::int32_t>("np", o.np);
}

}  // namespace

result<std::pair<std::int32_t, std::int32_t>> parse_np_range(std::string_view text) {
  auto dash = text.find('-');
  if (dash == std::string_view::npos) {
    auto n = parse_number<std::int32_t>("np", text);
    if (!n) return n.err();
    return std::pair{*n, *n};
  }
  auto lo = parse_number<std::int32_t>("np", text.substr(0, dash));
  if (!lo) return lo.err();
  auto hi = parse_number<std::int32_t>("np", text.substr(dash + 1));
  if (!hi) return hi.err();
  return std::pair{*lo, *hi};
}

result<msg::coreservation_component> parse_component(std::string_view spec) {
  msg::coreservation_component c;
  bool has_np = false;
  bool has_dur = false;
  for (const auto& item : split(spec, ';')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      return bad_option("component", "expected key=value, got '" + item + "'");
    const std::string key = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    if (key == "np") {
      auto np = parse_np_range(value);
      if (!np) return bad_option("component", np.err().message);
      c.np_min = np->first;
      c.np_max = np->second;
      has_np = true;
    } else if (key == "dur" || key == "runtime" || key == "dur-ref") {
      auto d = duration_option("component dur", value);
      if (!d) return d.err();
      c.dur_ref = *d;
      has_dur = true;
    } else if (key == "np-ref") {
      auto n = parse_number<std::int32_t>("component np-ref", value);
      if (!n) return n.err();
      c.np_ref = *n;
    } else if (key == "pp-ref") {
      auto p = parse_number<double>("component pp-ref", value);
      if (!p) return p.err();
      c.pp_ref = *p;
    } else if (key == "speedup") {
      auto sp = speedup_option("component speedup", value);
      if (!sp) return sp.err();
      c.speedup = *sp;
    } else if (key == "offset") {
      auto d = duration_option("component offset", value);
      if (!d) return d.err();
      c.offset = *d;
    } else if (key == "clusters") {
      c.clusters = split(value, ',');
    } else {
      return bad_option("component", "unknown key '" + key +
                                         "' (np, dur, np-ref, pp-ref, speedup, offset, clusters)");
    }
  }
  if (!has_np || !has_dur) return bad_option("component", "needs np= and dur=");
  return c;
}

result<std::int64_t> parse_bytes(std::string_view option, std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  if (digits == 0) return bad_option(option, "not a size: '" + std::string(text) + "'");
  auto n = parse_number<std::int64_t>(option, text.substr(0, digits));
  if (!n) return n.err();
  const std::string_view unit = text.substr(digits);
  static constexpr std::pair<std::string_view, std::int64_t> units[] = {{"", 1},
                                                                        {"B", 1},
                                                                        {"k", 1000},
                                                                        {"kB", 1000},
                                                                        {"KB", 1000},
                                                                        {"M", 1000'000},
                                                                        {"MB", 1000'000},
                                                                        {"G", 1000'000'000},
                                                                        {"GB", 1000'000'000},
                                                                        {"T", 1000'000'000'000},
                                                                        {"TB", 1000'000'000'000},
                                                                        {"KiB", 1LL << 10},
                                                                        {"MiB", 1LL << 20},
                                                                        {"GiB", 1LL << 30},
                                                                        {"TiB", 1LL << 40}};
  for (const auto& [name, factor] : units)
    if (unit == name) {
      if (*n > INT64_MAX / factor) return bad_option(option, "size too large");
      return *n * factor;
    }
  return bad_option(option,
                    "unknown unit '" + std::string(unit) + "' (B, kB, MB, GB, TB, KiB..TiB)");
}

namespace {

// --mem-per-cpu, --mem, --feature, --os.
result<job_requirements> job_needs(const options& o) {
  job_requirements n;
  for (auto [option, text, out] : {std::tuple{"mem-per-cpu", &o.mem_per_cpu, &n.mem_per_cpu},
                                   std::tuple{"mem", &o.mem, &n.mem_per_node}}) {
    if (text->empty()) continue;
    auto mib = parse_memory_mib(*text);
    if (!mib) return bad_option(option, mib.err().message);
    *out = *mib;
  }
  if (n.mem_per_cpu > 0 && n.mem_per_node > 0)
    return bad_option("mem", "give --mem or --mem-per-cpu, not both (as Slurm)");
  n.features = o.features;
  n.os = o.os;
  return n;
}

}  // namespace

result<msg::grid_submit_request> grid_submit_request_of(const options& o) {
  msg::grid_submit_request r;
  r.user = body_user(o);
  r.name = o.name;
  r.command = o.job_command;
  auto np = single_np(o);
  if (!np) return np.err();
  r.np = *np;
  if (!o.walltime.empty()) {
    auto wall = duration_option("walltime", o.walltime);
    if (!wall) return wall.err();
    r.walltime = *wall;
  } else if (o.benchmarks.empty()) {
    return bad_option("walltime", "required (or --benchmark)");
  }
  auto strategy = grid_strategy_from(o.strategy);
  if (!strategy)
    return bad_option("strategy",
                      "'" + o.strategy + "' is not one of single, flood, adaptive, reserve");
  r.strategy = *strategy;
  auto ranking = grid_ranking_from(o.rank);
  if (!ranking) return bad_option("rank", "'" + o.rank + "' is not one of start, sed");
  r.ranking = *ranking;
  r.width = o.width;
  if (auto ok = runtime_hints(o, r); !ok) return ok.err();
  if (!o.min_gain.empty()) {
    auto g = duration_option("min-gain", o.min_gain);
    if (!g) return g.err();
    r.min_gain = *g;
  }
  r.max_migrations = o.max_migrations;
  r.clusters = o.clusters;
  r.finish_by_eq7 = o.finish_eq7;
  r.max_resubmits = o.max_resubmits;
  r.retry_on_failure = o.retry_on_failure;
  r.fallback_flood = o.fallback_flood;
  r.pp_ref = o.pp_ref;
  auto needs = job_needs(o);
  if (!needs) return needs.err();
  r.mem_per_cpu = needs->mem_per_cpu;
  r.mem_per_node = needs->mem_per_node;
  r.features = needs->features;
  r.os = needs->os;
  for (const auto& a : o.after)
    if (auto d = parse_dependency(a); !d) return bad_option("after", d.err().message);
  r.after = o.after;
  if (o.on_parent_failure != "fail" && o.on_parent_failure != "cancel")
    return bad_option("on-parent-failure", "'" + o.on_parent_failure + "' is not fail or cancel");
  r.cancel_if_parent_fails = o.on_parent_failure == "cancel";
  r.locality = !o.no_locality;
  return r;
}

result<api::request_body> build_request(const options& o, timestamp now) {
  const std::string& cmd = o.command;
  if (cmd == "reserve" || cmd == "hold" || cmd == "whatif") {
    auto mode = cmd == "reserve" ? msg::request_mode::reserve
                : cmd == "hold"  ? msg::request_mode::hold
                                 : msg::request_mode::whatif;
    auto r = elastic(o, now, mode);
    if (!r) return r.err();
    return api::request_body{*r};
  }
  if (cmd == "coreserve") {
    auto r = coreservation(o, now);
    if (!r) return r.err();
    return api::request_body{*r};
  }
  if (cmd == "estimate") {
    auto np = single_np(o);
    if (!np) return np.err();
    auto wall = duration_option("walltime", o.walltime);
    if (!wall) return wall.err();
    api::estimate_request r{body_user(o), *np, *wall, o.clusters, 0, 0};
    if (!o.ready.empty()) {
      auto t = time_option("ready", o.ready, now);
      if (!t) return t.err();
      r.ready = *t;
    }
    if (!o.deadline.empty()) {
      auto t = time_option("deadline", o.deadline, now);
      if (!t) return t.err();
      r.deadline = *t;
    }
    return api::request_body{r};
  }
  if (cmd == "commit") {
    msg::commit_request r{body_user(o), o.id, {}};
    if (!o.np.empty() || !o.walltime.empty() || !o.job_command.empty()) {
      // With a job: both in one call, all or nothing (paper 001, Sec. 2.3).
      auto np = single_np(o);
      if (!np) return np.err();
      auto wall = duration_option("walltime", o.walltime);
      if (!wall) return wall.err();
      r.jobs.push_back({o.name, *np, *wall, o.job_command});
    }
    return api::request_body{std::move(r)};
  }
  if (cmd == "coallocate") {
    // One job per part, all or none (paper 002, Sec. 3); --np once for every part or once
    // per part in order.
    auto wall = duration_option("walltime", o.walltime);
    if (!wall) return wall.err();
    std::vector<std::int32_t> nps;
    for (const auto& item : split(o.np, ',')) {
      auto n = parse_number<std::int32_t>("np", item);
      if (!n) return n.err();
      nps.push_back(*n);
    }
    if (nps.size() != 1 && nps.size() != o.ids.size())
      return bad_option("np", std::to_string(nps.size()) + " values for " +
                                  std::to_string(o.ids.size()) +
                                  " reservations; give one for all or one per reservation");
    msg::coallocate_request r{body_user(o), {}};
    for (std::size_t i = 0; i < o.ids.size(); ++i)
      r.parts.push_back(
          {o.ids[i], {{o.name, nps.size() == 1 ? nps[0] : nps[i], *wall, o.job_command}}});
    return api::request_body{std::move(r)};
  }
  if (cmd == "show") return api::request_body{msg::query_request{body_user(o), o.id}};
  if (cmd == "cancel") return api::request_body{msg::cancel_request{body_user(o), o.id}};
  if (cmd == "list") {
    if (o.all && !o.as_user.empty()) return bad_option("all", "cannot be combined with --for");
    // An admin's empty user lists everyone's; without --all ask for one user explicitly.
    std::string user = o.all ? "" : (o.as_user.empty() ? o.user : o.as_user);
    msg::list_reply none;  // the view's options are checked before anything is sent
    if (auto ok = apply_list_view(o.list, now, none); !ok) return ok.err();
    if (auto ok = render_list(o.list, none); !ok) return ok.err();
    return api::request_body{
        msg::list_request{user, asks_for_history(o.list), o.list.limit, o.list.before}};
  }
  if (cmd == "modify") {
    msg::modify_request r{body_user(o), o.id, 0, 0, 0, !o.no_local_preference, false};
    auto start = time_option("start", o.start, now);
    if (!start) return start.err();
    r.start = *start;
    if (!o.end.empty() && !o.duration.empty())
      return bad_option("end", "give --end or --duration, not both");
    if (!o.duration.empty()) {
      auto d = duration_option("duration", o.duration);
      if (!d) return d.err();
      r.end = r.start + *d;
    } else {
      if (o.end.empty()) return bad_option("end", "required (or --duration)");
      auto end = time_option("end", o.end, now);
      if (!end) return end.err();
      r.end = *end;
    }
    auto np = single_np(o);
    if (!np) return np.err();
    r.np = *np;
    return api::request_body{r};
  }
  if (cmd == "submit-dag") {
    auto r = read_job_file(o, o.jobs_file);
    if (!r) return r.err();
    return api::request_body{std::move(*r)};
  }
  if (cmd == "submit" && o.id.empty()) {
    auto r = grid_submit_request_of(o);
    if (!r) return r.err();
    return api::request_body{std::move(*r)};
  }
  if (cmd == "jobs") {
    if (o.all && !o.as_user.empty()) return bad_option("all", "cannot be combined with --for");
    std::string user = o.all ? "" : (o.as_user.empty() ? o.user : o.as_user);
    if (auto ok = render_jobs({}, o.jobs_format, false, false); !ok) return ok.err();
    return api::request_body{msg::grid_list_request{
        user, o.state, o.clusters.empty() ? "" : o.clusters.front(),
        o.jobs_history || !o.jobs_before.empty(), o.jobs_limit, o.jobs_before}};
  }
  // With -r: one job of a reservation (by its LRMS id); without: a grid job.
  if (cmd == "job show")
    return o.id.empty()
               ? api::request_body{msg::grid_query_request{body_user(o), o.job_id}}
               : api::request_body{msg::bound_job_query_request{body_user(o), o.id, o.job_id}};
  if (cmd == "job cancel")
    return o.id.empty()
               ? api::request_body{msg::grid_cancel_request{body_user(o), o.job_id}}
               : api::request_body{msg::bound_job_cancel_request{body_user(o), o.id, o.job_id}};
  if (cmd == "submit") {
    auto np = single_np(o);
    if (!np) return np.err();
    auto wall = duration_option("walltime", o.walltime);
    if (!wall) return wall.err();
    auto needs = job_needs(o);
    if (!needs) return needs.err();
    if (!needs->os.empty())
      return bad_option("os", "names a cluster's system: a job in a reservation runs where it is");
    return api::request_body{msg::bind_job_request{body_user(o), o.id, o.name, *np, *wall,
                                                   o.job_command, needs->mem_per_cpu,
                                                   needs->mem_per_node, needs->features}};
  }
  if (cmd == "watch") {
    if (o.all && !o.as_user.empty()) return bad_option("all", "cannot be combined with --for");
    msg::watch_request r{o.all ? "" : (o.as_user.empty() ? o.user : o.as_user), o.since, o.kinds};
    if (auto ok = msg::check(r); !ok)
      return bad_option(o.kinds.empty() ? "since" : "kind", ok.err().message);
    return api::request_body{std::move(r)};
  }
  if (cmd == "clusters") return api::request_body{api::cluster_list_request{}};
  if (cmd == "status") return api::request_body{api::status_request{o.clusters}};
  return fail(errc::invalid_parameter, "unknown command '" + cmd + "'");
}

}  // namespace arbroker::cli
