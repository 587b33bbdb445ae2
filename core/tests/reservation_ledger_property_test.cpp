// The ledger against a naive model: random sequences of what a cluster service does to its
// reservations (holds, commits, cancels, changes of terms, extensions, bound jobs, sweeps
// that expire holds, end reservations and forget finished ones), with every answer of the
// ledger compared to a scan of the model and its indexes checked after every step.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "arbroker/core/reservation_ledger.hpp"

namespace arbroker {
namespace {

using serial_t = reservation_ledger::serial_t;

// The model: every record in memory, in a map; each question answered by a scan.
struct model {
  std::map<serial_t, reservation_record> records;
  std::map<std::string, reservation_ledger::ended_txn> ended;  // (no bound: see remembered)

  static bool pending(const reservation_record& r) {
    return r.life.state() == reservation_state::accepted;
  }
  std::set<serial_t> where(auto pred) const {
    std::set<serial_t> out;
    for (const auto& [n, r] : records)
      if (pred(r)) out.insert(n);
    return out;
  }
  std::set<serial_t> live() const {
    return where([](const auto& r) { return !is_terminal(r.life.state()); });
  }
  std::set<serial_t> movable() const {
    return where([](const auto& r) { return !is_terminal(r.life.state()) && r.deadline != 0; });
  }
  std::set<serial_t> of_owner(const std::string& o) const {
    return where([&](const auto& r) { return r.owner == o; });
  }
  std::optional<std::pair<timestamp, serial_t>> first_hold() const {
    std::optional<std::pair<timestamp, serial_t>> out;
    for (const auto& [n, r] : records)
      if (pending(r) && (!out || std::pair(r.life.expiry(), n) < *out))
        out = std::pair(r.life.expiry(), n);
    return out;
  }
  // `r` after a change at `now`: finished if it just reached a terminal state.
  static void settle(reservation_record& r, bool was_terminal, timestamp now) {
    if (!was_terminal && is_terminal(r.life.state())) r.finished = now;
  }
};

// The ledger answers every question as the model does, and its indexes agree.
void same(const reservation_ledger& l, const model& m) {
  RC_ASSERT(l.check() == "");
  RC_ASSERT(l.size() == m.records.size());
  RC_ASSERT(l.live() == m.live());
  RC_ASSERT(l.movable() == m.movable());
  for (const std::string o : {"ann", "bob", "cy"})
    RC_ASSERT(l.of_owner(o) == m.of_owner(o));
  const auto first = m.first_hold();
  RC_ASSERT(l.next_expiry() == (first ? std::optional(first->first) : std::nullopt));
  for (const auto& [n, r] : m.records) {
    const auto* got = l.find(n);
    RC_ASSERT(got != nullptr);
    RC_ASSERT(got->life.state() == r.life.state());
    RC_ASSERT(got->life.start() == r.life.start());
    RC_ASSERT(got->life.end() == r.life.end());
    RC_ASSERT(got->finished == r.finished);
    RC_ASSERT(got->jobs == r.jobs);
    RC_ASSERT(got->overruns == r.overruns);
    RC_ASSERT(l.of_txn(r.txn) == got);
  }
  for (const auto& [txn, e] : m.ended) {
    const auto* got = l.ended(txn);
    RC_ASSERT(got != nullptr);  // the run remembers fewer than the ledger keeps
    RC_ASSERT(got->id == e.id);
    RC_ASSERT(got->state == e.state);
  }
}

// What the service's sweep does with the ledger; the model's answer beside it.
void sweep(reservation_ledger& l, model& m, timestamp now, duration kept) {
  while (auto n = l.due_hold(now)) {
    const auto first = m.first_hold();
    RC_ASSERT(first && first->first <= now && first->second == *n);
    (void)l.apply(*n, reservation_event::expire, now);
    auto& r = m.records.at(*n);
    (void)r.life.apply(reservation_event::expire, now);
    model::settle(r, false, now);
  }
  const auto first = m.first_hold();
  RC_ASSERT(!first || first->first > now);
  // With no hold due, every live record whose end came is over, but a hold past its end.
  const auto due = m.where([&](const auto& r) {
    return !is_terminal(r.life.state()) && !model::pending(r) && r.life.end() <= now;
  });
  const auto ended = l.take_ended(now);
  RC_ASSERT(std::set(ended.begin(), ended.end()) == due);
  for (auto n : due) {
    auto& r = m.records.at(n);
    r.life.advance(now);
    RC_ASSERT(r.life.state() == reservation_state::completed);
    model::settle(r, false, now);
  }
  l.purge(now - kept);
  for (auto it = m.records.begin(); it != m.records.end();) {
    if (it->second.finished != time_infinity && it->second.finished <= now - kept) {
      m.ended.emplace(it->second.txn,
                      reservation_ledger::ended_txn{it->second.id, it->second.life.state()});
      it = m.records.erase(it);
    } else {
      ++it;
    }
  }
}

void run_one_sequence() {
  reservation_ledger l;
  model m;
  timestamp now = 0;
  serial_t next = 1;
  const duration kept = *rc::gen::inRange<duration>(0, 100);
  const int steps = *rc::gen::inRange(1, 80);
  const auto some_serial = [&]() -> std::optional<serial_t> {
    if (m.records.empty()) return std::nullopt;
    auto it = m.records.begin();
    std::advance(it, *rc::gen::inRange<std::size_t>(0, m.records.size()));
    return it->first;
  };
  for (int i = 0; i < steps; ++i) {
    now += *rc::gen::inRange<duration>(0, 30);
    switch (*rc::gen::inRange(0, 9)) {
      case 0:
      case 1: {  // a hold (maybe committed at once), with or without a window
        const timestamp start = now + *rc::gen::inRange<duration>(0, 100);
        const timestamp end = start + *rc::gen::inRange<duration>(1, 100);
        auto life = reservation_lifecycle::create(start, end);
        RC_ASSERT(bool(life->accept(now, now + *rc::gen::inRange<duration>(1, 150))));
        const serial_t n = next++;
        reservation_record r{"c/" + std::to_string(n), "t" + std::to_string(n),
                             *rc::gen::element<std::string>("ann", "bob", "cy"),
                             "l" + std::to_string(n), *life};
        r.serial = n;
        r.np = 1;
        if (*rc::gen::arbitrary<bool>()) {
          r.earliest = start;
          r.deadline = end + 50;
        }
        RC_ASSERT(bool(l.add(r, now)));
        m.records.emplace(n, r);
        if (*rc::gen::arbitrary<bool>()) {
          (void)l.apply(n, reservation_event::commit, now);
          (void)m.records.at(n).life.apply(reservation_event::commit, now);
        }
        break;
      }
      case 2: {  // a user's or coordinator's event, legal or not
        auto n = some_serial();
        if (!n) break;
        const auto e = *rc::gen::element(
            reservation_event::commit, reservation_event::cancel, reservation_event::terminate,
            reservation_event::request_change, reservation_event::change_refused);
        auto& r = m.records.at(*n);
        const bool was = is_terminal(r.life.state());
        const bool ok = bool(l.apply(*n, e, now));
        RC_ASSERT(ok == bool(r.life.apply(e, now)));
        model::settle(r, was, now);
        break;
      }
      case 3: {  // a look at one record (list, query, status)
        auto n = some_serial();
        if (!n) break;
        auto& r = m.records.at(*n);
        const bool was = is_terminal(r.life.state());
        l.advance(*n, now);
        r.life.advance(now);
        model::settle(r, was, now);
        break;
      }
      case 4: {  // new terms for a committed one (a modify or a laxity move)
        auto n = some_serial();
        if (!n) break;
        auto& r = m.records.at(*n);
        const bool was = is_terminal(r.life.state());
        r.life.advance(now);
        l.advance(*n, now);
        model::settle(r, was, now);
        if (r.life.state() != reservation_state::committed) break;
        auto changed = *l.find(*n);
        RC_ASSERT(bool(changed.life.apply(reservation_event::request_change, now)));
        const timestamp start = now + *rc::gen::inRange<duration>(0, 100);
        RC_ASSERT(bool(
            changed.life.change_terms(now, start, start + *rc::gen::inRange<duration>(1, 100))));
        if (*rc::gen::arbitrary<bool>()) changed.deadline = changed.earliest = 0;
        RC_ASSERT(bool(l.replace(*n, changed)));
        changed.finished = r.finished;
        r = changed;
        break;
      }
      case 5: {  // an overrun quantum
        auto n = some_serial();
        if (!n) break;
        auto& r = m.records.at(*n);
        const bool was = is_terminal(r.life.state());
        const timestamp to = r.life.end() + *rc::gen::inRange<duration>(1, 50);
        const bool ok = bool(l.extend(*n, now, to, 1.0));
        RC_ASSERT(ok == bool(r.life.extend(now, to)));
        if (ok) {
          r.cost += 1.0;
          ++r.overruns;
        }
        model::settle(r, was, now);
        break;
      }
      case 6: {  // jobs bound and unbound
        auto n = some_serial();
        if (!n) break;
        const std::string job = "j" + std::to_string(*rc::gen::inRange(0, 3));
        auto& jobs = m.records.at(*n).jobs;
        if (*rc::gen::arbitrary<bool>()) {
          l.add_jobs(*n, {job});
          jobs.push_back(job);
        } else {
          auto it = std::find(jobs.begin(), jobs.end(), job);
          RC_ASSERT(l.remove_job(*n, job) == (it != jobs.end()));
          if (it != jobs.end()) jobs.erase(it);
        }
        break;
      }
      default:
        sweep(l, m, now, kept);
        break;
    }
    same(l, m);
  }
  sweep(l, m, now + 1000, kept);  // in the end everything is over ...
  same(l, m);
  sweep(l, m, now + 2000, kept);  // ... and forgotten
  same(l, m);
  RC_ASSERT(l.live().empty());
  RC_ASSERT(l.size() == 0u);
}

// At least 1,000 random sequences, whatever RC_PARAMS asks for less.
TEST(ReservationLedgerProperty, EveryAnswerAndIndexAgreesWithANaiveModel) {
  auto params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(params.maxSuccess, 1000);
  rc::detail::TestMetadata meta;
  meta.id = "ReservationLedgerProperty/EveryAnswerAndIndexAgreesWithANaiveModel";
  meta.description = meta.id;
  const auto result = rc::detail::checkTestable(&run_one_sequence, meta, params);
  if (result.is<rc::detail::SuccessResult>()) {
    const auto& ok = result.get<rc::detail::SuccessResult>();
    EXPECT_GE(ok.numSuccess, 1000);
    std::cout << ok.numSuccess << " sequences passed\n";
  } else {
    std::ostringstream why;
    rc::detail::printResultMessage(result, why);
    FAIL() << why.str();
  }
}

}  // namespace
}  // namespace arbroker
