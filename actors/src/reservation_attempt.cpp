#include "arbroker/actors/reservation_attempt.hpp"

#include <algorithm>
#include <iterator>

namespace arbroker {
namespace {

msg::prepare_reply gone_reply(const std::string& txn, const std::string& cluster) {
  msg::prepare_reply r;
  r.txn = txn;
  r.error = msg::wire(errc::unreachable, "the reservation service of '" + cluster + "' is gone");
  return r;
}

}  // namespace

std::string_view to_string(reservation_attempt::phase p) noexcept {
  static constexpr std::string_view names[] = {"idle",      "preparing", "deciding", "committing",
                                               "releasing", "granted",   "given_up"};
  const auto i = static_cast<std::size_t>(p);
  return i < std::size(names) ? names[i] : "unknown";
}

std::string in_doubt_note(const reservation_attempt& a) {
  std::string note;
  if (a.in_doubt() > 0)
    note = "; " + std::to_string(a.in_doubt()) +
           " of them got no answer (released where they may have been granted)";
  if (a.decision_in_doubt())
    note += "; " + a.decision_in_doubt_why() +
            ": the outcome is not known until the store's next node recovers (check with list)";
  return note;
}

reservation_attempt::reservation_attempt(attempt_terms terms) : terms_(std::move(terms)) {}

std::uint64_t reservation_attempt::send(calls& out, std::size_t part, kind what) {
  const std::uint64_t id = next_id_++;
  open_.emplace(id, open_call{part, what});
  call c{id, parts_[part].terms.site, {}};
  switch (what) {
    case kind::prepare:
      break;  // built by try_placement, which knows the expiry
    case kind::commit:
      c.request = msg::commit_txn_request{part_txn(part)};
      break;
    case kind::abort:
      c.request = msg::abort_txn_request{part_txn(part)};
      break;
    case kind::release:
    case kind::settle:
      c.request = msg::release_txn_request{part_txn(part)};
      break;
    case kind::decide:
      break;  // built by after_prepares, which has the ticket
  }
  out.push_back(std::move(c));
  return id;
}

// A participant's prepare is idempotent per txn: parts that share a cluster each get their
// own, "<txn>#<part>", which the commit decision for <txn> covers (decision_txn()).
std::string reservation_attempt::part_txn(std::size_t part) const {
  const auto& site = parts_[part].terms.site;
  const bool shared = std::count_if(parts_.begin(), parts_.end(), [&](const part_outcome& o) {
                        return o.terms.site == site;
                      }) > 1;
  return shared ? txn_ + "#" + std::to_string(part) : txn_;
}

reservation_attempt::calls reservation_attempt::try_placement(placement p, timestamp now) {
  calls out;
  if (phase_ != phase::idle || p.empty()) return out;
  ++tries_;
  txn_ = terms_.txn_base + "." + std::to_string(tries_);
  failure_.clear();
  decision_logged_ = false;
  parts_.clear();
  for (auto& part : p)
    parts_.push_back({std::move(part), {}, false, false, false, false});
  // One participant needs no second phase: a plain reservation is committed by its prepare,
  // a hold for its client stays a hold.
  const bool single = parts_.size() == 1;
  const bool at_once = single && !terms_.client_commits;
  expiry_ = now + (single && terms_.client_commits ? terms_.hold_seconds : terms_.prepare_expiry);
  phase_ = phase::preparing;
  waiting_ = parts_.size();
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    send(out, i, kind::prepare);
    const auto& t = parts_[i].terms;
    out.back().request = msg::prepare_request{.txn = part_txn(i),
                                              .owner = terms_.user,
                                              .start = t.start,
                                              .end = t.end,
                                              .np = t.np,
                                              .expiry = expiry_,
                                              .local_jobs_preferred = terms_.local_jobs_preferred,
                                              .admin = terms_.admin,
                                              .commit_at_once = at_once,
                                              .account = terms_.account,
                                              .earliest = t.earliest,
                                              .deadline = t.deadline,
                                              .window_start = terms_.window_start,
                                              .window_end = terms_.window_end};
  }
  return out;
}

msg::reservation_info reservation_attempt::reservation_of(std::size_t part) const {
  const auto& p = parts_.at(part);
  msg::reservation_info r;
  r.id = p.prepared.reservation_id;
  r.cluster = p.terms.cluster;
  r.owner = terms_.user;
  r.start = p.terms.start;
  r.end = p.terms.end;
  r.np = p.terms.np;
  r.state = p.committed ? reservation_state::committed : reservation_state::accepted;
  r.expiry = p.committed ? 0 : expiry_;
  r.admitted_after = p.prepared.admitted_after;
  r.cost = p.prepared.cost;
  r.account = terms_.account;
  if (p.prepared.movable) {  // paper 002: it runs within this window, where it is now planned
    r.earliest = p.terms.earliest;
    r.deadline = p.terms.deadline;
  }
  r.created = p.prepared.created;
  r.window_start = terms_.window_start;
  r.window_end = terms_.window_end;
  return r;
}

reservation_attempt::calls reservation_attempt::answer(std::uint64_t id,
                                                       const msg::prepare_reply* r) {
  auto it = open_.find(id);
  if (it == open_.end() || it->second.what != kind::prepare) return {};
  const std::size_t i = it->second.part;
  open_.erase(it);
  auto& part = parts_[i];
  const bool granted = r && r->error.ok();
  if (phase_ == phase::given_up) {
    // Its client was told "timeout": what this grants is nobody's, and what it may have
    // granted without saying so neither.
    calls out;
    if (granted) send(out, i, kind::release);
    if (r && outcome_unknown(r->error)) settle(out, i);
    return out;
  }
  part.prepared = r ? *r : gone_reply(part_txn(i), part.terms.cluster);
  part.answered = true;
  part.lost = !r;
  part.committed = granted && parts_.size() == 1 && !terms_.client_commits;
  calls out;
  if (r && outcome_unknown(r->error)) settle(out, i);  // now: the other parts may take long
  if (--waiting_ > 0) return out;
  auto next = after_prepares();
  out.insert(out.end(), std::make_move_iterator(next.begin()), std::make_move_iterator(next.end()));
  return out;
}

void reservation_attempt::settle(calls& out, std::size_t i) {
  auto& part = parts_[i];
  if (part.in_doubt) return;
  part.in_doubt = true;
  ++in_doubt_;
  send(out, i, kind::settle);
}

reservation_attempt::calls reservation_attempt::after_prepares() {
  calls out;
  const bool all_granted = std::all_of(parts_.begin(), parts_.end(),
                                       [](const part_outcome& p) { return p.prepared.error.ok(); });
  if (all_granted && parts_.size() == 1) {
    phase_ = phase::granted;
    return out;
  }
  if (!all_granted) return abort_all();
  if (!terms_.journal) return commit_all();
  // Decision: commit. Sent only once it is durable, so that a restarted node completes what
  // it began (presumed abort: without this record, recovery aborts the holds).
  auto ticket = terms_.journal->log_commit_pipelined(txn_);
  if (!ticket) {
    failure_ = "the commit decision could not be logged: " + ticket.err().message;
    return abort_all();
  }
  decision_logged_ = true;
  if (*ticket == 0) return commit_all();
  phase_ = phase::deciding;
  send(out, 0, kind::decide);
  out.back().request = durable_wait{terms_.journal, *ticket};
  return out;
}

reservation_attempt::calls reservation_attempt::decided(std::uint64_t id, const status& durable) {
  auto it = open_.find(id);
  if (it == open_.end() || it->second.what != kind::decide) return {};
  open_.erase(it);
  if (phase_ == phase::given_up) {
    // give_up released the holds; the record is no longer needed once they are gone.
    if (open_.empty()) forget_decision();
    return {};
  }
  if (durable) return commit_all();
  failure_ = "the commit decision could not be logged: " + durable.err().message;
  return abort_all();
}

reservation_attempt::calls reservation_attempt::commit_all() {
  calls out;
  phase_ = phase::committing;
  waiting_ = parts_.size();
  for (std::size_t i = 0; i < parts_.size(); ++i)
    send(out, i, kind::commit);
  return out;
}

reservation_attempt::calls reservation_attempt::abort_all() {
  calls out;
  phase_ = phase::releasing;
  waiting_ = 0;
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    if (!parts_[i].prepared.error.ok()) continue;
    send(out, i, kind::abort);
    ++waiting_;
  }
  if (waiting_ == 0) finish_releasing();
  return out;
}

reservation_attempt::calls reservation_attempt::answer(std::uint64_t id, const msg::ack_reply* r) {
  auto it = open_.find(id);
  if (it == open_.end() || it->second.what == kind::prepare || it->second.what == kind::decide)
    return {};
  const open_call c = it->second;
  open_.erase(it);
  if (c.what == kind::settle) {
    // Nothing waited for it; a given-up attempt may be done with it now.
    if (phase_ == phase::given_up && open_.empty()) forget_decision();
    return {};
  }
  if (phase_ == phase::given_up) {
    // The releases of a given-up attempt are done: recovery has nothing left to settle.
    if (open_.empty()) forget_decision();
    return {};
  }
  auto& part = parts_[c.part];
  // After a logged decision, a commit or a release its service could not record leaves the
  // outcome to recovery, which completes the decision.
  if (decision_logged_ && r && r->error.err() == errc::storage_failure && !decision_in_doubt())
    decision_in_doubt_ = "the commit decision of " + txn_ + " is logged, and " +
                         part.terms.cluster + " could not record its " +
                         (c.what == kind::commit ? "commit" : "release") + " (" + r->error.message +
                         ")";
  if (c.what == kind::commit) {
    if (r && r->error.ok()) {
      part.committed = true;
    } else {
      part.lost = part.lost || !r;
      if (failure_.empty())
        failure_ = part.terms.cluster + ": " +
                   (r ? "a hold expired during commit (" + r->error.message + ")"
                      : std::string("the reservation service went away during commit"));
    }
    if (--waiting_ > 0) return {};
    return after_commits();
  }
  // An abort or a release of a failed try.
  if (!r) part.lost = true;
  if (--waiting_ == 0) finish_releasing();
  return {};
}

reservation_attempt::calls reservation_attempt::after_commits() {
  const bool all =
      std::all_of(parts_.begin(), parts_.end(), [](const part_outcome& p) { return p.committed; });
  if (!all) return compensate(failure_);
  forget_decision();
  phase_ = phase::granted;
  return {};
}

reservation_attempt::calls reservation_attempt::compensate(std::string why) {
  // All or nothing: a part lost before its commit arrived means no part may stay.
  calls out;
  failure_ = std::move(why);
  phase_ = phase::releasing;
  waiting_ = 0;
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    if (parts_[i].lost) continue;
    send(out, i, kind::release);
    ++waiting_;
  }
  if (waiting_ == 0) finish_releasing();
  return out;
}

void reservation_attempt::finish_releasing() {
  // Compensation is complete: recovery has nothing left to settle for this try.
  forget_decision();
  for (auto& p : parts_)
    p.committed = false;
  phase_ = phase::idle;
}

void reservation_attempt::forget_decision() {
  if (decision_logged_) (void)terms_.journal->forget_commit(txn_);
  decision_logged_ = false;
}

reservation_attempt::calls reservation_attempt::commit_hold() {
  const bool a_hold = phase_ == phase::granted && parts_.size() == 1 && !parts_[0].committed;
  if (!a_hold) return {};
  return commit_all();
}

reservation_attempt::calls reservation_attempt::release_hold() {
  calls out;
  const bool a_hold = phase_ == phase::granted && parts_.size() == 1 && !parts_[0].committed;
  if (!a_hold) return out;
  send(out, 0, kind::abort);
  phase_ = phase::given_up;
  return out;
}

reservation_attempt::calls reservation_attempt::give_up() {
  calls out;
  switch (phase_) {
    case phase::preparing:
      // Granted parts are released now; those still on their way when they arrive.
      for (std::size_t i = 0; i < parts_.size(); ++i)
        if (parts_[i].answered && !parts_[i].lost && parts_[i].prepared.error.ok())
          send(out, i, kind::release);
      break;
    case phase::deciding:
      // Every part is a hold; the commits are not sent (decided() will see given_up).
    case phase::committing:
      // A release sent now arrives after the commit on its way to the same service.
      for (std::size_t i = 0; i < parts_.size(); ++i)
        if (!parts_[i].lost) send(out, i, kind::release);
      break;
    default:
      break;  // releasing: the aborts on their way finish the job; otherwise nothing is held
  }
  phase_ = phase::given_up;
  if (open_.empty()) forget_decision();
  return out;
}

}  // namespace arbroker
