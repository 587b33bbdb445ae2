#include "arbroker/core/reservation_ledger.hpp"

#include <algorithm>

namespace arbroker {

namespace {

const std::set<std::uint64_t> no_serials;

bool pending(const reservation_record& r) noexcept {
  return r.life.state() == reservation_state::accepted;
}

}  // namespace

const reservation_record* reservation_ledger::find(serial_t n) const {
  auto it = records_.find(n);
  return it == records_.end() ? nullptr : &it->second;
}

reservation_record& reservation_ledger::at(serial_t n) {
  return records_.at(n);
}

const reservation_record* reservation_ledger::of_txn(const std::string& txn) const {
  auto it = by_txn_.find(txn);
  return it == by_txn_.end() ? nullptr : &records_.at(it->second);
}

const reservation_ledger::ended_txn* reservation_ledger::ended(const std::string& txn) const {
  auto it = ended_txns_.find(txn);
  return it == ended_txns_.end() ? nullptr : &it->second;
}

const std::set<reservation_ledger::serial_t>& reservation_ledger::of_owner(
    const std::string& owner) const {
  auto it = by_owner_.find(owner);
  return it == by_owner_.end() ? no_serials : it->second;
}

void reservation_ledger::for_each(const std::function<void(const reservation_record&)>& f) const {
  for (const auto& [n, r] : records_)
    f(r);
}

std::optional<timestamp> reservation_ledger::next_expiry() const {
  if (expiries_.empty()) return std::nullopt;
  return expiries_.begin()->first;
}

result<const reservation_record*> reservation_ledger::add(reservation_record r, timestamp now) {
  const serial_t n = r.serial;
  if (n == 0) return fail(errc::invalid_parameter, "reservation '" + r.id + "' has no serial");
  if (records_.contains(n))
    return fail(errc::invalid_parameter, "serial " + std::to_string(n) + " of '" + r.id +
                                             "' is taken by '" + records_.at(n).id + "'");
  if (!r.txn.empty() && by_txn_.contains(r.txn))
    return fail(errc::invalid_parameter,
                "transaction '" + r.txn + "' of '" + r.id + "' has a reservation already");
  auto& rec = records_.emplace(n, std::move(r)).first->second;
  rec.finished = time_infinity;
  by_owner_[rec.owner].insert(n);
  if (!rec.txn.empty()) by_txn_.emplace(rec.txn, n);
  if (is_terminal(rec.life.state())) {
    finish(rec, now);
    return &rec;
  }
  live_.insert(n);
  timeline_.emplace(rec.life.end(), n);
  if (pending(rec)) expiries_.emplace(rec.life.expiry(), n);
  if (rec.deadline != 0) movable_.insert(n);
  return &rec;
}

status reservation_ledger::apply(serial_t n, reservation_event e, timestamp now) {
  auto& r = at(n);
  if (is_terminal(r.life.state())) return r.life.apply(e, now);  // refused: nothing changes
  const timestamp expiry = r.life.expiry();
  auto ok = r.life.apply(e, now);
  settle(r, expiry, now);
  return ok;
}

void reservation_ledger::advance(serial_t n, timestamp now) {
  auto& r = at(n);
  if (is_terminal(r.life.state())) return;
  const timestamp expiry = r.life.expiry();
  r.life.advance(now);
  settle(r, expiry, now);
}

void reservation_ledger::settle(reservation_record& r, timestamp expiry_before, timestamp now) {
  if (is_terminal(r.life.state())) {
    expiries_.erase({expiry_before, r.serial});
    finish(r, now);
  } else if (!pending(r)) {
    expiries_.erase({expiry_before, r.serial});
    // Back on the timeline if it left it as a hold past its end (committed late): the next
    // take_ended ends it.
    timeline_.emplace(r.life.end(), r.serial);
  }
}

void reservation_ledger::finish(reservation_record& r, timestamp now) {
  expiries_.erase({r.life.expiry(), r.serial});
  timeline_.erase({r.life.end(), r.serial});
  movable_.erase(r.serial);
  live_.erase(r.serial);
  r.finished = now;
  finished_.emplace(now, r.serial);
}

status reservation_ledger::replace(serial_t n, reservation_record changed) {
  auto& r = at(n);
  if (changed.serial != r.serial || changed.id != r.id || changed.owner != r.owner ||
      changed.txn != r.txn)
    return fail(errc::invalid_parameter,
                "new terms of '" + r.id + "' name another reservation ('" + changed.id + "')");
  if (is_terminal(r.life.state()) || is_terminal(changed.life.state()) || pending(changed) ||
      pending(r))
    return fail(errc::illegal_transition, "reservation '" + r.id + "' is " +
                                              std::string(to_string(r.life.state())) +
                                              ": only a committed one takes new terms");
  timeline_.erase({r.life.end(), n});
  timeline_.emplace(changed.life.end(), n);
  if (changed.deadline != 0)
    movable_.insert(n);
  else
    movable_.erase(n);
  changed.finished = r.finished;
  r = std::move(changed);
  return {};
}

status reservation_ledger::extend(serial_t n, timestamp now, timestamp new_end, double cost) {
  auto& r = at(n);
  if (is_terminal(r.life.state())) return r.life.extend(now, new_end);  // refused: no change
  const timestamp end = r.life.end(), expiry = r.life.expiry();
  auto ok = r.life.extend(now, new_end);  // (advances first: it may have ended meanwhile)
  if (ok) {
    timeline_.erase({end, n});
    timeline_.emplace(new_end, n);
    r.cost += cost;
    ++r.overruns;
  }
  settle(r, expiry, now);
  return ok;
}

void reservation_ledger::add_jobs(serial_t n, const std::vector<std::string>& ids) {
  auto& jobs = at(n).jobs;
  jobs.insert(jobs.end(), ids.begin(), ids.end());
}

bool reservation_ledger::remove_job(serial_t n, const std::string& id) {
  auto& jobs = at(n).jobs;
  auto it = std::find(jobs.begin(), jobs.end(), id);
  if (it == jobs.end()) return false;
  jobs.erase(it);
  return true;
}

void reservation_ledger::set_lrms_id(serial_t n, std::string lrms_id) {
  at(n).lrms_id = std::move(lrms_id);
}

std::vector<reservation_ledger::serial_t> reservation_ledger::take_ended(timestamp now) {
  std::vector<serial_t> out;
  ended_upto_ = std::max(ended_upto_, now);
  while (!timeline_.empty() && timeline_.begin()->first <= now) {
    const serial_t n = timeline_.begin()->second;
    timeline_.erase(timeline_.begin());
    auto& r = at(n);
    const timestamp expiry = r.life.expiry();
    r.life.advance(now);
    settle(r, expiry, now);
    if (is_terminal(r.life.state())) out.push_back(n);
  }
  return out;
}

std::optional<reservation_ledger::serial_t> reservation_ledger::due_hold(timestamp now) const {
  if (expiries_.empty() || expiries_.begin()->first > now) return std::nullopt;
  return expiries_.begin()->second;
}

void reservation_ledger::purge(timestamp upto) {
  while (!finished_.empty() && finished_.begin()->first <= upto) {
    const serial_t n = finished_.begin()->second;
    finished_.erase(finished_.begin());
    auto it = records_.find(n);
    const auto& r = it->second;
    by_txn_.erase(r.txn);
    remember_ended(r.txn, r.id, r.life.state());
    if (auto o = by_owner_.find(r.owner); o != by_owner_.end()) {
      o->second.erase(n);
      if (o->second.empty()) by_owner_.erase(o);
    }
    records_.erase(it);
  }
}

void reservation_ledger::remember_ended(const std::string& txn, const std::string& id,
                                        reservation_state state) {
  if (txn.empty() || !ended_txns_.emplace(txn, ended_txn{id, state}).second) return;
  ended_order_.push_back(txn);
  if (ended_order_.size() <= remembered_txns_) return;
  ended_txns_.erase(ended_order_.front());
  ended_order_.pop_front();
}

std::string reservation_ledger::check() const {
  auto say = [](const reservation_record& r, const std::string& what) {
    return "reservation '" + r.id + "' (" + std::string(to_string(r.life.state())) + "): " + what;
  };
  std::size_t txns = 0, owned = 0, lives = 0, holds = 0, ends = 0, movables = 0, dones = 0;
  for (const auto& [n, r] : records_) {
    if (r.serial != n) return say(r, "filed under serial " + std::to_string(n));
    if (!r.txn.empty()) {
      ++txns;
      auto t = by_txn_.find(r.txn);
      if (t == by_txn_.end() || t->second != n) return say(r, "not found by its transaction");
    }
    ++owned;
    if (!of_owner(r.owner).contains(n)) return say(r, "not found under its owner");
    const bool terminal = is_terminal(r.life.state());
    if (terminal) {
      ++dones;
      if (r.finished == time_infinity || !finished_.contains({r.finished, n}))
        return say(r, "terminal but not finished");
      if (live_.contains(n) || movable_.contains(n) || timeline_.contains({r.life.end(), n}))
        return say(r, "terminal but still live");
      continue;
    }
    ++lives;
    if (r.finished != time_infinity) return say(r, "live but finished");
    if (!live_.contains(n)) return say(r, "live but not in the live set");
    if (pending(r)) {
      ++holds;
      if (!expiries_.contains({r.life.expiry(), n})) return say(r, "a hold without its expiry");
    }
    // A hold whose end passed while it waits for its expiry has left the timeline.
    if (timeline_.contains({r.life.end(), n}))
      ++ends;
    else if (!pending(r) || r.life.end() > ended_upto_)
      return say(r, "not on the timeline at its end");
    if (r.deadline != 0) {
      ++movables;
      if (!movable_.contains(n)) return say(r, "has a window but is not movable");
    }
  }
  std::size_t owner_entries = 0;
  for (const auto& [owner, serials] : by_owner_) {
    if (serials.empty()) return "owner '" + owner + "' is filed without records";
    owner_entries += serials.size();
  }
  if (by_txn_.size() != txns) return "stale transactions in the index";
  if (owner_entries != owned) return "stale records under owners";
  if (live_.size() != lives) return "stale records in the live set";
  if (expiries_.size() != holds) return "stale expiries";
  if (timeline_.size() != ends) return "stale timeline entries";
  if (movable_.size() != movables) return "stale movable records";
  if (finished_.size() != dones) return "stale finished records";
  return {};
}

}  // namespace arbroker
