#include "arbroker/core/grid_job.hpp"

#include <algorithm>
#include <array>

#include "arbroker/core/enum_names.hpp"

namespace arbroker {
namespace {

constexpr std::array<std::string_view, 4> strategy_names = {"single", "flood", "adaptive",
                                                            "reserve"};
constexpr std::array<std::string_view, 2> ranking_names = {"start", "sed"};
constexpr std::array<std::string_view, 6> job_state_names = {"pending",   "queued", "running",
                                                             "completed", "failed", "cancelled"};
constexpr std::array<std::string_view, 6> copy_state_names = {"submitting", "queued", "running",
                                                              "completed",  "failed", "cancelled"};

copy_state ended_state(observed_state s) {
  switch (s) {
    case observed_state::completed:
      return copy_state::completed;
    case observed_state::failed:
    case observed_state::lost:
      return copy_state::failed;
    default:
      return copy_state::cancelled;
  }
}

}  // namespace

std::string_view to_string(grid_strategy s) noexcept {
  return name_in(strategy_names, s);
}
std::optional<grid_strategy> grid_strategy_from(std::string_view name) noexcept {
  return value_in<grid_strategy>(strategy_names, name);
}
std::string_view to_string(grid_ranking r) noexcept {
  return name_in(ranking_names, r);
}
std::optional<grid_ranking> grid_ranking_from(std::string_view name) noexcept {
  return value_in<grid_ranking>(ranking_names, name);
}
std::string_view to_string(grid_job_state s) noexcept {
  return name_in(job_state_names, s);
}
std::optional<grid_job_state> grid_job_state_from(std::string_view name) noexcept {
  return value_in<grid_job_state>(job_state_names, name);
}
bool is_terminal(grid_job_state s) noexcept {
  return s == grid_job_state::completed || s == grid_job_state::failed ||
         s == grid_job_state::cancelled;
}
std::string_view to_string(copy_state s) noexcept {
  return name_in(copy_state_names, s);
}
std::string_view to_string(observed_state s) noexcept {
  // observed_state is copy_state without `submitting`, and `lost`.
  if (s == observed_state::lost) return "lost";
  return name_in(copy_state_names, static_cast<std::uint8_t>(static_cast<int>(s) + 1));
}
bool is_live(copy_state s) noexcept {
  return s == copy_state::submitting || s == copy_state::queued || s == copy_state::running;
}

result<grid_dependency> parse_dependency(std::string_view text) {
  grid_dependency d;
  const auto colon = text.rfind(':');
  auto id = text.substr(0, colon);
  if (colon != std::string_view::npos) {
    const auto how = text.substr(colon + 1);
    if (how == "any")
      d.any = true;
    else if (how != "ok")
      return fail(errc::invalid_parameter, "after: '" + std::string(text) +
                                               "': the condition is ok or any, not '" +
                                               std::string(how) + "'");
  }
  if (id.empty())
    return fail(errc::invalid_parameter, "after: '" + std::string(text) + "' names no job");
  d.id = std::string(id);
  return d;
}

status check(const grid_job_spec& s) {
  if (s.np < 1)
    return fail(errc::invalid_processor_range, "np: " + std::to_string(s.np) + " is below 1");
  if (s.walltime <= 0 || s.walltime >= time_infinity)
    return fail(errc::invalid_duration,
                "walltime: " + std::to_string(s.walltime) + " is not a positive number of seconds");
  if (s.width < 1 || s.width > max_grid_width)
    return fail(errc::invalid_parameter, "width: " + std::to_string(s.width) + " is outside 1.." +
                                             std::to_string(max_grid_width));
  if (s.min_gain < 0 || s.min_gain >= time_infinity)
    return fail(errc::invalid_duration,
                "min_gain: " + std::to_string(s.min_gain) + " is not a number of seconds >= 0");
  if (s.max_migrations < -1)
    return fail(errc::invalid_parameter,
                "max_migrations: " + std::to_string(s.max_migrations) + " is below -1 (unbounded)");
  for (auto [field, v] : {std::pair{"max_resubmits", s.max_resubmits},
                          std::pair{"retry_on_failure", s.retry_on_failure}})
    if (v < 0 || v > max_grid_placements)
      return fail(errc::invalid_parameter, std::string(field) + ": " + std::to_string(v) +
                                               " is outside 0.." +
                                               std::to_string(max_grid_placements));
  return check(s.needs);
}

void grid_job::note(timestamp at, std::int32_t copy, std::string what) {
  history.push_back({at, copy, std::move(what)});
}

std::size_t grid_job::add_copy(const std::string& cluster, timestamp now, std::string why) {
  grid_copy c;
  c.cluster = cluster;
  c.submitted = now;
  copies.push_back(std::move(c));
  to_place = false;
  const auto i = copies.size() - 1;
  note(now, static_cast<std::int32_t>(i), "submit to " + cluster + ": " + std::move(why));
  settle_state(now);
  return i;
}

std::size_t grid_job::live_copies() const {
  return static_cast<std::size_t>(
      std::count_if(copies.begin(), copies.end(), [](const auto& c) { return is_live(c.state); }));
}

std::optional<std::size_t> grid_job::only_live_copy() const {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    if (!is_live(copies[i].state)) continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

bool grid_job::doomed(std::size_t i) const {
  return state == grid_job_state::cancelled || (winner && *winner != i);
}

bool grid_job::active() const {
  return !is_terminal(state) || live_copies() > 0 || reservation_to_release || !releasing.empty() ||
         std::any_of(copies.begin(), copies.end(), [](const auto& c) { return c.unconfirmed; });
}

bool grid_job::can_migrate() const {
  const bool reserved = spec.strategy == grid_strategy::reserve;
  if ((!reserved && spec.strategy != grid_strategy::adaptive) || state != grid_job_state::queued)
    return false;
  if (migrating_from || winner || to_place) return false;
  if (spec.max_migrations >= 0 && migrations >= spec.max_migrations) return false;
  const auto live = only_live_copy();
  if (!live || copies[*live].state != copy_state::queued) return false;
  const auto& c = copies[*live];
  return !reserved || (!reservation.empty() && c.reservation == reservation && c.reserved_start);
}

std::vector<grid_action> grid_job::cancel_doomed() {
  std::vector<grid_action> out;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    auto& c = copies[i];
    if (!doomed(i) || c.cancel_sent || c.lrms_id.empty()) continue;
    if (c.state != copy_state::queued && c.state != copy_state::running) continue;
    c.cancel_sent = true;
    out.push_back({grid_action::kind::cancel, i});
  }
  return out;
}

void grid_job::settle_state(timestamp now) {
  if (is_terminal(state)) return;
  if (winner) {
    state = grid_job_state::running;
    return;
  }
  bool queued = false, submitting = false;
  for (const auto& c : copies) {
    queued = queued || c.state == copy_state::queued || c.state == copy_state::running;
    submitting = submitting || c.state == copy_state::submitting;
  }
  if (queued) {
    state = grid_job_state::queued;
  } else if (submitting || to_place || copies.size() == round_start) {
    state = grid_job_state::pending;
  } else {
    const auto lost = std::find_if(copies.begin() + static_cast<std::ptrdiff_t>(round_start),
                                   copies.end(), [](const auto& c) { return c.lost; });
    if (lost != copies.end() &&
        place_again(false, "lost at " + lost->cluster + " (" + lost->reason + ")", now))
      return;
    state = grid_job_state::failed;
    ended = now;
    std::string why = "every copy ended before one ran:";
    for (const auto& c : copies)
      why += " " + c.cluster + " (" + c.reason + ");";
    why.pop_back();
    note(now, -1, std::move(why));
  }
}

std::vector<grid_action> grid_job::on_submitted(std::size_t i, const result<std::string>& lrms_id,
                                                timestamp now) {
  auto& c = copies.at(i);
  if (c.state != copy_state::submitting) return {};  // answered twice (recovery): first wins
  std::vector<grid_action> out;
  if (!lrms_id) {
    c.state = copy_state::failed;
    c.ended = now;
    c.reason = to_string(lrms_id.err());
    note(now, static_cast<std::int32_t>(i), "refused by " + c.cluster + ": " + c.reason);
    if (migrating_from) {
      note(now, -1, "migration abandoned: the new copy was refused");
      migrating_from.reset();
      pending_gain = 0;
    }
    settle_state(now);
    return out;
  }
  c.lrms_id = *lrms_id;
  c.state = copy_state::queued;
  note(now, static_cast<std::int32_t>(i), "queued at " + c.cluster + " as " + c.lrms_id);
  settle_state(now);
  if (migrating_from && *migrating_from != i && !doomed(i)) {
    // The new copy holds its place: now withdraw the old one (make before break).
    auto& old = copies[*migrating_from];
    if (is_live(old.state) && !old.cancel_sent) {
      old.cancel_sent = true;
      out.push_back({grid_action::kind::withdraw, *migrating_from});
    }
  }
  auto more = cancel_doomed();
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

std::vector<grid_action> grid_job::started_running(std::size_t i, std::optional<timestamp> at,
                                                   timestamp now) {
  auto& c = copies[i];
  const bool first_sight = !c.started;
  c.state = copy_state::running;
  if (first_sight) c.started = at.value_or(now);
  if (!winner && state != grid_job_state::cancelled) {
    winner = i;
    started = c.started;
    note(now, static_cast<std::int32_t>(i), "running at " + c.cluster + ": this copy wins");
    if (take_reservation_of(i))
      note(now, static_cast<std::int32_t>(i), "runs in reservation " + reservation);
    if (migrating_from) {
      migrating_from.reset();
      pending_gain = 0;
    }
    settle_state(now);
  } else if (first_sight && winner && *winner != i) {
    ++duplicate_starts;
    note(now, static_cast<std::int32_t>(i),
         "also started at " + c.cluster + " (duplicate start): cancelled");
  }
  return cancel_doomed();
}

std::vector<grid_action> grid_job::copy_ended(std::size_t i, copy_state s, std::string reason,
                                              timestamp now) {
  auto& c = copies[i];
  c.state = s;
  c.ended = now;
  c.reason = std::move(reason);
  note(now, static_cast<std::int32_t>(i),
       std::string(to_string(s)) + " at " + c.cluster + (c.reason.empty() ? "" : ": " + c.reason));
  if (winner && *winner == i && !is_terminal(state) && s == copy_state::failed &&
      place_again(!c.lost, (c.lost ? "lost at " : "failed at ") + c.cluster + " (" + c.reason + ")",
                  now))
    return cancel_doomed();
  if (winner && *winner == i && !is_terminal(state)) {
    state = s == copy_state::completed ? grid_job_state::completed
            : s == copy_state::failed  ? grid_job_state::failed
                                       : grid_job_state::cancelled;
    ended = now;
  }
  if (migrating_from && *migrating_from == i) {
    migrating_from.reset();
    pending_gain = 0;
  }
  settle_state(now);
  return cancel_doomed();
}

std::vector<grid_action> grid_job::on_observed(std::size_t i, observed_state s,
                                               std::optional<timestamp> started_at, timestamp now) {
  auto& c = copies.at(i);
  if (!is_live(c.state)) return {};  // already settled; a late report changes nothing
  switch (s) {
    case observed_state::queued:
      if (c.state == copy_state::submitting) c.state = copy_state::queued;
      settle_state(now);
      return cancel_doomed();
    case observed_state::running:
      return started_running(i, started_at, now);
    case observed_state::lost:
      return on_lost(i, "ended by the infrastructure (node failure)", now);
    case observed_state::completed:
      if (!c.started && !c.cancel_sent) {
        // It ran and ended between two looks: it ran all the same (and, first, wins).
        auto acts = started_running(i, started_at, now);
        auto more = copy_ended(i, copy_state::completed, "ended in the LRMS", now);
        acts.insert(acts.end(), more.begin(), more.end());
        return acts;
      }
      [[fallthrough]];
    default:
      return copy_ended(i, ended_state(s),
                        c.cancel_sent ? "cancelled by the broker" : "ended in the LRMS", now);
  }
}

std::vector<grid_action> grid_job::on_cancel_answer(std::size_t i,
                                                    const result<observed_state>& found,
                                                    timestamp now) {
  auto& c = copies.at(i);
  if (!is_live(c.state)) {
    if (c.unconfirmed && found) {
      c.unconfirmed = false;
      c.cancel_sent = false;
      const bool ran = *found == observed_state::running || *found == observed_state::completed;
      if (ran && !c.started) ++duplicate_starts;  // it ran while its job was placed again
      note(now, static_cast<std::int32_t>(i),
           "cancelled at " + c.cluster + " after it was given up (it was " +
               std::string(to_string(*found)) + (ran ? ": duplicate start)" : ")"));
    } else if (c.unconfirmed) {
      c.cancel_sent = false;  // again when it is next seen
    }
    return {};
  }
  const bool withdrawal = migrating_from && *migrating_from == i;
  if (!found) {
    // Unknown outcome: try again when the copy is next seen in a queue.
    c.cancel_sent = false;
    note(now, static_cast<std::int32_t>(i),
         "cancel at " + c.cluster + " failed: " + to_string(found.err()));
    return {};
  }
  switch (*found) {
    case observed_state::queued: {
      if (withdrawal) {
        const auto to = copies.back().cluster;
        ++migrations;
        migration_gain += pending_gain;
        if (take_reservation_of(copies.size() - 1)) {
          note(now, static_cast<std::int32_t>(i),
               "moved to reservation " + reservation + " (finishes " +
                   std::to_string(pending_gain) + " s earlier)");
        } else {
          note(now, static_cast<std::int32_t>(i),
               "migrated to " + to + " (TTD gain " + std::to_string(pending_gain) + " s)");
        }
        migrating_from.reset();
        pending_gain = 0;
        return copy_ended(i, copy_state::cancelled, "migrated to " + to, now);
      }
      return copy_ended(i, copy_state::cancelled, "cancelled by the broker", now);
    }
    case observed_state::running: {
      if (withdrawal) {
        // The old copy started before the withdrawal landed: it stays, the new one goes
        // (or, if the new one won first, the old one is a duplicate and is cancelled).
        c.cancel_sent = false;
        note(now, static_cast<std::int32_t>(i),
             "started at " + c.cluster + " before the migration withdrew it");
        return started_running(i, std::nullopt, now);
      }
      if (!c.started) {
        c.started = now;
        if (!winner || *winner != i) {
          ++duplicate_starts;
          note(now, static_cast<std::int32_t>(i),
               "had started at " + c.cluster + " when cancelled (duplicate start)");
        }
      }
      return copy_ended(i, copy_state::cancelled, "cancelled by the broker while running", now);
    }
    default:
      c.lost = *found == observed_state::lost;
      return copy_ended(i, ended_state(*found), "had ended before the cancel", now);
  }
}

std::vector<grid_action> grid_job::on_lost(std::size_t i, std::string reason, timestamp now,
                                           bool unconfirmed) {
  auto& c = copies.at(i);
  if (!is_live(c.state)) return {};
  c.lost = true;
  c.unconfirmed = unconfirmed && !c.lrms_id.empty();
  return copy_ended(i, copy_state::failed, std::move(reason), now);
}

std::vector<grid_action> grid_job::on_found_again(std::size_t i, const std::string& lrms_id,
                                                  timestamp now) {
  auto& c = copies.at(i);
  if (!c.unconfirmed || c.cancel_sent) return {};
  const auto at = static_cast<std::int32_t>(i);
  if (lrms_id.empty()) {
    c.unconfirmed = false;
    note(now, at, "gone from " + c.cluster + ": confirmed");
    return {};
  }
  c.lrms_id = lrms_id;
  c.cancel_sent = true;
  note(now, at, "found at " + c.cluster + " as " + lrms_id + " after it was given up: cancelled");
  return {{grid_action::kind::cancel, i}};
}

std::vector<std::string> grid_job::failed_at() const {
  std::vector<std::string> out;
  for (const auto& c : copies)
    if (c.lost && std::find(out.begin(), out.end(), c.cluster) == out.end())
      out.push_back(c.cluster);
  return out;
}

void grid_job::placement_failed(const std::string& why, timestamp now) {
  if (is_terminal(state)) return;
  to_place = false;
  state = grid_job_state::failed;
  ended = now;
  note(now, -1, why);
}

bool grid_job::place_again(bool own_failure, const std::string& why, timestamp now) {
  if (state == grid_job_state::cancelled) return false;
  auto& used = own_failure ? retries : resubmits;
  const auto budget = own_failure ? spec.retry_on_failure : spec.max_resubmits;
  if (used >= budget) return false;
  ++used;
  winner.reset();
  started.reset();
  migrating_from.reset();
  pending_gain = 0;
  to_place = true;
  round_start = copies.size();
  state = grid_job_state::pending;
  note(now, -1,
       std::string(own_failure ? "retry " : "resubmission ") + std::to_string(used) + " of " +
           std::to_string(budget) + ": " + why);
  return true;
}

std::vector<grid_action> grid_job::cancel(timestamp now, std::string why) {
  if (is_terminal(state)) return {};
  to_place = false;
  state = grid_job_state::cancelled;
  ended = now;
  note(now, -1, std::move(why));
  return cancel_doomed();
}

std::vector<grid_action> grid_job::resend_pending() const {
  std::vector<grid_action> out;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const auto& c = copies[i];
    if (!c.cancel_sent || c.lrms_id.empty() || !is_live(c.state)) continue;
    const bool withdrawal = migrating_from && *migrating_from == i && !doomed(i);
    out.push_back({withdrawal ? grid_action::kind::withdraw : grid_action::kind::cancel, i});
  }
  return out;
}

std::size_t grid_job::migrate(const std::string& cluster, duration gain, timestamp now) {
  migrating_from = only_live_copy();
  pending_gain = gain;
  return add_copy(cluster, now,
                  "migration from " + copies[*migrating_from].cluster + " promises a TTD " +
                      std::to_string(gain) + " s earlier");
}

bool grid_job::take_reservation_of(std::size_t i) {
  const auto& r = copies[i].reservation;
  if (r.empty() || r == reservation) return false;
  // The job's reservation is the one this copy runs in; the one it had goes.
  std::erase(releasing, r);
  if (!reservation.empty()) releasing.push_back(reservation);
  reservation = r;
  return true;
}

std::size_t grid_job::move_into(const std::string& cluster, const std::string& reservation_id,
                                timestamp start, duration gain, timestamp now) {
  migrating_from = only_live_copy();
  pending_gain = gain;
  const auto i = add_copy(cluster, now,
                          "move from reservation " + reservation + " to " + reservation_id +
                              " promises a finish " + std::to_string(gain) + " s earlier");
  copies[i].reservation = reservation_id;
  copies[i].reserved_start = start;
  return i;
}

std::optional<ttd_option> choose_migration(duration current_ttd, std::span<const ttd_option> others,
                                           duration min_gain) {
  const ttd_option* best = nullptr;
  for (const auto& o : others)
    if (!best || o.ttd < best->ttd) best = &o;
  if (!best || current_ttd - best->ttd <= min_gain) return std::nullopt;
  return *best;
}

}  // namespace arbroker
