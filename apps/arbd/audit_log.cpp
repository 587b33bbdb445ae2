#include "audit_log.hpp"

#include <spdlog/spdlog.h>

#include "arbroker/core/time_format.hpp"
#include "refusal_flood.hpp"

#include <chrono>
#include <cstdio>
#include <memory>

namespace arbroker {

std::string log_quoted(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c > 0x7e) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {
// Set once at start-up, before the engine starts; read by engine threads.
std::shared_ptr<spdlog::logger> installed;
std::shared_ptr<refusal_flood> floods;
}  // namespace

void audit_reservation(const reservation_row& r) {
  if (!installed) return;
  installed->info(
      "event=reservation id={} cluster={} owner={} state={} start={} end={} np={} cost={:.2f} "
      "txn={} lrms_id={}",
      log_quoted(r.id), log_quoted(r.cluster), log_quoted(r.owner), to_string(r.state),
      format_time(r.start), format_time(r.end), r.np, r.cost, log_quoted(r.txn),
      log_quoted(r.lrms_id));
}

void audit_note(const std::string& line) {
  (installed ? installed : spdlog::default_logger())->info("{}", line);
}

void audit_refusal_summaries(bool all) {
  if (!installed || !floods) return;
  const auto now = all ? refusal_flood::clock::time_point::max() : refusal_flood::clock::now();
  for (const auto& s : floods->due(now))
    installed->warn(
        "event=refusals_summarized api={} user={} peer={} outcome={} suppressed={} "
        "over_s={:.1f}",
        api::to_string(s.who.via), log_quoted(s.who.user), s.who.peer,
        to_string(static_cast<errc>(s.who.code)), s.suppressed,
        std::chrono::duration<double>(s.span).count());
}

void install_audit_trail() {
  auto base = spdlog::default_logger();
  auto audit =
      std::make_shared<spdlog::logger>("audit", base->sinks().begin(), base->sinks().end());
  audit->set_level(spdlog::get_level() == spdlog::level::off ? spdlog::level::off
                                                             : spdlog::level::info);
  audit->flush_on(base->flush_level());  // as the node's own lines (a log file flushes each)
  installed = audit;
}

void install_audit_log(api::server_events& events, audit_limits limits) {
  install_audit_trail();
  auto audit = installed;
  floods = std::make_shared<refusal_flood>(limits.interval, limits.burst);
  events.on_request_done = [audit, flood = floods](const api::request_record& r) {
    if (r.code != 0 && !flood->admit({r.via, r.user, r.peer, r.code}, refusal_flood::clock::now()))
      return;  // counted: audit_refusal_summaries() writes it
    const double ms = std::chrono::duration<double, std::milli>(r.latency).count();
    const auto outcome =
        r.code == 0 ? std::string_view("ok") : to_string(static_cast<errc>(r.code));
    // A refusal also says why.
    const std::string why = r.code == 0 ? "" : " message=" + log_quoted(r.message);
    audit->info(
        "event=request api={} user={} peer={} op={} id={} subject={} outcome={} "
        "latency_ms={:.3f}{}",
        api::to_string(r.via), log_quoted(r.user), r.peer, api::to_string(r.op), r.id,
        log_quoted(r.subject), outcome, ms, why);
  };
  events.on_login_refused = [audit](const api::login_refusal& r) {
    audit->warn("event=login_refused api={} user={} peer={} code={} reason={}",
                api::to_string(r.via), log_quoted(r.user), r.peer, to_string(r.code),
                log_quoted(r.reason));
  };
}

}  // namespace arbroker
