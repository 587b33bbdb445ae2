// `arb` as a whole: parse, connect, call, print, and the exit code of an outcome.
#include "cli.hpp"

#include <ostream>

#include "arbroker/api/client.hpp"
#include "arbroker/core/number_text.hpp"
#include "arbroker/core/time_format.hpp"
#include "typo_hint.hpp"

namespace arbroker::cli {

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
    case errc::gone:
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
  auto dur = parse_duration(o.dur_ref);  // used only when given
  if (!np) return "";
  const std::string runtime = o.dur_ref.empty() ? "the benchmarks' run time"
                              : dur             ? format_duration(*dur)
                                                : o.dur_ref;
  const std::string power =
      o.pp_ref > 0 ? "of power " + detail::number_text(o.pp_ref) : "of each cluster's power";
  return "asked: " + runtime + " on " + std::to_string(o.np_ref > 0 ? o.np_ref : np->first) +
         " CPUs " + power + "; DURATION and NP: what each cluster grants\n";
}

namespace {

// Whether the command line asks for JSON output (-o json, -ojson, --output json,
// --output=json), read from the words themselves: a command line CLI11 refused has no parsed
// options, and its error is still to be JSON then.
bool wants_json(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-ojson" || a == "--output=json") return true;
    if ((a == "-o" || a == "--output") && i + 1 < argc && std::string_view(argv[i + 1]) == "json")
      return true;
  }
  return false;
}

}  // namespace

// arb watch: a line per event as it comes (flushed, for pipes), until --count events, the
// node ends the watch, or the connection is lost.
int watch(api::client& c, const msg::watch_request& r, const options& o, std::ostream& out,
          std::ostream& err) {
  int seen = 0;
  bool started = false;
  std::uint64_t last = 0;
  auto ended = c.watch(r, [&](const msg::watch_reply& page) {
    if (!started)  // on stderr also with -o json: stdout stays one JSON object per line
      err << "watching after event "
          << (r.since >= 0 ? static_cast<std::uint64_t>(r.since) : page.last)
          << " (after a disconnect: arb watch --since <the last id seen>)" << std::endl;
    started = true;
    last = page.last;
    for (const auto& e : page.events) {
      out << render_event(e, o.output) << std::flush;
      if (o.count > 0 && ++seen >= o.count) return false;
    }
    return true;
  });
  if (ended) return exit_code::ok;
  const auto why = ended.err();
  (o.output == "json" ? out : err) << render_error(why, o.output);
  if (o.output == "table" && started) err << "resume with: arb watch --since " << last << "\n";
  if (why.code == errc::unreachable || why.code == errc::timeout)
    return exit_code_of_transport(why);
  api::response as_reply;
  as_reply.code = static_cast<std::uint8_t>(why.code);
  return exit_code_of(as_reply);
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        const std::function<timestamp()>& clock) {
  CLI::App app;
  options o;
  define(app, o);
  const bool json = wants_json(argc, argv);
  // An error found here, before the node is asked: JSON on stdout as the node's errors are
  // with -o json, else text on stderr.
  const auto refuse = [&](const error& e) {
    (json ? out : err) << render_error(e, json ? "json" : "table");
    return exit_code::usage;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (json && e.get_exit_code() != 0) {
      std::string why = e.what();
      if (auto hint = typo_hint(app, argc, argv); !hint.empty()) why = hint;
      return refuse(fail(errc::invalid_parameter, why));
    }
    int code = app.exit(e, out, err);
    if (code != 0)
      if (auto hint = typo_hint(app, argc, argv); !hint.empty()) err << "arb: " << hint << "\n";
    return code == 0 ? exit_code::ok : exit_code::usage;
  }
  auto body = build_request(o, clock());
  if (!body) return refuse(body.err());
  if (!(o.timeout > 0) || o.timeout > 86400)
    return refuse(fail(errc::invalid_parameter, "--timeout: must be in (0, 86400] seconds"));
  auto where = api::parse_server_list(o.server);
  if (!where) return refuse(fail(errc::invalid_parameter, "--server: " + where.err().message));
  if (o.user.empty())
    return refuse(fail(errc::invalid_parameter, "--user (or ARB_USER) is required"));
  api::client_options copts;
  copts.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout * 1000));
  if (!o.ca.empty()) {
    auto tls = api::make_client_tls({o.ca, o.cert, o.key});
    if (!tls) return refuse(tls.err());
    copts.tls = std::move(*tls);
  } else if (!o.cert.empty() || !o.key.empty()) {
    return refuse(fail(errc::invalid_parameter, "--cert and --key need --ca (TLS)"));
  }
  api::client c(copts);
  // Several nodes on one store: the one that serves, waiting out a failover up to the
  // timeout; one node: at once (a standby's leader is followed all the same).
  const auto wait = where->size() > 1 ? copts.timeout : std::chrono::milliseconds(0);
  auto w = c.connect_any(*where, o.user, o.token, wait);
  if (!w) {
    (o.output == "json" ? out : err) << render_error(w.err(), o.output);
    return exit_code_of_transport(w.err());
  }
  if (auto* wr = std::get_if<msg::watch_request>(&*body)) return watch(c, *wr, o, out, err);
  auto r = c.call(std::move(*body));
  if (!r) {
    (o.output == "json" ? out : err) << render_error(r.err(), o.output);
    return exit_code_of_transport(r.err());
  }
  if (auto* g = std::get_if<msg::grid_list_reply>(&r->body); g && r->ok() && o.output == "table") {
    out << render_jobs(*g, o.jobs_format, o.jobs_noheader, o.jobs_parsable)
               .value_or("");  // the format was checked before anything was sent
    if (!g->next.empty()) err << "more history: arb jobs --history --before '" << g->next << "'\n";
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
  if (auto* e = std::get_if<msg::elastic_reply>(&r->body);
      e && r->ok() && r->op == api::operation::elastic && e->ranked.empty() &&
      e->reservation.id.empty()) {
    // A what-if with nothing in the window: said as a failure, with each cluster's reason.
    (o.output == "json" ? out : err) << render(*r, o.output);
    return exit_code::unsatisfiable;
  }
  if (r->ok() || o.output == "json")
    out << render(*r, o.output) << (r->ok() && o.output == "table" ? asked_runtime(o) : "");
  else
    err << render(*r, o.output);
  return exit_code_of(*r);
}

}  // namespace arbroker::cli
