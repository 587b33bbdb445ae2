#include "cli.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <ostream>

#include "arbroker/api/client.hpp"
#include "arbroker/core/number_text.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/success_rate.hpp"
#include "arbroker/core/time_format.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "typo_hint.hpp"
#include "version.hpp"

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

result<msg::grid_submit_request> grid_submit(const options& o) {
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
  return r;
}

}  // namespace

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
  if (cmd == "submit" && o.id.empty()) {
    auto r = grid_submit(o);
    if (!r) return r.err();
    return api::request_body{std::move(*r)};
  }
  if (cmd == "jobs") {
    if (o.all && !o.as_user.empty()) return bad_option("all", "cannot be combined with --for");
    std::string user = o.all ? "" : (o.as_user.empty() ? o.user : o.as_user);
    return api::request_body{msg::grid_list_request{
        user, o.state, o.clusters.empty() ? "" : o.clusters.front(),
        o.jobs_history || !o.jobs_before.empty(), o.jobs_limit, o.jobs_before}};
  }
  if (cmd == "job show") return api::request_body{msg::grid_query_request{body_user(o), o.id}};
  if (cmd == "job cancel") return api::request_body{msg::grid_cancel_request{body_user(o), o.id}};
  if (cmd == "submit") {
    auto np = single_np(o);
    if (!np) return np.err();
    auto wall = duration_option("walltime", o.walltime);
    if (!wall) return wall.err();
    return api::request_body{
        msg::bind_job_request{body_user(o), o.id, o.name, *np, *wall, o.job_command}};
  }
  if (cmd == "clusters") return api::request_body{api::cluster_list_request{}};
  if (cmd == "status") return api::request_body{api::status_request{o.clusters}};
  return fail(errc::invalid_parameter, "unknown command '" + cmd + "'");
}

void define(CLI::App& app, options& o) {
  app.description("arb: talk to an arbroker node (advance reservations across clusters)");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("arb, arbroker ") + build_version() +
                                        ", protocol " + std::to_string(api::protocol_version));
  app.add_option("--server,-s", o.server, "broker address host:port")
      ->envname("ARB_SERVER")
      ->capture_default_str();
  app.add_option("--user,-u", o.user, "user name")->envname("ARB_USER");
  app.add_option("--token,-t", o.token, "secret token")->envname("ARB_TOKEN");
  app.add_option("--ca", o.ca, "TLS: CA of the node's certificate (PEM); without it, plain text")
      ->envname("ARB_CA");
  app.add_option("--cert", o.cert, "TLS: client certificate (PEM), if the node asks for one")
      ->envname("ARB_CERT");
  app.add_option("--key", o.key, "TLS: the client certificate's private key (PEM)")
      ->envname("ARB_KEY");
  app.add_option("--output,-o", o.output, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds to wait for the broker")->capture_default_str();
  app.add_option("--for", o.as_user, "act for this user (admins only)");

  auto window = [&o](CLI::App* sub) {
    sub->add_option("--est", o.est, "earliest start (now, now+1h, ISO 8601, epoch)")
        ->capture_default_str();
    sub->add_option("--let", o.let, "latest end")->required();
  };
  auto slotting = [&o](CLI::App* sub) {
    sub->add_option("--prefer", o.prefer, "preferences, e.g. end,cost,-esr");
    sub->add_option("--tsn-max", o.tsn_max, "start times tried per cluster")->capture_default_str();
    sub->add_option("--tss-gap", o.tss_gap, "gap between tried start times")->capture_default_str();
    sub->add_flag("--no-local-preference", o.no_local_preference,
                  "may postpone queued local jobs (an admin's right where a site enforces "
                  "local-jobs-preferred)");
  };
  // Paper 003 Sec. 3.2, for grid jobs and elastic requests alike.
  auto hint_options = [&o](CLI::App* sub, const std::string& benchmark_help) {
    sub->add_option("--benchmark", o.benchmarks,
                    "name=result:time, e.g. linpack=12.5:2h: " + benchmark_help + " (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--penalty", o.penalty, "c: a missing benchmark counts c x the longest other")
        ->capture_default_str();
    sub->add_option("--input", o.inputs, "input file location:size, e.g. gsiftp://h/f:2GB")
        ->allow_extra_args(false);
    sub->add_option("--output-size", o.output_size, "expected output, e.g. 500MB");
  };
  auto elastic_options = [&](CLI::App* sub) {
    window(sub);
    sub->add_option("--np", o.np, "processors: N or MIN-MAX")->required();
    sub->add_option("--runtime,--dur-ref", o.dur_ref,
                    "run time on --np-ref CPUs of power --pp-ref (2h, 90m); each cluster gets "
                    "it adapted to its CPUs; optional with --benchmark");
    sub->add_option("--pp-ref", o.pp_ref,
                    "processor power --runtime is for (default: each cluster's own, no scaling)");
    sub->add_option("--np-ref", o.np_ref,
                    "CPU count --runtime is for (default: the lower end of --np)");
    sub->add_option("--speedup", o.speedup, "amdahl:SEQ, downey:A:SIGMA or table:N=S,...")
        ->capture_default_str();
    sub->add_option("--policy", o.policy, "matchmaking policy instead of preferences");
    sub->add_option("--esr", o.esr, "success-rate method: static, history, load")
        ->capture_default_str();
    sub->add_option("--esr-threshold", o.esr_threshold, "minimum success rate (0..1)");
    sub->add_option("--os", o.os, "required operating system");
    sub->add_option("--account", o.account,
                    "account the reservation (and its jobs) is charged to (paper 003)");
    sub->add_flag("--movable", o.movable,
                  "run within [est, let]: a cluster with laxity may move the reservation there "
                  "until it starts (paper 002); arb show tells the current start");
    sub->add_option("--feature", o.features, "required feature (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--cluster", o.clusters, "allowed cluster (repeatable; default any)")
        ->allow_extra_args(false);
    hint_options(sub, "run time on np-ref CPUs of a system with that result");
    slotting(sub);
  };
  auto id_arg = [&o](CLI::App* sub) { sub->add_option("id", o.id, "reservation id")->required(); };
  auto named = [&](const char* name, const char* help) {
    auto* sub = app.add_subcommand(name, help);
    sub->callback([&o, name] { o.command = name; });
    return sub;
  };

  elastic_options(named("reserve", "reserve and commit the best candidate"));
  auto* hold = named("hold", "hold the best candidate; commit it later with `arb commit`");
  elastic_options(hold);
  hold->add_option("--hold-for", o.hold_for, "how long the hold lasts (default: the node's)");
  elastic_options(named("whatif", "rank the candidates without reserving"));

  auto* co = named("coreserve",
                   "reserve components that start together (on distinct clusters where possible)");
  window(co);
  co->add_option("--component,-c", o.components,
                 "np=4-8;dur=2h;np-ref=4;pp-ref=1500;speedup=amdahl:0.1;offset=10m;clusters=a,b")
      ->required()
      ->allow_extra_args(false);
  co->add_option("--max-attempts", o.max_attempts, "common slots to try")->capture_default_str();
  co->add_option("--account", o.account, "account every part is charged to");
  co->add_option("--esr", o.esr, "success-rate method of every part: static, history, load")
      ->capture_default_str();
  co->add_option("--esr-threshold", o.esr_threshold, "minimum success rate of every part (0..1)");
  slotting(co);

  auto* est = named("estimate", "earliest start of a job on each cluster");
  est->add_option("--np", o.np, "processors")->required();
  est->add_option("--walltime", o.walltime, "run time, e.g. 2h")->required();
  est->add_option("--cluster", o.clusters, "cluster to ask (repeatable; default all)")
      ->allow_extra_args(false);
  est->add_option("--ready", o.ready, "not before (e.g. now+1h: when the input is there)");
  est->add_option("--deadline", o.deadline, "ending by (e.g. now+12h)");

  auto* commit = named("commit",
                       "commit a held reservation, optionally with a job to run in it (both or "
                       "neither)");
  id_arg(commit);
  commit->add_option("--np", o.np, "the job's processors");
  commit->add_option("--walltime", o.walltime, "the job's run time limit, e.g. 1h");
  commit->add_option("--name", o.name, "the job's name");
  commit->add_option("--command", o.job_command, "the job's command");
  auto* coalloc = named("coallocate",
                        "start a job in every part of a co-reservation, all or none (if one "
                        "part's job cannot start, none is kept)");
  coalloc->add_option("ids", o.ids, "the parts' reservation ids")->required();
  coalloc->add_option("--np", o.np, "processors: one value for every part, or N1,N2,... per part")
      ->required();
  coalloc->add_option("--walltime", o.walltime, "the jobs' run time limit, e.g. 1h")->required();
  coalloc->add_option("--name", o.name, "the jobs' name");
  coalloc->add_option("--command", o.job_command, "the jobs' command");
  id_arg(named("show", "show one reservation"));
  id_arg(named("cancel", "cancel a reservation"));
  auto* list = named("list", "list your reservations");
  list->add_flag("--all", o.all, "every user's reservations (admins only)");
  list->add_option("--state", o.list.states,
                   "only this state (repeatable; default: live ones: accepted, committed, "
                   "change_requested, active)")
      ->allow_extra_args(false);
  list->add_flag("--history", o.list.history,
                 "also completed, cancelled, expired, ... ones (a page of them, the most recently "
                 "finished first)");
  list->add_option("--limit", o.list.limit, "finished ones per page of history (default 100)")
      ->check(CLI::Range(1, 1000));
  list->add_option("--before", o.list.before,
                   "the next page of history: the cursor the previous page named");
  list->add_option("--cluster", o.list.clusters, "only this cluster (repeatable)")
      ->allow_extra_args(false);
  list->add_option("--owner", o.list.owners, "only this owner's (repeatable; with --all)")
      ->allow_extra_args(false);
  list->add_option("--from", o.list.from, "only those ending after T");
  list->add_option("--to", o.list.to, "only those starting before T");
  list->add_option("--sort", o.list.sort, "field to sort by, -field descending")
      ->capture_default_str();
  list->add_option("--format", o.list.format,
                   "fields to show, e.g. id,start,duration,np (id, cluster, owner, start, end, "
                   "duration, np, state, cost, expiry, account, finished, created, window)");
  list->add_flag("--noheader", o.list.noheader, "no header line");
  list->add_flag("--parsable", o.list.parsable, "fields separated by '|', no padding");
  auto* modify = named("modify", "change a committed reservation's terms");
  id_arg(modify);
  modify->add_option("--start", o.start, "new start")->required();
  modify->add_option("--end", o.end, "new end");
  modify->add_option("--duration", o.duration, "new length (instead of --end)");
  modify->add_option("--np", o.np, "new processor count")->required();
  modify->add_flag("--no-local-preference", o.no_local_preference,
                   "may postpone queued local jobs (an admin's right where a site enforces "
                   "local-jobs-preferred)");
  auto* submit = named("submit",
                       "submit a job: into a reservation (--reservation), or as a grid job the "
                       "broker places by --strategy");
  submit->add_option("--reservation,-r", o.id, "reservation id (omit: a grid job)");
  submit->add_option("--np", o.np, "processors")->required();
  submit->add_option("--walltime", o.walltime, "run time limit, e.g. 1h");
  submit->add_option("--name", o.name, "job name");
  submit->add_option("--command", o.job_command, "command to run");
  submit->add_option("--strategy", o.strategy, "grid job: single, flood, adaptive, reserve")
      ->capture_default_str();
  submit->add_option("--width", o.width, "grid job: copies of a flood (1..16)")
      ->capture_default_str();
  submit
      ->add_option("--rank", o.rank,
                   "grid job: rank clusters by the earliest planned start (start) or by paper "
                   "004's SED delay (sed)")
      ->capture_default_str();
  hint_options(submit, "grid job: run time on a system with that result");
  submit->add_option("--min-gain", o.min_gain, "adaptive: migrate only for more than this");
  submit->add_option("--max-migrations", o.max_migrations, "adaptive: at most this many (-1: any)");
  submit->add_flag("--finish-eq7", o.finish_eq7,
                   "reserve: rank holds by paper 004's eq. 7 as printed (default: start + run)");
  submit->add_option("--cluster", o.clusters, "grid job: allowed cluster (repeatable)")
      ->allow_extra_args(false);
  auto* jobs = named("jobs", "list your grid jobs");
  jobs->add_option("--state", o.state, "only in this state (queued, running, ...)");
  jobs->add_option("--cluster", o.clusters, "only with a copy on this cluster")
      ->allow_extra_args(false);
  jobs->add_flag("--all", o.all, "every user's grid jobs (admins only)");
  jobs->add_flag("--history", o.jobs_history,
                 "ended ones too, from the node's store, most recently ended first, by pages");
  jobs->add_option("--limit", o.jobs_limit, "ended ones per page of history (default 100)")
      ->check(CLI::Range(1, 1000));
  jobs->add_option("--before", o.jobs_before,
                   "the next page of history: the cursor the previous page named");
  auto* job = app.add_subcommand("job", "one grid job");
  job->require_subcommand(1);
  auto* job_show = job->add_subcommand("show", "a grid job with its copies and history");
  job_show->add_option("id", o.id, "grid job id")->required();
  job_show->callback([&o] { o.command = "job show"; });
  auto* job_cancel = job->add_subcommand("cancel", "cancel a grid job and every copy of it");
  job_cancel->add_option("id", o.id, "grid job id")->required();
  job_cancel->callback([&o] { o.command = "job cancel"; });
  named("clusters", "list the clusters of this node");
  auto* status = named("status", "current state of the clusters");
  status->add_option("--cluster", o.clusters, "cluster (repeatable; default all)")
      ->allow_extra_args(false);
}

int exit_code_of_transport(const error& e) {
  switch (e.code) {
    case errc::permission_denied:
      return exit_code::auth;
    case errc::invalid_parameter:
      return exit_code::failed;  // the server speaks something else, or a bad reply
    default:
      return exit_code::unreachable;
  }
}

int exit_code_of(const api::response& r) {
  if (r.ok()) return exit_code::ok;
  switch (static_cast<errc>(r.code)) {
    case errc::invalid_window:
    case errc::invalid_processor_range:
    case errc::invalid_duration:
    case errc::invalid_speedup_model:
    case errc::invalid_parameter:
    case errc::illegal_transition:
      return exit_code::invalid;
    case errc::not_found:
      return exit_code::not_found;
    case errc::infeasible:
    case errc::busy:
    case errc::capacity_exceeded:
      return exit_code::unsatisfiable;
    case errc::permission_denied:
      return exit_code::denied;
    case errc::internal:  // a bug in the node: not the caller's to fix
    default:
      return exit_code::failed;
  }
}

// Under the table of what each cluster grants, the run time asked for in the user's terms:
// eq. 5 adapts it to each CPU count, and --pp-ref scales it to each cluster's CPUs.
std::string asked_runtime(const options& o) {
  if (o.command != "reserve" && o.command != "hold" && o.command != "whatif") return "";
  auto np = parse_np_range(o.np);
  auto dur = duration_option("runtime", o.dur_ref);
  if (!np) return "";
  const std::string runtime = o.dur_ref.empty() ? "the benchmarks' run time"
                              : dur             ? format_duration(*dur)
                                                : o.dur_ref;
  const std::string power =
      o.pp_ref > 0 ? "of power " + detail::number_text(o.pp_ref) : "of each cluster's power";
  return "asked: " + runtime + " on " + std::to_string(o.np_ref > 0 ? o.np_ref : np->first) +
         " CPUs " + power + "; DURATION and NP: what each cluster grants\n";
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        const std::function<timestamp()>& clock) {
  CLI::App app;
  options o;
  define(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    if (code != 0)
      if (auto hint = typo_hint(app, argc, argv); !hint.empty()) err << "arb: " << hint << "\n";
    return code == 0 ? exit_code::ok : exit_code::usage;
  }
  auto body = build_request(o, clock());
  if (!body) {
    err << render_error(body.err(), "table");
    return exit_code::usage;
  }
  if (!(o.timeout > 0) || o.timeout > 86400) {
    err << render_error(fail(errc::invalid_parameter, "--timeout: must be in (0, 86400] seconds"),
                        "table");
    return exit_code::usage;
  }
  auto where = api::parse_host_port(o.server);
  if (!where) {
    err << render_error(fail(errc::invalid_parameter, "--server: " + where.err().message), "table");
    return exit_code::usage;
  }
  if (o.user.empty()) {
    err << render_error(fail(errc::invalid_parameter, "--user (or ARB_USER) is required"), "table");
    return exit_code::usage;
  }
  api::client_options copts;
  copts.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout * 1000));
  if (!o.ca.empty()) {
    auto tls = api::make_client_tls({o.ca, o.cert, o.key});
    if (!tls) {
      err << render_error(tls.err(), "table");
      return exit_code::usage;
    }
    copts.tls = std::move(*tls);
  } else if (!o.cert.empty() || !o.key.empty()) {
    err << render_error(fail(errc::invalid_parameter, "--cert and --key need --ca (TLS)"), "table");
    return exit_code::usage;
  }
  api::client c(copts);
  auto w = c.connect(where->first, where->second, o.user, o.token);
  if (!w) {
    (o.output == "json" ? out : err) << render_error(w.err(), o.output);
    return exit_code_of_transport(w.err());
  }
  auto r = c.call(std::move(*body));
  if (!r) {
    (o.output == "json" ? out : err) << render_error(r.err(), o.output);
    return exit_code_of_transport(r.err());
  }
  if (auto* g = std::get_if<msg::grid_list_reply>(&r->body);
      g && r->ok() && o.output == "table" && !g->next.empty()) {
    out << render(*r, o.output);
    err << "more history: arb jobs --history --before '" << g->next << "'\n";
    return exit_code::ok;
  }
  if (auto* l = std::get_if<msg::list_reply>(&r->body); l && r->ok()) {
    (void)apply_list_view(o.list, clock(), *l);  // checked in build_request
    if (o.output == "table") {
      out << *render_list(o.list, *l);
      if (!l->next.empty())
        err << "more history: arb list --history --before '" << l->next << "'\n";
      return exit_code::ok;
    }
  }
  if (r->ok() || o.output == "json")
    out << render(*r, o.output) << (r->ok() && o.output == "table" ? asked_runtime(o) : "");
  else
    err << render(*r, o.output);
  return exit_code_of(*r);
}

}  // namespace arbroker::cli
