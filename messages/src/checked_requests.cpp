#include "arbroker/messages/checked_requests.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>

#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker::msg {
namespace {

error bad(errc code, const std::string& field, const std::string& problem) {
  return fail(code, field + ": " + problem);
}

error named(const std::string& field, const error& e) {
  return fail(e.code, field + ": " + e.message);
}

// The job's shape in core terms: window, processor range, reference duration and model.
result<arbroker::elastic_request> job_of(const std::string& user, timestamp est, timestamp let,
                                         std::int32_t np_min, std::int32_t np_max, duration dur_ref,
                                         double pp_ref, std::int32_t np_ref,
                                         const speedup_spec& speedup, const std::string& prefix) {
  auto sp = to_model(speedup);
  if (!sp) return named(prefix + "speedup", sp.err());
  arbroker::elastic_request job{user,    est,    let,    np_min,         np_max,
                                dur_ref, pp_ref, np_ref, std::move(*sp), {}};
  if (auto ok = validate(job); !ok) return fail(ok.err().code, prefix + ok.err().message);
  return job;
}

status check_preferences(const preferences& prefer) {
  if (prefer.empty()) return bad(errc::invalid_parameter, "prefer", "at least one preference");
  for (const auto& o : prefer)
    if (!is_enum_value<objective_attribute>(static_cast<std::uint8_t>(o.attribute)))
      return bad(errc::invalid_parameter, "prefer",
                 "unknown attribute " + std::to_string(static_cast<int>(o.attribute)));
  if (auto ok = validate(prefer); !ok) return named("prefer", ok.err());
  return {};
}

// Passed on to the batch systems' command lines and lists (scontrol's Accounts=a,b), so
// only a safe alphabet.
status check_account(const std::string& account) {
  if (account.size() > 64)
    return bad(errc::invalid_parameter, "account",
               std::to_string(account.size()) + " characters; at most 64");
  for (char c : account)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return bad(errc::invalid_parameter, "account",
                 "'" + account + "' may hold only letters, digits, '_', '-' and '.'");
  return {};
}

status check_esr(esr_method esr, double threshold) {
  if (!is_enum_value<esr_method>(static_cast<std::uint8_t>(esr)))
    return bad(errc::invalid_parameter, "esr",
               "unknown method " + std::to_string(static_cast<int>(esr)));
  if (!std::isfinite(threshold) || threshold > 1)
    return bad(errc::invalid_parameter, "esr_threshold",
               "must be in [0, 1], or negative for the broker's default; got " +
                   std::to_string(threshold));
  return {};
}

status check_slotting(std::int32_t tsn_max, std::int64_t tss_gap) {
  if (tsn_max < 1)
    return bad(errc::invalid_parameter, "tsn_max", std::to_string(tsn_max) + " is below 1");
  if (tss_gap < 0)
    return bad(errc::invalid_parameter, "tss_gap", std::to_string(tss_gap) + " s is negative");
  return {};
}

}  // namespace

result<checked_elastic_request> check(const elastic_request& r) {
  if (r.user.empty()) return fail(errc::permission_denied, "request without a user");
  auto job = job_of(r.user, r.est, r.let, r.np_min, r.np_max, r.dur_ref, r.pp_ref, r.np_ref,
                    r.speedup, "");
  if (!job) return job.err();
  checked_elastic_request out;
  out.job = std::move(*job);
  if (auto ok = check_preferences(r.prefer); !ok) return ok.err();
  out.prefer = r.prefer;
  if (!r.policy.empty()) {
    auto p = parse_match_policy(r.policy);
    if (!p) return named("policy", p.err());
    out.policy = *p;
  }
  if (!is_enum_value<request_mode>(static_cast<std::uint8_t>(r.mode)))
    return bad(errc::invalid_parameter, "mode",
               "unknown mode " + std::to_string(static_cast<int>(r.mode)));
  out.mode = r.mode;
  if (auto ok = check_esr(r.esr, r.esr_threshold); !ok) return ok.err();
  out.esr = r.esr;
  out.esr_threshold = r.esr_threshold;
  if (auto ok = check_slotting(r.tsn_max, r.tss_gap); !ok) return ok.err();
  out.slotting = {r.tsn_max, r.tss_gap};
  if (r.hold_seconds < 0)
    return bad(errc::invalid_duration, "hold_seconds",
               std::to_string(r.hold_seconds) + " s is negative");
  if (r.hold_seconds != 0 && r.mode != request_mode::hold)
    return bad(errc::invalid_parameter, "hold_seconds", "only meaningful in mode hold");
  out.hold_seconds = r.hold_seconds;
  out.where = {r.user, r.np_min, r.os, r.features, r.clusters};
  out.local_jobs_preferred = r.local_jobs_preferred;
  out.admin = r.admin;
  if (auto ok = check_account(r.account); !ok) return ok.err();
  out.account = r.account;
  out.movable = r.movable;
  auto hints = hints_of(r.benchmarks, r.penalty, r.inputs, r.output_bytes);
  if (!hints) return hints.err();
  out.job.hints = std::move(*hints);
  return out;
}

result<checked_coreservation_request> check(const coreservation_request& r) {
  if (r.user.empty()) return fail(errc::permission_denied, "request without a user");
  if (r.components.empty() || r.components.size() > max_coreservation_components)
    return bad(errc::invalid_parameter, "components",
               "a co-reservation needs 1 to " + std::to_string(max_coreservation_components) +
                   " components, not " + std::to_string(r.components.size()));
  if (r.max_attempts < 1)
    return bad(errc::invalid_parameter, "max_attempts",
               std::to_string(r.max_attempts) + " is below 1");
  if (auto ok = check_slotting(r.tsn_max, r.tss_gap); !ok) return ok.err();
  if (auto ok = check_preferences(r.prefer); !ok) return ok.err();
  for (const auto& o : r.prefer)
    if (o.attribute == objective_attribute::esr || o.attribute == objective_attribute::site)
      return bad(errc::invalid_parameter, "prefer",
                 "a co-reservation ranks its common starts by start, end, np, cost and "
                 "duration of the combined parts, not by " +
                     std::string(to_string(o.attribute)));
  if (r.est >= r.let)
    return bad(
        errc::invalid_window, "let",
        "must be after est (est " + std::to_string(r.est) + ", let " + std::to_string(r.let) + ")");
  checked_coreservation_request out;
  out.user = r.user;
  out.est = r.est;
  out.let = r.let;
  out.prefer = r.prefer;
  out.slotting = {r.tsn_max, r.tss_gap};
  out.max_attempts = r.max_attempts;
  if (auto ok = check_esr(r.esr, r.esr_threshold); !ok) return ok.err();
  out.esr = r.esr;
  out.esr_threshold = r.esr_threshold;
  out.local_jobs_preferred = r.local_jobs_preferred;
  out.admin = r.admin;
  if (auto ok = check_account(r.account); !ok) return ok.err();
  out.account = r.account;
  std::int32_t np_min = INT32_MAX;
  for (std::size_t i = 0; i < r.components.size(); ++i) {
    const auto& c = r.components[i];
    const std::string prefix = "components[" + std::to_string(i) + "].";
    if (c.offset < 0 || c.offset >= r.let - r.est)
      return bad(errc::invalid_window, prefix + "offset",
                 std::to_string(c.offset) + " s must lie inside the window");
    auto job = job_of(r.user, r.est + c.offset, r.let, c.np_min, c.np_max, c.dur_ref, c.pp_ref,
                      c.np_ref, c.speedup, prefix);
    if (!job) return job.err();
    np_min = std::min(np_min, c.np_min);
    out.components.push_back({std::move(*job), c.offset, c.clusters});
  }
  out.where.user = r.user;
  out.where.np_min = np_min;
  return out;
}

}  // namespace arbroker::msg
