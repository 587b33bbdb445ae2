#include "arbroker/actors/cluster_service.hpp"

#include <algorithm>

#include "arbroker/adapters/owned_lrms.hpp"
#include "arbroker/core/earliest_start.hpp"
#include "arbroker/core/time_format.hpp"

namespace arbroker {
namespace {

// Times in messages as users write them (ISO 8601 UTC), not epoch seconds.
std::string ts(timestamp t) {
  return format_time(t);
}

}  // namespace

result<std::unique_ptr<cluster_service>> cluster_service::create(cluster_service_config cfg,
                                                                 std::unique_ptr<lrms> backend) {
  const auto& i = cfg.info;
  if (i.name.empty() || i.name.find('/') != std::string::npos)
    return fail(errc::invalid_parameter,
                "cluster name '" + i.name + "' must be non-empty and contain no '/'");
  if (!backend) return fail(errc::invalid_parameter, "cluster '" + i.name + "' has no LRMS");
  if (auto ok = validate(msg::site_of(i)); !ok) return ok.err();
  if (cfg.refresh < 0 || cfg.max_hold <= 0 || cfg.retention < 0)
    return fail(errc::invalid_parameter, "cluster '" + i.name +
                                             "': refresh and retention must be >= 0 and "
                                             "max_hold > 0");
  if (cfg.overrun_quantum < 0 || cfg.overrun_notice < 1 || cfg.overrun_max < 0)
    return fail(errc::invalid_parameter,
                "cluster '" + i.name +
                    "': overrun_quantum and overrun_max must be >= 0 and overrun_notice >= 1 s");
  auto view = lrms_view::create({i.name, i.cpus, cfg});  // (the policy part of cfg)
  if (!view) return view.err();
  return std::unique_ptr<cluster_service>(
      new cluster_service(std::move(cfg), std::move(backend), std::move(*view)));
}

cluster_service::cluster_service(cluster_service_config cfg, std::unique_ptr<lrms> backend,
                                 lrms_view view)
    : cfg_(std::move(cfg)),
      lrms_(std::make_unique<owned_lrms>(std::move(backend))),
      view_(std::move(view)),
      desk_({cfg_.info.name, cfg_.info.cpus, cfg_.name_prefix, cfg_.scoped_callers}, *lrms_,
            [this] { view_.jobs_changed(); }),
      names_(cfg_.name_prefix),
      overruns_(cfg_.overrun_quantum, cfg_.overrun_notice),
      job_ends_(cfg_.refresh) {}

status cluster_service::refresh(timestamp now, bool force) {
  return view_.refresh(*lrms_, now, force);
}

msg::prepare_reply cluster_service::prepare(const msg::prepare_request& req, timestamp now) {
  msg::prepare_reply out;
  out.txn = req.txn;
  sweep(now);
  if (const auto* held = ledger_.of_txn(req.txn)) {
    // Idempotent: a repeated prepare of a live hold answers as the first did.
    const auto& r = *held;
    if (r.life.state() == reservation_state::accepted ||
        r.life.state() == reservation_state::committed) {
      out.reservation_id = r.id;
      out.cost = r.cost;
      out.movable = r.deadline != 0;
      return out;
    }
    out.error = msg::wire(errc::illegal_transition, "transaction '" + req.txn + "' is already " +
                                                        std::string(to_string(r.life.state())));
    return out;
  }
  if (const auto* e = ledger_.ended(req.txn)) {
    // A late copy of a prepare whose transaction is over here: never a new hold.
    out.error = msg::wire(
        errc::illegal_transition,
        "transaction '" + req.txn + "' is over here (" +
            (e->id.empty() ? std::string("aborted before its prepare arrived")
                           : "reservation '" + e->id + "' " + std::string(to_string(e->state))) +
            "): a late prepare is refused");
    return out;
  }
  if (auto bound = admit(req, now, out)) grant(req, now, *bound, out);
  return out;
}

// The checks of a prepare, in order: the request itself, then the view (LJP, capacity).
// The LJP bound it was admitted against (0 without LJP), or nothing with `out` saying why
// it is refused.
std::optional<timestamp> cluster_service::admit(const msg::prepare_request& req, timestamp now,
                                                msg::prepare_reply& out) {
  auto refuse = [&out](errc code, std::string why, msg::refusal by = msg::refusal::none,
                       timestamp busy_until = -1) -> std::optional<timestamp> {
    out.error = msg::wire(code, std::move(why));
    out.refused_by = by;
    out.busy_until = busy_until;
    return std::nullopt;
  };
  if (req.txn.empty()) return refuse(errc::invalid_parameter, "prepare without a transaction id");
  if (req.owner.empty()) return refuse(errc::permission_denied, "prepare without an owner");
  if (req.start >= req.end || req.start < now)
    return refuse(errc::invalid_window, "hold [" + ts(req.start) + ", " + ts(req.end) +
                                            ") must be non-empty and not start before now (" +
                                            ts(now) + ")");
  if (req.deadline != 0 && (req.earliest > req.start || req.deadline < req.end))
    return refuse(errc::invalid_window, "hold [" + ts(req.start) + ", " + ts(req.end) +
                                            ") is not within its window [" + ts(req.earliest) +
                                            ", " + ts(req.deadline) + "]");
  if (req.np < 1 || req.np > cfg_.info.cpus)
    return refuse(errc::invalid_processor_range, "hold of " + std::to_string(req.np) +
                                                     " CPUs on a cluster of " +
                                                     std::to_string(cfg_.info.cpus));
  if (req.expiry <= now || req.expiry > now + cfg_.max_hold)
    return refuse(errc::invalid_parameter,
                  "hold expiry " + ts(req.expiry) + " must be in (now, now + " +
                      std::to_string(cfg_.max_hold) + " s] with now = " + ts(now));
  if (auto ok = refresh(now); !ok) return refuse(ok.err().code, ok.err().message);
  auto rule = admission_for(req.local_jobs_preferred, req.admin, now);
  if (!rule) return refuse(rule.err().code, rule.err().message, msg::refusal::service);
  if (req.start < rule->not_before)
    // Paper 000, Sec. 3.3.2: a reservation may not bypass waiting local jobs.
    return refuse(errc::busy,
                  "start " + ts(req.start) + " is before T_wkl " + ts(view_.capacity().t_wkl()) +
                      ": it would bypass waiting local jobs",
                  msg::refusal::service, rule->not_before);
  // Paper 002: accepted reservations moved within their windows to make room. (Only reading
  // the LRMS again can fail here: the rule's inputs passed admission_for above.)
  rule = with_room(req.start, req.end, req.np, *rule, req.local_jobs_preferred, req.admin, now);
  if (!rule) return refuse(rule.err().code, rule.err().message);
  auto free = rule->free->min_free(req.start, req.end);
  if (!free || *free >= req.np) return rule->ljp ? rule->not_before : 0;
  if (rule->free != &view_.profile() && view_.profile().fits(req.start, req.end, req.np))
    // Paper 004, Sec. III-B: the CPUs are free now, but queued local jobs are planned on them.
    return refuse(errc::busy,
                  std::to_string(req.np) + " CPUs over [" + ts(req.start) + ", " + ts(req.end) +
                      ") would postpone queued local jobs (" + std::to_string(*free) +
                      " CPUs are vacant in their plan; this site keeps local jobs preferred)",
                  msg::refusal::service, busy_hint(req, *rule->free));
  return refuse(errc::busy,
                std::to_string(req.np) + " CPUs are not free over [" + ts(req.start) + ", " +
                    ts(req.end) + ") (" + std::to_string(*free) + " free)",
                msg::refusal::lrms, busy_hint(req, *rule->free));
}

// When a refused hold could start instead: its size fits for its length first at this time
// in `free` (-1: never, as far as the view knows).
timestamp cluster_service::busy_hint(const msg::prepare_request& req,
                                     const availability_profile& free) const {
  auto t = free.earliest_start(req.start, req.end - req.start, req.np);
  return t ? *t : -1;
}

void cluster_service::view_put(const record& r, timestamp now) {
  view_.put(r.lrms_id, {r.life.start(), r.life.end(), r.np}, now);
}

void cluster_service::view_erase(const std::string& lrms_id) {
  view_.erase(lrms_id);
}

// An admitted prepare: the hold in the LRMS, durable in the journal before it is answered
// for, then in the view. A plain reservation (commit_at_once) is committed at once.
void cluster_service::grant(const msg::prepare_request& req, timestamp now,
                            timestamp admitted_after, msg::prepare_reply& out) {
  const std::uint64_t n = next_id_++;
  if (auto ok = lease(n); !ok) {
    out.error = msg::to_wire(ok.err());
    return;
  }
  const std::string id = name() + "/" + std::to_string(n);
  auto lrms_id = lrms_->create_reservation(
      {names_.name_of(n), req.owner, req.start, req.end - req.start, req.np, req.account});
  if (!lrms_id) {
    out.refused_by = msg::refusal::lrms;
    out.busy_until = busy_hint(req, view_.profile());
    out.error = msg::to_wire(lrms_id.err());
    view_.wrong();  // the view allowed what the LRMS refused: read it all next time
    return;
  }
  auto life = reservation_lifecycle::create(req.start, req.end);
  (void)life->accept(now, req.expiry);
  record r{id, req.txn, req.owner, *lrms_id, *life, req.np, 0, admitted_after, time_infinity};
  r.account = req.account;
  r.created = now;
  r.window_start = req.window_start;
  r.window_end = req.window_end;
  if (cfg_.laxity && req.deadline != 0) {
    r.earliest = req.earliest;
    r.deadline = req.deadline;
  }
  if (auto c = cost_for(req.start, req.end, req.np, req.owner)) r.cost = *c;
  const auto state =
      req.commit_at_once ? reservation_state::committed : reservation_state::accepted;
  if (auto ok = persist(r, state); !ok) {
    // Not durable, so not granted: undo the LRMS side and keep the id unused.
    (void)lrms_->delete_reservation(*lrms_id);
    out.error = msg::to_wire(ok.err());
    return;
  }
  out.reservation_id = id;
  out.cost = r.cost;
  out.movable = r.deadline != 0;
  out.created = r.created;
  out.admitted_after = r.admitted_after;
  r.serial = n;
  const auto& rec = **ledger_.add(std::move(r), now);  // (a new serial, a new txn)
  view_put(rec, now);
  watch_overrun(rec);
  ++events_.holds_created;
  if (req.commit_at_once) {
    ++events_.commits;
    (void)ledger_.apply(n, reservation_event::commit, now);
  }
}

result<double> cluster_service::cost_for(timestamp start, timestamp end, int np,
                                         const std::string& user) const {
  std::string_view vo;
  if (cfg_.vo_of)
    if (auto it = cfg_.vo_of->find(user); it != cfg_.vo_of->end()) vo = it->second;
  return cfg_.cost.cost(start, end, np, user, vo);
}

reservation_row cluster_service::row_of(const record& r, reservation_state state) const {
  return {r.id,
          name(),
          r.owner,
          r.txn,
          r.lrms_id,
          r.life.start(),
          r.life.end(),
          r.np,
          state,
          state == reservation_state::accepted ? r.life.expiry() : 0,
          r.admitted_after,
          r.cost,
          r.account,
          r.earliest,
          r.deadline,
          is_terminal(state) ? (r.finished != time_infinity ? r.finished : now_) : 0,
          r.created,
          r.window_start,
          r.window_end};
}

void cluster_service::persist_end(const record& r) {
  if (cfg_.journal) (void)cfg_.journal->save_pipelined(row_of(r, r.life.state()));
}

status cluster_service::persist(const record& r, reservation_state state) {
  if (!cfg_.journal && !cfg_.on_change) return {};
  const auto row = row_of(r, state);
  if (cfg_.journal) {
    auto ticket = cfg_.journal->save_pipelined(row);
    if (!ticket) return ticket.err();
    unsynced_ = std::max(unsynced_, *ticket);
  }
  if (cfg_.on_change) cfg_.on_change(row);
  return {};
}

void cluster_service::release(const record& r, reservation_event e, timestamp now, bool persisted) {
  auto del = lrms_->delete_reservation(r.lrms_id);
  if (!del && del.err().code != errc::not_found) {
    // The LRMS kept it: it stays in the view, and the delete is tried again on every sweep
    // (retry_deletes), not forgotten.
    if (r.life.end() > now) undeleted_[r.lrms_id] = r.life.end();
  } else {
    view_erase(r.lrms_id);
  }
  // On a laxity cluster CPUs freed before their time let the others move forward.
  if (cfg_.laxity && r.life.end() > now) laxity_.note_early_end();
  (void)ledger_.apply(r.serial, e, now);  // (ends it, whatever the lifecycle says)
  // Best effort: a hold the store still shows is aborted on recovery anyway.
  if (!persisted) (void)persist(r, r.life.state());
}

msg::ack_reply cluster_service::commit_txn(const msg::commit_txn_request& req, timestamp now) {
  sweep(now);
  if (const auto* r = ledger_.of_txn(req.txn)) return confirm(*r, now);
  // A part that was here and ended says so (a decision settler tells a part released by a
  // compensation from a cluster without a part); one that ran after its commit still is.
  if (const auto* e = ledger_.ended(req.txn); e && !e->id.empty()) {
    const auto st = e->state;
    if (st == reservation_state::completed || st == reservation_state::terminated) return {};
    return {msg::wire(errc::illegal_transition,
                      "reservation '" + e->id + "' is " + std::string(to_string(st)) +
                          ": cannot commit transaction '" + req.txn + "'")};
  }
  return {msg::wire(errc::not_found, "unknown transaction '" + req.txn + "'")};
}

// Phase two for one reservation: a hold becomes committed, durably before it is
// acknowledged; committing a committed one again is fine.
msg::ack_reply cluster_service::confirm(const record& r, timestamp now) {
  switch (r.life.state()) {
    case reservation_state::committed:
    case reservation_state::active:
      return {};  // idempotent
    case reservation_state::accepted:
      // Durable before it is acknowledged: a crash after this answer must not lose it.
      if (auto ok = persist(r, reservation_state::committed); !ok) return {msg::to_wire(ok.err())};
      if (auto ok = ledger_.apply(r.serial, reservation_event::commit, now); !ok)
        return {msg::to_wire(ok.err())};
      ++events_.commits;
      return {};
    default:
      return {illegal(r, "cannot commit")};
  }
}

msg::ack_reply cluster_service::abort_txn(const msg::abort_txn_request& req, timestamp now) {
  sweep(now);
  const auto* r = ledger_.of_txn(req.txn);
  if (!r) {  // presumed abort: nothing held, and a prepare arriving later must not hold
    ledger_.remember_ended(req.txn, "", reservation_state::cancelled);  // (once: the first stays)
    return {};
  }
  switch (r->life.state()) {
    case reservation_state::accepted:
      return drop_hold(*r, now);
    case reservation_state::cancelled:
    case reservation_state::expired:
      return {};
    default:
      return {illegal(*r, "cannot abort transaction '" + req.txn + "'")};
  }
}

msg::ack_reply cluster_service::release_txn(const msg::release_txn_request& req, timestamp now) {
  sweep(now);
  const auto* r = ledger_.of_txn(req.txn);
  if (!r) {  // never granted: nothing to undo, and a prepare arriving later must not hold
    ledger_.remember_ended(req.txn, "", reservation_state::cancelled);  // (once: the first stays)
    return {};
  }
  ledger_.advance(r->serial, now);
  if (r->life.state() == reservation_state::accepted) return drop_hold(*r, now);
  if (is_terminal(r->life.state())) return {};  // gone already
  return withdraw(*r, now);
}

// A coordinator releases a hold (abort, or undo).
msg::ack_reply cluster_service::drop_hold(const record& r, timestamp now) {
  release(r, reservation_event::cancel, now);
  ++events_.aborts;
  return {};
}

msg::wire_error cluster_service::illegal(const record& r, const std::string& what) const {
  return msg::wire(
      errc::illegal_transition,
      "reservation '" + r.id + "' is " + std::string(to_string(r.life.state())) + ": " + what);
}

const cluster_service::record* cluster_service::owned(const std::string& id,
                                                      const std::string& user, timestamp now) {
  sweep(now);
  const auto* r = ledger_.find(serial_of(id));
  if (!r) return nullptr;
  // An empty user is any owner: an admin's request (the API fills in everyone else's).
  if (!broker_scope::may_see(caller_of(user), r->txn, r->owner)) return nullptr;
  ledger_.advance(r->serial, now);
  return r;
}

broker_scope::caller cluster_service::caller_of(std::string_view user) const {
  return broker_scope::caller_of(user, cfg_.scoped_callers);
}

std::uint64_t cluster_service::serial_of(std::string_view id) const {
  const std::string& c = name();
  if (id.size() <= c.size() || id.compare(0, c.size(), c) != 0 || id[c.size()] != '/') return 0;
  return lrms_names::number_in(id.substr(c.size() + 1));
}

msg::wire_error cluster_service::missing(const std::string& id) {
  return msg::wire(errc::not_found, "no reservation '" + id + "'");
}

msg::reservation_info cluster_service::info_of(const record& r) const {
  const bool held = r.life.state() == reservation_state::accepted;
  return {r.id,
          name(),
          r.owner,
          r.life.start(),
          r.life.end(),
          r.np,
          r.life.state(),
          held ? r.life.expiry() : 0,  // only a hold has an expiry
          r.admitted_after,
          r.cost,
          r.account,
          r.deadline != 0 ? r.earliest : 0,
          r.deadline,
          r.finished != time_infinity ? r.finished : 0,
          r.created,
          r.window_start,
          r.window_end};
}

msg::ack_reply cluster_service::cancel(const msg::cancel_request& req, timestamp now) {
  const auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {missing(req.reservation_id)};
  // A client hears that a second cancel changed nothing (a coordinator's release, through
  // withdraw, may come twice).
  if (r->life.state() == reservation_state::cancelled) return {illegal(*r, "nothing to cancel")};
  return withdraw(*r, now);
}

// A reservation's owner (or its coordinator) withdraws it: cancelled before it starts,
// terminated while active; written before the LRMS lets go, so that a crash cannot bring a
// cancelled one back. Cancelling a cancelled one again is fine.
msg::ack_reply cluster_service::withdraw(const record& r, timestamp now) {
  ledger_.advance(r.serial, now);  // (a coordinator's release comes without owned())
  switch (r.life.state()) {
    case reservation_state::accepted:
    case reservation_state::committed:
    case reservation_state::change_requested:
      return end_early(r, reservation_state::cancelled, reservation_event::cancel, now);
    case reservation_state::active:
      return end_early(r, reservation_state::terminated, reservation_event::terminate, now);
    case reservation_state::cancelled:
      return {};
    default:
      return {illegal(r, "cannot cancel")};
  }
}

msg::ack_reply cluster_service::end_early(const record& r, reservation_state to,
                                          reservation_event e, timestamp now) {
  if (auto ok = persist(r, to); !ok) return {msg::to_wire(ok.err())};
  release(r, e, now, true);
  ++events_.cancels;
  return {};
}

msg::query_reply cluster_service::modify(const msg::modify_request& req, timestamp now) {
  const auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {{}, missing(req.reservation_id)};
  if (r->life.state() != reservation_state::committed)
    return {info_of(*r),
            msg::wire(errc::illegal_transition,
                      "only a committed reservation that has not started can change; '" + r->id +
                          "' is " + std::string(to_string(r->life.state())))};
  if (req.start >= req.end || req.start < now)
    return {info_of(*r),
            msg::wire(errc::invalid_window, "new terms [" + ts(req.start) + ", " + ts(req.end) +
                                                ") are empty or in the past")};
  if (req.np < 1 || req.np > cfg_.info.cpus)
    return {info_of(*r), msg::wire(errc::invalid_processor_range,
                                   "new size " + std::to_string(req.np) + " CPUs on a cluster of " +
                                       std::to_string(cfg_.info.cpus))};
  if (auto ok = refresh(now); !ok) return {info_of(*r), msg::to_wire(ok.err())};
  auto rule = admission_for(req.local_jobs_preferred, req.admin, now);
  if (!rule) return {info_of(*r), msg::to_wire(rule.err())};
  if (req.start < rule->not_before)
    return {info_of(*r), msg::wire(errc::busy, "new start " + ts(req.start) + " is before T_wkl " +
                                                   ts(view_.capacity().t_wkl()))};
  if (rule->free != &view_.profile()) {
    // Under `ese` the new terms must fit the plan's vacancies, its own old terms given back.
    auto vacant = *rule->free;
    const timestamp from = std::max(r->life.start(), now);
    if (from < r->life.end()) (void)vacant.remove(from, r->life.end(), r->np);
    if (!vacant.fits(req.start, req.end, req.np))
      return {info_of(*r),
              msg::wire(errc::busy, std::to_string(req.np) + " CPUs over [" + ts(req.start) + ", " +
                                        ts(req.end) +
                                        ") would postpone queued local jobs (this site keeps "
                                        "local jobs preferred)")};
  }
  (void)ledger_.apply(r->serial, reservation_event::request_change, now);
  record changed = *r;
  (void)changed.life.change_terms(now, req.start, req.end);
  changed.np = req.np;
  // Terms its owner chose are kept as they are: no longer moved within a window.
  changed.earliest = changed.deadline = 0;
  changed.admitted_after = rule->ljp ? rule->not_before : 0;
  if (auto c = cost_for(req.start, req.end, req.np, r->owner)) changed.cost = *c;
  if (auto ok = replace_terms(*r, std::move(changed), now); !ok) {
    (void)ledger_.apply(r->serial, reservation_event::change_refused, now);
    return {info_of(*r), msg::to_wire(ok.err())};
  }
  return {info_of(*r), {}};
}

// Puts `r` on the terms of `changed` (its lifecycle already on them): the LRMS first
// (make-before-break), durable next (if not, the old terms go back into the LRMS), then the
// view, the timeline and the record. On error `r` keeps its terms.
status cluster_service::replace_terms(const record& r, record changed, timestamp now) {
  const auto spec_of = [this](const record& x) {
    return reservation_spec{names_.name_of(x.serial),      x.owner, x.life.start(),
                            x.life.end() - x.life.start(), x.np,    x.account};
  };
  auto new_id = lrms_->modify_reservation(r.lrms_id, spec_of(changed));
  if (!new_id) return new_id.err();
  changed.lrms_id = *new_id;
  if (auto ok = persist(changed, reservation_state::committed); !ok) {
    if (auto back = lrms_->modify_reservation(*new_id, spec_of(r)))
      ledger_.set_lrms_id(r.serial, *back);
    view_.wrong();
    return ok;
  }
  view_erase(r.lrms_id);
  view_put(changed, now);
  (void)ledger_.replace(r.serial, std::move(changed));  // (same reservation, committed)
  watch_overrun(r);
  return {};
}

void cluster_service::retry_deletes(timestamp now) {
  for (auto it = undeleted_.begin(); it != undeleted_.end();) {
    if (it->second <= now) {  // over: the LRMS ends it itself
      view_erase(it->first);
      it = undeleted_.erase(it);
      continue;
    }
    auto del = lrms_->delete_reservation(it->first);
    if (!del && del.err().code != errc::not_found) {
      ++it;
      continue;
    }
    view_erase(it->first);  // CPUs came back
    it = undeleted_.erase(it);
  }
}

void cluster_service::sweep(timestamp now) {
  now_ = now;
  if (!undeleted_.empty()) retry_deletes(now);
  // Holds that expired first: the policies below then see no hold past its expiry (one that
  // advanced to expired there would never be deleted from the LRMS).
  while (auto n = ledger_.due_hold(now)) {
    release(*ledger_.find(*n), reservation_event::expire, now);
    ++events_.expiries;
  }
  release_after_jobs(now);
  handle_overruns(now);
  for (const auto n : ledger_.take_ended(now)) {
    const auto& r = *ledger_.find(n);
    if (!undeleted_.contains(r.lrms_id)) view_erase(r.lrms_id);  // over: holds nothing
    persist_end(r);
  }
  // Finished reservations leave memory: at once when the journal keeps the history (node
  // memory then does not grow with it), else after the retention.
  ledger_.purge(now - (cfg_.journal ? 0 : cfg_.retention));
  if (cfg_.journal && now >= next_purge_) {  // the history past the retention, once a minute
    (void)cfg_.journal->purge_finished(name(), now - cfg_.retention);
    next_purge_ = now + 60;
  }
  if (laxity_.pull_due()) pull_forward_moves(now);
}

std::optional<timestamp> cluster_service::next_expiry() const {
  std::optional<timestamp> next = ledger_.next_expiry();
  if (auto look = job_ends_.next(); look && (!next || *look < *next)) next = look;
  if (auto look = overruns_.next(); look && (!next || *look < *next)) next = look;
  if (laxity_.pull_due()) next = 0;  // laxity: reservations wait to be pulled forward, at once
  return next;
}

}  // namespace arbroker
