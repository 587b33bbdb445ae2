#include "arbroker/api/validate.hpp"

#include <utf8cpp/utf8.h>

#include <cmath>
#include <set>
#include <string>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/number_text.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/time_format.hpp"
#include "arbroker/messages/checked_requests.hpp"

namespace arbroker::api {

namespace {

using detail::number_text;

error bad(errc code, std::string_view field, std::string problem) {
  return fail(code, std::string(field) + ": " + std::move(problem));
}

bool printable(std::string_view s) noexcept {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

status check_text(std::string_view field, std::string_view s, std::size_t max, bool required) {
  if (required && s.empty()) return bad(errc::invalid_parameter, field, "must not be empty");
  if (s.size() > max)
    return bad(errc::invalid_parameter, field,
               "too long (" + std::to_string(s.size()) + " > " + std::to_string(max) + ")");
  if (!valid_utf8(s)) return bad(errc::invalid_parameter, field, "is not valid UTF-8");
  if (!printable(s)) return bad(errc::invalid_parameter, field, "contains control characters");
  return {};
}

status check_user(std::string_view field, std::string_view user) {
  // Empty means "the caller"; apply_caller fills it in.
  if (user.empty()) return {};
  if (!valid_user_name(user))
    return bad(errc::invalid_parameter, field,
               "not a user name (1.." + std::to_string(bounds::max_name) +
                   " characters of A-Z a-z 0-9 . _ @ -)");
  return {};
}

status check_names(std::string_view field, const std::vector<std::string>& names) {
  if (names.size() > bounds::max_list)
    return bad(errc::invalid_parameter, field,
               "too many entries (" + std::to_string(names.size()) + " > " +
                   std::to_string(bounds::max_list) + ")");
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string item = std::string(field) + "[" + std::to_string(i) + "]";
    if (auto s = check_text(item, names[i], bounds::max_name, true); !s) return s;
  }
  return {};
}

status check_time(std::string_view field, std::int64_t t) {
  if (t < 0 || t > bounds::max_time)
    return bad(
        errc::invalid_window, field,
        "time " + std::to_string(t) + " outside [0, " + std::to_string(bounds::max_time) + "]");
  return {};
}

status check_window(std::string_view prefix, std::int64_t est, std::int64_t let) {
  const std::string p(prefix);
  if (auto s = check_time(p + ".est", est); !s) return s;
  if (auto s = check_time(p + ".let", let); !s) return s;
  if (est >= let)
    return bad(errc::invalid_window, p + ".let",
               "must be after est (est " + format_time(est) + ", let " + format_time(let) + ")");
  if (let - est > bounds::max_span)
    return bad(errc::invalid_window, p + ".let",
               "window longer than " + std::to_string(bounds::max_span) + " s");
  return {};
}

status check_positive_duration(std::string_view field, std::int64_t d) {
  if (d <= 0 || d > bounds::max_span)
    return bad(errc::invalid_duration, field,
               std::to_string(d) + " s outside [1, " + std::to_string(bounds::max_span) + "]");
  return {};
}

status check_np(std::string_view field, std::int32_t np) {
  if (np < 1 || np > bounds::max_np)
    return bad(errc::invalid_processor_range, field,
               std::to_string(np) + " outside [1, " + std::to_string(bounds::max_np) + "]");
  return {};
}

// A job to run in a reservation (bind_job, commit's jobs): fields "<prefix>.name", ...
status check_job_terms(const std::string& prefix, const std::string& name, std::int32_t np,
                       std::int64_t walltime, const std::string& command) {
  if (auto s = check_text(prefix + ".name", name, bounds::max_id, false); !s) return s;
  if (auto s = check_np(prefix + ".np", np); !s) return s;
  if (auto s = check_positive_duration(prefix + ".walltime", walltime); !s) return s;
  if (command.size() > bounds::max_text)
    return bad(errc::invalid_parameter, prefix + ".command",
               "too long (" + std::to_string(command.size()) + " > " +
                   std::to_string(bounds::max_text) + ")");
  if (command.find('\0') != std::string::npos)
    return bad(errc::invalid_parameter, prefix + ".command", "contains a NUL byte");
  // A script may have newlines and tabs, but it is text: an LRMS keeps it, show prints it.
  if (!valid_utf8(command))
    return bad(errc::invalid_parameter, prefix + ".command", "is not valid UTF-8");
  return {};
}

// What a job needs of its nodes (core/job_requirements.hpp): fields "<prefix>.mem_per_cpu", ...
status check_needs(const std::string& prefix, const job_requirements& needs) {
  if (auto s = check_names(prefix + ".features", needs.features); !s) return s;
  if (auto s = check_text(prefix + ".os", needs.os, bounds::max_name, false); !s) return s;
  if (auto s = check(needs); !s) return fail(s.err().code, prefix + "." + s.err().message);
  return {};
}

// Every job of a list (commit's, a co-allocation part's): fields "<prefix>[i].name", ...
status check_job_list(const std::string& prefix, const std::vector<msg::job_terms>& jobs) {
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    const std::string at = prefix + "[" + std::to_string(i) + "]";
    if (auto s = check_job_terms(at, j.name, j.np, j.walltime, j.command); !s) return s;
    if (auto s = check_needs(at, {j.mem_per_cpu, j.mem_per_node, j.features, {}}); !s) return s;
  }
  return {};
}

status check_np_range(std::string_view prefix, std::int32_t lo, std::int32_t hi) {
  const std::string p(prefix);
  if (auto s = check_np(p + ".np_min", lo); !s) return s;
  if (auto s = check_np(p + ".np_max", hi); !s) return s;
  if (lo > hi)
    return bad(errc::invalid_processor_range, p + ".np_max",
               "below np_min (" + std::to_string(hi) + " < " + std::to_string(lo) + ")");
  return {};
}

status check_job_shape(std::string_view prefix, std::int64_t dur_ref, double pp_ref,
                       std::int32_t np_ref, const msg::speedup_spec& sp) {
  const std::string p(prefix);
  if (auto s = check_positive_duration(p + ".dur_ref", dur_ref); !s) return s;
  // 0 for either: the cluster's power, np_min (what a request that names no reference means).
  if (pp_ref != 0 && (!detail::positive_finite(pp_ref) || pp_ref > 1e12))
    return bad(
        errc::invalid_parameter, p + ".pp_ref",
        "must be 0 (the cluster's) or a finite number in (0, 1e12], got " + number_text(pp_ref));
  if (np_ref != 0)
    if (auto s = check_np(p + ".np_ref", np_ref); !s) return s;
  if (sp.table_n.size() > bounds::max_speedup_points ||
      sp.table_speedup.size() > bounds::max_speedup_points)
    return bad(errc::invalid_speedup_model, p + ".speedup",
               "table longer than " + std::to_string(bounds::max_speedup_points) + " points");
  if (!std::isfinite(sp.p1) || !std::isfinite(sp.p2))
    return bad(errc::invalid_speedup_model, p + ".speedup", "parameters must be finite");
  for (double v : sp.table_speedup)
    if (!std::isfinite(v))
      return bad(errc::invalid_speedup_model, p + ".speedup", "table speedups must be finite");
  return {};  // whether it is a valid model: msg::check(), which makes the model
}

status check_slotting(std::string_view prefix, std::int32_t tsn_max, std::int64_t tss_gap) {
  const std::string p(prefix);
  if (tsn_max < 1 || tsn_max > bounds::max_tsn)
    return bad(errc::invalid_parameter, p + ".tsn_max",
               std::to_string(tsn_max) + " outside [1, " + std::to_string(bounds::max_tsn) + "]");
  if (tss_gap < 1 || tss_gap > bounds::max_span)
    return bad(
        errc::invalid_parameter, p + ".tss_gap",
        std::to_string(tss_gap) + " s outside [1, " + std::to_string(bounds::max_span) + "]");
  return {};
}

status check_prefer(std::string_view field, const preferences& prefer) {
  // At most one entry per attribute; whether they repeat one: msg::check().
  if (prefer.size() > static_cast<std::size_t>(enum_bounds<objective_attribute>::last) + 1)
    return bad(errc::invalid_parameter, field,
               std::to_string(prefer.size()) + " preferences for " +
                   std::to_string(static_cast<int>(enum_bounds<objective_attribute>::last) + 1) +
                   " attributes");
  return {};
}

status check_reservation_id(std::string_view field, const std::string& id) {
  return check_text(field, id, bounds::max_id, true);
}

}  // namespace

bool valid_user_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > bounds::max_name) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {
status check_hints(const std::string& where, const std::vector<msg::benchmark_triple>& benchmarks,
                   double penalty, const std::vector<msg::input_file>& inputs,
                   std::int64_t output_bytes);
}  // namespace

status validate(const msg::elastic_request& r) {
  if (auto s = check_user("elastic.user", r.user); !s) return s;
  if (auto s = check_window("elastic", r.est, r.let); !s) return s;
  if (auto s = check_np_range("elastic", r.np_min, r.np_max); !s) return s;
  if (auto s = check_job_shape("elastic", r.dur_ref, r.pp_ref, r.np_ref, r.speedup); !s) return s;
  if (auto s = check_prefer("elastic.prefer", r.prefer); !s) return s;
  if (auto s = check_text("elastic.policy", r.policy, bounds::max_name, false); !s) return s;
  if (!std::isfinite(r.esr_threshold) || r.esr_threshold > 1)
    return bad(errc::invalid_parameter, "elastic.esr_threshold",
               "must be in [0, 1], or negative for the broker's default; got " +
                   number_text(r.esr_threshold));
  if (auto s = check_slotting("elastic", r.tsn_max, r.tss_gap); !s) return s;
  if (r.hold_seconds < 0 || r.hold_seconds > bounds::max_hold)
    return bad(errc::invalid_duration, "elastic.hold_seconds",
               std::to_string(r.hold_seconds) + " s outside [0, " +
                   std::to_string(bounds::max_hold) + "]");
  if (auto s = check_text("elastic.os", r.os, bounds::max_name, false); !s) return s;
  if (auto s = check_names("elastic.features", r.features); !s) return s;
  if (auto s = check_names("elastic.clusters", r.clusters); !s) return s;
  return check_hints("elastic", r.benchmarks, r.penalty, r.inputs, r.output_bytes);
}

status validate(const msg::coreservation_request& r) {
  if (auto s = check_user("coreserve.user", r.user); !s) return s;
  if (auto s = check_window("coreserve", r.est, r.let); !s) return s;
  if (r.components.empty() || r.components.size() > msg::max_coreservation_components)
    return bad(errc::invalid_parameter, "coreserve.components",
               std::to_string(r.components.size()) + " components outside [1, " +
                   std::to_string(msg::max_coreservation_components) + "]");
  for (std::size_t i = 0; i < r.components.size(); ++i) {
    const auto& c = r.components[i];
    const std::string p = "coreserve.components[" + std::to_string(i) + "]";
    if (auto s = check_np_range(p, c.np_min, c.np_max); !s) return s;
    if (auto s = check_job_shape(p, c.dur_ref, c.pp_ref, c.np_ref, c.speedup); !s) return s;
    if (c.offset < 0 || c.offset > bounds::max_span)
      return bad(
          errc::invalid_parameter, p + ".offset",
          std::to_string(c.offset) + " s outside [0, " + std::to_string(bounds::max_span) + "]");
    if (auto s = check_names(p + ".clusters", c.clusters); !s) return s;
  }
  if (auto s = check_prefer("coreserve.prefer", r.prefer); !s) return s;
  if (auto s = check_slotting("coreserve", r.tsn_max, r.tss_gap); !s) return s;
  if (r.max_attempts < 1 || r.max_attempts > bounds::max_attempts)
    return bad(errc::invalid_parameter, "coreserve.max_attempts",
               std::to_string(r.max_attempts) + " outside [1, " +
                   std::to_string(bounds::max_attempts) + "]");
  return {};
}

status validate(const estimate_request& r) {
  if (auto s = check_user("estimate.user", r.user); !s) return s;
  if (auto s = check_np("estimate.np", r.np); !s) return s;
  if (auto s = check_positive_duration("estimate.walltime", r.walltime); !s) return s;
  // 0: none; otherwise a time a request may name (an estimate from the year 2603 helps no one).
  if (auto s = check_time("estimate.ready", r.ready); !s) return s;
  if (auto s = check_time("estimate.deadline", r.deadline); !s) return s;
  if (r.deadline > 0 && r.deadline - r.walltime < std::max<std::int64_t>(r.ready, 0))
    return bad(errc::invalid_window, "estimate.deadline",
               "leaves no room for the walltime after the ready time");
  return check_names("estimate.clusters", r.clusters);
}

status validate(const msg::commit_request& r) {
  if (auto s = check_user("commit.user", r.user); !s) return s;
  if (auto s = check_reservation_id("commit.reservation_id", r.reservation_id); !s) return s;
  if (r.jobs.size() > bounds::max_commit_jobs)
    return bad(errc::invalid_parameter, "commit.jobs",
               std::to_string(r.jobs.size()) + " jobs; at most " +
                   std::to_string(bounds::max_commit_jobs) + " in one commit");
  return check_job_list("commit.jobs", r.jobs);
}

status validate(const msg::modify_request& r) {
  if (auto s = check_user("modify.user", r.user); !s) return s;
  if (auto s = check_reservation_id("modify.reservation_id", r.reservation_id); !s) return s;
  if (auto s = check_time("modify.start", r.start); !s) return s;
  if (auto s = check_time("modify.end", r.end); !s) return s;
  if (r.start >= r.end)
    return bad(errc::invalid_window, "modify.end",
               "must be after start (start " + std::to_string(r.start) + ", end " +
                   std::to_string(r.end) + ")");
  if (r.end - r.start > bounds::max_span)
    return bad(errc::invalid_window, "modify.end",
               "reservation longer than " + std::to_string(bounds::max_span) + " s");
  return check_np("modify.np", r.np);
}

status validate(const msg::cancel_request& r) {
  if (auto s = check_user("cancel.user", r.user); !s) return s;
  return check_reservation_id("cancel.reservation_id", r.reservation_id);
}

status validate(const msg::query_request& r) {
  if (auto s = check_user("query.user", r.user); !s) return s;
  return check_reservation_id("query.reservation_id", r.reservation_id);
}

namespace {

// A page of history: `limit` rows (0: the node's default) after the cursor `before`
// ("<ended>:<id>" from a previous page; the node checks that it reads as one).
status check_history_page(const std::string& request, std::int32_t limit,
                          const std::string& before) {
  if (limit < 0 || limit > bounds::max_history_page)
    return bad(errc::invalid_parameter, request + ".limit",
               std::to_string(limit) + " is not in 0.." + std::to_string(bounds::max_history_page));
  return check_text(request + ".before", before, bounds::max_id + 24, false);
}

}  // namespace

status validate(const msg::list_request& r) {
  if (auto s = check_user("list.user", r.user); !s) return s;
  return check_history_page("list", r.limit, r.before);
}

status validate(const msg::bind_job_request& r) {
  if (auto s = check_user("bind_job.user", r.user); !s) return s;
  if (auto s = check_reservation_id("bind_job.reservation_id", r.reservation_id); !s) return s;
  if (auto s = check_job_terms("bind_job", r.name, r.np, r.walltime, r.command); !s) return s;
  return check_needs("bind_job", {r.mem_per_cpu, r.mem_per_node, r.features, {}});
}

namespace {

// A job of a reservation: "<request>.user", ".reservation_id", ".job_id" (an LRMS id).
template <class Request>
status check_bound_job(const std::string& request, const Request& r) {
  if (auto s = check_user(request + ".user", r.user); !s) return s;
  if (auto s = check_reservation_id(request + ".reservation_id", r.reservation_id); !s) return s;
  return check_text(request + ".job_id", r.job_id, bounds::max_id, true);
}

}  // namespace

status validate(const msg::bound_job_query_request& r) {
  return check_bound_job("job_query", r);
}

status validate(const msg::bound_job_cancel_request& r) {
  return check_bound_job("job_cancel", r);
}

status validate(const cluster_list_request&) {
  return {};
}

status validate(const status_request& r) {
  return check_names("status.clusters", r.clusters);
}

bool valid_utf8(std::string_view s) noexcept {
  return utf8::is_valid(s.begin(), s.end());
}

namespace {

// A name or command of a grid job: UTF-8 without control characters.
status check_job_text(std::string_view field, std::string_view s, std::size_t max) {
  if (s.size() > max)
    return bad(errc::invalid_parameter, field,
               "too long (" + std::to_string(s.size()) + " > " + std::to_string(max) + ")");
  if (!valid_utf8(s)) return bad(errc::invalid_parameter, field, "is not valid UTF-8");
  if (!printable(s)) return bad(errc::invalid_parameter, field, "contains control characters");
  return {};
}

// Paper 003's runtime hints of a grid job or an elastic request (the field names start with
// `where`).
status check_hints(const std::string& where, const std::vector<msg::benchmark_triple>& benchmarks,
                   double penalty, const std::vector<msg::input_file>& inputs,
                   std::int64_t output_bytes) {
  if (benchmarks.size() > bounds::max_benchmarks)
    return bad(errc::invalid_parameter, where + ".benchmarks",
               "more than " + std::to_string(bounds::max_benchmarks));
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const auto& b = benchmarks[i];
    const std::string p = where + ".benchmarks[" + std::to_string(i) + "]";
    if (auto s = check_text(p + ".name", b.name, bounds::max_name, true); !s) return s;
    if (!std::isfinite(b.result) || b.result <= 0)
      return bad(errc::invalid_parameter, p + ".result", "must be a positive number");
    if (b.seconds <= 0 || b.seconds > bounds::max_span)
      return bad(
          errc::invalid_duration, p + ".seconds",
          std::to_string(b.seconds) + " s outside [1, " + std::to_string(bounds::max_span) + "]");
  }
  if (!std::isfinite(penalty) || penalty < 1 || penalty > 1000)
    return bad(errc::invalid_parameter, where + ".penalty", "must be in [1, 1000]");
  if (inputs.size() > bounds::max_files)
    return bad(errc::invalid_parameter, where + ".inputs",
               "more than " + std::to_string(bounds::max_files) + " files");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string p = where + ".inputs[" + std::to_string(i) + "]";
    if (auto s = check_job_text(p + ".location", inputs[i].location, bounds::max_text); !s)
      return s;
    if (inputs[i].bytes < 0 || inputs[i].bytes > bounds::max_bytes)
      return bad(errc::invalid_parameter, p + ".bytes",
                 std::to_string(inputs[i].bytes) + " outside [0, 2^50]");
  }
  if (output_bytes < -1 || output_bytes > bounds::max_bytes)
    return bad(errc::invalid_parameter, where + ".output_bytes",
               std::to_string(output_bytes) + " outside [0, 2^50] (-1: unknown)");
  return {};
}

status check_grid_job_id(std::string_view field, const std::string& id) {
  if (auto s = check_text(field, id, bounds::max_id, true); !s) return s;
  const auto at = id.rfind("/g");
  if (at == std::string::npos || at + 2 >= id.size() ||
      id.find_first_not_of("0123456789", at + 2) != std::string::npos)
    return bad(errc::not_found, field, "'" + id + "' is not a grid job id (<node>/g<n>)");
  return {};
}

// A grid job's fields under `p` ("grid_submit", "grid_submit_many.jobs[2]"); its `after` may
// name one of `siblings` (the other jobs of a grid_submit_many) instead of a job id.
status check_grid_submit(const std::string& p, const msg::grid_submit_request& r,
                         const std::set<std::string>& siblings) {
  if (auto s = check_user(p + ".user", r.user); !s) return s;
  if (auto s = check_job_text(p + ".name", r.name, bounds::max_id); !s) return s;
  if (auto s = check_job_text(p + ".command", r.command, bounds::max_text); !s) return s;
  if (auto s = check_np(p + ".np", r.np); !s) return s;
  if (r.walltime < 0 || r.walltime > bounds::max_span)
    return bad(errc::invalid_duration, p + ".walltime",
               std::to_string(r.walltime) + " s outside [0, " + std::to_string(bounds::max_span) +
                   "] (0: from the benchmarks)");
  if (!is_enum_value<grid_ranking>(static_cast<std::uint8_t>(r.ranking)))
    return bad(errc::invalid_parameter, p + ".ranking", "not start or sed");
  if (!is_enum_value<grid_strategy>(static_cast<std::uint8_t>(r.strategy)))
    return bad(errc::invalid_parameter, p + ".strategy", "unknown strategy");
  if (r.width < 1 || r.width > max_grid_width)
    return bad(errc::invalid_parameter, p + ".width",
               std::to_string(r.width) + " outside [1, " + std::to_string(max_grid_width) + "]");
  if (r.min_gain < -1 || r.min_gain > bounds::max_span)
    return bad(errc::invalid_duration, p + ".min_gain",
               std::to_string(r.min_gain) + " s outside [0, " + std::to_string(bounds::max_span) +
                   "] (-1: the node's default)");
  if (r.max_migrations < -2 || r.max_migrations > 1000)
    return bad(errc::invalid_parameter, p + ".max_migrations",
               std::to_string(r.max_migrations) +
                   " outside [-1, 1000] (-1: unbounded, -2: the node's default)");
  if (r.max_resubmits < -1 || r.max_resubmits > max_grid_placements)
    return bad(errc::invalid_parameter, p + ".max_resubmits",
               std::to_string(r.max_resubmits) + " outside [0, " +
                   std::to_string(max_grid_placements) + "] (-1: the node's default)");
  if (!(r.pp_ref >= 0 && r.pp_ref <= 1e9))  // NaN fails too
    return bad(errc::invalid_parameter, p + ".pp_ref",
               "must be a CPU power in [0, 1e9] (0: the walltime holds on every cluster)");
  if (r.retry_on_failure < 0 || r.retry_on_failure > max_grid_placements)
    return bad(errc::invalid_parameter, p + ".retry_on_failure",
               std::to_string(r.retry_on_failure) + " outside [0, " +
                   std::to_string(max_grid_placements) + "]");
  if (auto s = check_hints(p, r.benchmarks, r.penalty, r.inputs, r.output_bytes); !s) return s;
  if (auto s = check_needs(p, msg::needs_of(r)); !s) return s;
  if (r.after.size() > max_grid_dependencies)
    return bad(errc::invalid_parameter, p + ".after",
               "waits for " + std::to_string(r.after.size()) + " jobs, at most " +
                   std::to_string(max_grid_dependencies));
  for (std::size_t i = 0; i < r.after.size(); ++i) {
    const std::string field = p + ".after[" + std::to_string(i) + "]";
    auto d = parse_dependency(r.after[i]);
    if (!d) return bad(errc::invalid_parameter, field, d.err().message);
    if (siblings.contains(d->id)) continue;
    if (auto s = check_grid_job_id(field, d->id); !s) return s;
  }
  return check_names(p + ".clusters", r.clusters);
}

}  // namespace

status validate(const msg::grid_submit_request& r) {
  return check_grid_submit("grid_submit", r, {});
}

status validate(const msg::grid_submit_many_request& r) {
  if (auto s = check_user("grid_submit_many.user", r.user); !s) return s;
  if (r.jobs.empty() || r.jobs.size() > bounds::max_request_jobs)
    return bad(errc::invalid_parameter, "grid_submit_many.jobs",
               std::to_string(r.jobs.size()) + " jobs, expected 1 to " +
                   std::to_string(bounds::max_request_jobs));
  std::set<std::string> names;
  for (const auto& j : r.jobs)
    names.insert(j.name);
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const auto p = "grid_submit_many.jobs[" + std::to_string(i) + "]";
    if (!r.jobs[i].user.empty() && r.jobs[i].user != r.user)
      return bad(errc::permission_denied, p + ".user",
                 "'" + r.jobs[i].user + "' is not the request's user (leave it empty)");
    if (auto s = check_grid_submit(p, r.jobs[i], names); !s) return s;
  }
  return {};
}

status validate(const msg::grid_query_request& r) {
  if (auto s = check_user("grid_query.user", r.user); !s) return s;
  return check_grid_job_id("grid_query.id", r.id);
}

status validate(const msg::grid_cancel_request& r) {
  if (auto s = check_user("grid_cancel.user", r.user); !s) return s;
  return check_grid_job_id("grid_cancel.id", r.id);
}

status validate(const msg::grid_list_request& r) {
  if (auto s = check_user("grid_list.user", r.user); !s) return s;
  if (!r.state.empty() && !grid_job_state_from(r.state))
    return bad(
        errc::invalid_parameter, "grid_list.state",
        "'" + r.state + "' is not one of pending, queued, running, completed, failed, cancelled");
  if (auto s = check_text("grid_list.cluster", r.cluster, bounds::max_name, false); !s) return s;
  return check_history_page("grid_list", r.limit, r.before);
}

status validate(const msg::coallocate_request& r) {
  if (auto s = check_user("coallocate.user", r.user); !s) return s;
  if (r.parts.empty() || r.parts.size() > bounds::max_coallocation_parts)
    return bad(errc::invalid_parameter, "coallocate.parts",
               std::to_string(r.parts.size()) + " parts; needs 1 to " +
                   std::to_string(bounds::max_coallocation_parts));
  for (std::size_t i = 0; i < r.parts.size(); ++i) {
    const auto& p = r.parts[i];
    const std::string at = "coallocate.parts[" + std::to_string(i) + "]";
    if (auto s = check_reservation_id(at + ".reservation_id", p.reservation_id); !s) return s;
    for (std::size_t k = 0; k < i; ++k)
      if (r.parts[k].reservation_id == p.reservation_id)
        return bad(errc::invalid_parameter, at + ".reservation_id",
                   "'" + p.reservation_id + "' is part " + std::to_string(k) + " already");
    if (p.jobs.empty() || p.jobs.size() > bounds::max_commit_jobs)
      return bad(errc::invalid_parameter, at + ".jobs",
                 std::to_string(p.jobs.size()) + " jobs; needs 1 to " +
                     std::to_string(bounds::max_commit_jobs));
    if (auto s = check_job_list(at + ".jobs", p.jobs); !s) return s;
  }
  return {};
}

status validate(const msg::watch_request& r) {
  if (auto s = check_user("watch.user", r.user); !s) return s;
  if (auto s = check_names("watch.kinds", r.kinds); !s) return s;
  if (auto s = msg::check(r); !s) return fail(s.err().code, "watch." + s.err().message);
  return {};
}

status validate(const request_body& body) {
  return std::visit([](const auto& b) { return validate(b); }, body);
}

void fill_defaults(request_body& body, std::int64_t now) {
  std::visit(
      [now](auto& b) {
        if constexpr (requires { b.est; }) {
          if (b.est == 0) b.est = now;
        }
      },
      body);
}

status apply_caller(const caller& who, request_body& body) {
  return std::visit(
      [&who, &body](auto& b) -> status {
        // Only the server says who is an admin (a site may let admins waive LJP).
        if constexpr (requires { b.admin; }) b.admin = who.admin;
        if constexpr (requires { b.user; }) {
          if (b.user.empty()) {
            // An admin's empty user asks for everyone's reservations (list) or reaches any
            // reservation or grid job by its id, as scontrol and mrsvctl do (the service
            // takes an empty user as any owner; jobs still run as the reservation's owner).
            const bool any_owner =
                who.admin && (std::holds_alternative<msg::list_request>(body) ||
                              std::holds_alternative<msg::query_request>(body) ||
                              std::holds_alternative<msg::cancel_request>(body) ||
                              std::holds_alternative<msg::commit_request>(body) ||
                              std::holds_alternative<msg::modify_request>(body) ||
                              std::holds_alternative<msg::bind_job_request>(body) ||
                              std::holds_alternative<msg::bound_job_query_request>(body) ||
                              std::holds_alternative<msg::bound_job_cancel_request>(body) ||
                              std::holds_alternative<msg::coallocate_request>(body) ||
                              std::holds_alternative<msg::grid_query_request>(body) ||
                              std::holds_alternative<msg::grid_cancel_request>(body) ||
                              std::holds_alternative<msg::grid_list_request>(body) ||
                              std::holds_alternative<msg::watch_request>(body));
            if (!any_owner) b.user = who.user;
          } else if (b.user != who.user && !who.admin) {
            return fail(errc::permission_denied,
                        std::string(to_string(operation_of(body))) +
                            ".user: only an admin may act for another user");
          }
        }
        return {};
      },
      body);
}

}  // namespace arbroker::api
