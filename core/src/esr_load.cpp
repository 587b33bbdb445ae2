#include "arbroker/core/esr_load.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "arbroker/core/number_text.hpp"

namespace arbroker {
namespace {

bool in_time_range(timestamp t) {
  return t >= -time_infinity && t <= time_infinity;
}

bool is_factor(double f) {
  return std::isfinite(f) && f >= 0.0;
}

// A float product such as 1 * 100 * 0.9 gives 90.00000000000001; rounding that up to 91
// would be an artefact, so fractions below this are ignored.
constexpr double float_noise = 1e-6;

// ct + w rounded up to whole seconds, saturated at time_infinity. w >= 0.
timestamp round_up(timestamp ct, double w) {
  const double whole = std::ceil(w - float_noise);
  if (whole >= static_cast<double>(time_infinity - ct)) return time_infinity;
  return ct + static_cast<duration>(std::max(whole, 0.0));
}

std::string span_text(const reservation_span& r) {
  return "reservation [" + std::to_string(r.start) + ", " + std::to_string(r.end) + ") x " +
         std::to_string(r.np);
}

status check_np(int np, int np_site, const std::string& what) {
  if (np <= 0 || np > np_site)
    return fail(errc::invalid_processor_range, "t_wkl: " + what + ": np must lie within [1, " +
                                                   std::to_string(np_site) + "], got " +
                                                   std::to_string(np));
  return {};
}

status validate(timestamp ct, int np_site, std::span<const running_job> running,
                std::span<const waiting_job> waiting,
                std::span<const reservation_span> reservations, const load_params& p) {
  if (!in_time_range(ct))
    return fail(errc::invalid_parameter,
                "t_wkl: ct must lie within +-time_infinity, got " + std::to_string(ct));
  if (np_site <= 0)
    return fail(errc::invalid_processor_range,
                "t_wkl: np_site must be > 0, got " + std::to_string(np_site));
  if (!is_factor(p.acc_r))
    return fail(errc::invalid_parameter,
                "t_wkl: acc_r must be finite and >= 0, got " + detail::number_text(p.acc_r));
  if (!is_factor(p.acc_w))
    return fail(errc::invalid_parameter,
                "t_wkl: acc_w must be finite and >= 0, got " + detail::number_text(p.acc_w));
  if (p.push != reservation_push::work_share && p.push != reservation_push::past_end)
    return fail(errc::invalid_parameter,
                "t_wkl: unknown reservation_push " + std::to_string(static_cast<int>(p.push)));
  for (std::size_t i = 0; i < running.size(); ++i) {
    const auto& j = running[i];
    const std::string what = "running job #" + std::to_string(i);
    if (auto s = check_np(j.np, np_site, what); !s) return s;
    if (j.remaining < 0 || j.remaining > time_infinity)
      return fail(errc::invalid_duration,
                  "t_wkl: " + what + ": remaining time must lie within [0, time_infinity], got " +
                      std::to_string(j.remaining));
  }
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    const auto& j = waiting[i];
    const std::string what = "waiting job #" + std::to_string(i);
    if (auto s = check_np(j.np, np_site, what); !s) return s;
    if (j.walltime <= 0 || j.walltime > time_infinity)
      return fail(errc::invalid_duration,
                  "t_wkl: " + what + ": walltime must lie within (0, time_infinity], got " +
                      std::to_string(j.walltime));
  }
  for (const auto& r : reservations) {
    if (!in_time_range(r.start) || !in_time_range(r.end))
      return fail(errc::invalid_parameter,
                  "t_wkl: " + span_text(r) + " reaches beyond +-time_infinity");
    if (r.start >= r.end)
      return fail(errc::invalid_window, "t_wkl: " + span_text(r) + " is empty or reversed");
    if (auto s = check_np(r.np, np_site, span_text(r)); !s) return s;
  }
  return {};
}

}  // namespace

std::string_view to_string(reservation_push push) noexcept {
  switch (push) {
    case reservation_push::work_share:
      return "work_share";
    case reservation_push::past_end:
      return "past_end";
  }
  return "unknown";
}

t_wkl_accumulator::t_wkl_accumulator(timestamp ct, int np_site,
                                     std::span<const running_job> running,
                                     std::span<const waiting_job> waiting,
                                     const load_params& params)
    : ct_(ct), site_(static_cast<double>(np_site)), params_(params) {
  double running_work = 0.0;
  double running_np = 0.0;
  for (const auto& j : running) {
    running_work += static_cast<double>(j.np) * static_cast<double>(j.remaining) * params.acc_r;
    running_np += static_cast<double>(j.np);
  }
  if (running_np > 0.0) w_ += running_work / running_np;
  double waiting_work = 0.0;
  for (const auto& j : waiting)
    waiting_work += static_cast<double>(j.np) * static_cast<double>(j.walltime) * params.acc_w;
  w_ += waiting_work / site_;
  value_ = round_up(ct_, w_);
}

void t_wkl_accumulator::add(const reservation_span& r) noexcept {
  if (!counts(r.start) || r.end <= ct_) return;  // starts too late, or already over
  switch (params_.push) {
    case reservation_push::work_share:
      w_ += static_cast<double>(r.np) * static_cast<double>(r.end - std::max(r.start, ct_)) / site_;
      break;
    case reservation_push::past_end:
      w_ = std::max(w_, static_cast<double>(r.end - ct_));
      break;
  }
  value_ = round_up(ct_, w_);
}

result<timestamp> t_wkl(timestamp ct, int np_site, std::span<const running_job> running,
                        std::span<const waiting_job> waiting,
                        std::span<const reservation_span> reservations, const load_params& params) {
  if (auto s = validate(ct, np_site, running, waiting, reservations, params); !s) return s.err();
  t_wkl_accumulator acc(ct, np_site, running, waiting, params);
  // Reservations by start: once one starts at or after the current T_wkl, so do all later
  // ones, and T_wkl grows only through a reservation that counts.
  std::vector<reservation_span> by_start(reservations.begin(), reservations.end());
  std::stable_sort(
      by_start.begin(), by_start.end(),
      [](const reservation_span& a, const reservation_span& b) { return a.start < b.start; });
  for (const auto& r : by_start) {
    if (!acc.counts(r.start)) break;
    acc.add(r);
  }
  return acc.value();
}

}  // namespace arbroker
