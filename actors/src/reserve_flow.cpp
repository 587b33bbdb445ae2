#include "arbroker/actors/reserve_flow.hpp"

#include <iterator>

namespace arbroker {
namespace {

void append(reserve_flow::calls& out, reserve_flow::calls more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

std::string_view to_string(reserve_flow::phase p) noexcept {
  static constexpr std::string_view names[] = {"holding", "committing", "kept", "failed",
                                               "given_up"};
  const auto i = static_cast<std::size_t>(p);
  return i < std::size(names) ? names[i] : "unknown";
}

reserve_flow::reserve_flow(std::string txn_base, std::string user, duration hold_seconds)
    : txn_base_(std::move(txn_base)), user_(std::move(user)), hold_seconds_(hold_seconds) {}

reserve_flow::calls reserve_flow::of(std::size_t h, reservation_attempt::calls cs) const {
  calls out;
  out.reserve(cs.size());
  for (auto& c : cs)
    out.push_back({h, std::move(c)});
  return out;
}

reserve_flow::calls reserve_flow::start(std::vector<reserve_option> options, timestamp now) {
  calls out;
  if (!holds_.empty() || options.empty()) return out;
  holds_.reserve(options.size());
  for (auto& o : options) {
    attempt_terms t;
    t.user = user_;
    t.txn_base = txn_base_;
    t.client_commits = true;  // the manager is the client: it commits the one it keeps
    t.hold_seconds = hold_seconds_;
    holds_.push_back({std::move(o), reservation_attempt(std::move(t))});
  }
  for (std::size_t h = 0; h < holds_.size(); ++h) {
    append(out, try_hold(h, now));
  }
  return out;
}

reserve_flow::calls reserve_flow::try_hold(std::size_t h, timestamp now) {
  const auto& o = holds_[h].option;
  return of(
      h, holds_[h].attempt.try_placement({{h, o.cluster, o.start, o.start + o.length, o.np}}, now));
}

reserve_flow::calls reserve_flow::answer(std::size_t h, std::uint64_t id,
                                         const msg::prepare_reply* r, timestamp now) {
  if (h >= holds_.size()) return {};
  auto& hd = holds_[h];
  auto out = of(h, hd.attempt.answer(id, r));
  if (phase_ == phase::given_up) {
    // A grant that arrives now is nobody's: let it go.
    append(out, of(h, hd.attempt.release_hold()));
    return out;
  }
  if (phase_ != phase::holding || hd.settled) return out;
  const auto state = hd.attempt.current();
  if (state == reservation_attempt::phase::idle) {
    // The cluster's admission (local jobs first) wants a later start: try that once.
    const auto busy_until = hd.attempt.parts().front().prepared.busy_until;
    const bool useful = !hd.option.latest_start || busy_until <= *hd.option.latest_start;
    if (r && busy_until > hd.option.start && !hd.retried && useful) {
      hd.retried = true;
      hd.option.start = busy_until;
      append(out, try_hold(h, now));
      return out;
    }
    hd.settled = true;
  } else if (state == reservation_attempt::phase::granted) {
    hd.settled = true;
  } else {
    return out;  // still on its way
  }
  for (const auto& other : holds_)
    if (!other.settled) return out;
  append(out, decide());
  return out;
}

std::string reserve_flow::why_not(std::size_t h) const {
  return holds_[h].attempt.parts().front().prepared.error.message;
}

timestamp reserve_flow::finish_of(std::size_t h) const {
  const auto& o = holds_.at(h).option;
  return o.start + o.finish;
}

std::string reserve_flow::reservation_id() const {
  if (!kept_) return {};
  return holds_[*kept_].attempt.parts().front().prepared.reservation_id;
}

// Eq. 7 (or start + run time, as the owner's `finish` says): the hold that finishes first,
// the first of equals.
reserve_flow::calls reserve_flow::decide() {
  calls out;
  std::vector<bool> was_granted;  // before the losers are let go
  for (const auto& h : holds_)
    was_granted.push_back(h.attempt.current() == reservation_attempt::phase::granted);
  auto granted = [&](std::size_t h) { return was_granted[h]; };
  for (std::size_t h = 0; h < holds_.size(); ++h)
    if (granted(h) && (!kept_ || finish_of(h) < finish_of(*kept_))) kept_ = h;
  std::string refused;
  for (std::size_t h = 0; h < holds_.size(); ++h) {
    if (!granted(h)) {
      refused += " " + holds_[h].option.cluster + ": " + why_not(h) + ";";
      continue;
    }
    if (h == kept_) continue;
    notes_.push_back("released the hold " +
                     holds_[h].attempt.parts().front().prepared.reservation_id + " (finish " +
                     std::to_string(finish_of(h)) + ")");
    append(out, of(h, holds_[h].attempt.release_hold()));
  }
  if (!kept_) {
    if (!refused.empty()) refused.pop_back();
    failure_ = "no cluster granted a hold:" + refused;
    phase_ = phase::failed;
    return out;
  }
  for (std::size_t h = 0; h < holds_.size(); ++h)
    if (!granted(h)) notes_.push_back("no hold at " + holds_[h].option.cluster + ": " + why_not(h));
  notes_.push_back("kept " + reservation_id() + ": finishes first (" +
                   std::to_string(finish_of(*kept_)) + ")");
  phase_ = phase::committing;
  append(out, of(*kept_, holds_[*kept_].attempt.commit_hold()));
  return out;
}

reserve_flow::calls reserve_flow::answer(std::size_t h, std::uint64_t id, const msg::ack_reply* r) {
  if (h >= holds_.size()) return {};
  auto& a = holds_[h].attempt;
  auto out = of(h, a.answer(id, r));
  if (phase_ != phase::committing || kept_ != h) return out;
  if (a.current() == reservation_attempt::phase::granted) {
    phase_ = phase::kept;
  } else if (a.current() != reservation_attempt::phase::committing) {
    // The commit failed: the attempt releases what may be left of the hold.
    failure_ = "the commit failed: " + a.failure();
    notes_.push_back(failure_);
    phase_ = phase::failed;
  }
  return out;
}

reserve_flow::calls reserve_flow::give_up() {
  calls out;
  if (phase_ == phase::kept || phase_ == phase::failed || phase_ == phase::given_up) return out;
  for (std::size_t h = 0; h < holds_.size(); ++h) {
    auto& a = holds_[h].attempt;
    // A granted hold is let go; one still asked for (or a commit on its way) goes as it
    // arrives.
    append(out, of(h, a.current() == reservation_attempt::phase::granted ? a.release_hold()
                                                                         : a.give_up()));
  }
  phase_ = phase::given_up;
  return out;
}

std::vector<std::string> reserve_flow::take_notes() {
  auto n = std::move(notes_);
  notes_.clear();
  return n;
}

std::size_t reserve_flow::open_calls() const {
  std::size_t n = 0;
  for (const auto& h : holds_)
    n += h.attempt.open_calls();
  return n;
}

}  // namespace arbroker
