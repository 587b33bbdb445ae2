#include "coreservation_agent.hpp"

#include "worker_steps.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker {
namespace {

using self_ptr = caf::stateful_actor<coreservation_agent_state>*;
using option = coreservation_agent_state::option;
using placement = coreservation_agent_state::placement;

constexpr std::size_t max_components = 16;

void finish(self_ptr self, msg::coreservation_reply reply) {
  reply.attempts = self->state.attempts;
  answer_once(self, std::move(reply));
}

void fail_with(self_ptr self, errc code, std::string message) {
  msg::coreservation_reply r;
  r.error = msg::wire(code, std::move(message));
  finish(self, std::move(r));
}

// Releases everything the current attempt holds, without waiting (used when giving up on
// a timeout; participants that do not answer drop their holds at expiry anyway): holds are
// aborted, parts already committed are cancelled (compensation).
void release_current(self_ptr self) {
  auto& st = self->state;
  for (std::size_t i = 0; i < st.current.size(); ++i) {
    auto& h = st.crs.at(st.current[i].cluster);
    // Fire and forget (anonymous: the acks would only come back as stray messages).
    if (i < st.committed.size() && st.committed[i])
      caf::anon_send(h, msg::cancel_request{st.req.user, st.prepared[i].reservation_id});
    else
      caf::anon_send(h, msg::abort_request{st.txn});
  }
}

// Chooses, for common start t, one option per component on pairwise distinct clusters,
// preferring the most CPUs (the shortest run) per component. Backtracking over k components.
bool assign(const std::vector<std::vector<option>>& opts, timestamp t, std::size_t i,
            std::set<std::string>& used, std::vector<placement>& out) {
  if (i == opts.size()) return true;
  for (const auto& o : opts[i]) {
    if (t < o.first || t > o.last || used.count(o.cluster)) continue;
    used.insert(o.cluster);
    out.push_back({o.cluster, o.np, t + o.offset, t + o.offset + o.length});
    if (assign(opts, t, i + 1, used, out)) return true;
    out.pop_back();
    used.erase(o.cluster);
  }
  return false;
}

void next_attempt(self_ptr self);

// Undoes the current attempt like release_current, but goes on with the next attempt only
// once every participant has confirmed (or is gone): a client that hears "failed" finds
// nothing of its attempts left in any LRMS.
void release_then_next(self_ptr self) {
  auto& st = self->state;
  auto remaining = std::make_shared<std::size_t>(st.current.size());
  auto done = [self, remaining] {
    if (--*remaining > 0) return;
    auto& s = self->state;
    // Compensation is complete: recovery has nothing left to settle for this attempt.
    if (s.cfg.journal && !s.committed.empty()) (void)s.cfg.journal->forget_commit(s.txn);
    next_attempt(self);
  };
  for (std::size_t i = 0; i < st.current.size(); ++i) {
    auto& h = st.crs.at(st.current[i].cluster);
    auto on_ack = [done](const msg::ack_reply&) { done(); };
    auto on_error = [done](caf::error&) { done(); };
    if (i < st.committed.size() && st.committed[i])
      self->request(h, caf::infinite,
                    msg::cancel_request{st.req.user, st.prepared[i].reservation_id})
          .then(on_ack, on_error);
    else
      self->request(h, caf::infinite, msg::abort_request{st.txn}).then(on_ack, on_error);
  }
}

void on_committed(self_ptr self, std::size_t who) {
  auto& st = self->state;
  st.waiting[who] = false;
  if (--st.pending > 0) return;
  if (!st.all_committed) {
    // A participant let its hold expire before our commit arrived: undo the others.
    st.reasons = "; a hold expired during commit";
    return release_then_next(self);
  }
  if (st.cfg.journal) (void)st.cfg.journal->forget_commit(st.txn);
  msg::coreservation_reply r;
  r.txn = st.txn;
  for (std::size_t i = 0; i < st.current.size(); ++i) {
    const auto& p = st.current[i];
    r.parts.push_back({st.prepared[i].reservation_id, p.cluster, st.req.user, p.start, p.end, p.np,
                       static_cast<std::uint8_t>(reservation_state::committed), 0, 0,
                       st.prepared[i].cost});
  }
  finish(self, std::move(r));
}

void on_prepared(self_ptr self, std::size_t who) {
  auto& st = self->state;
  st.waiting[who] = false;
  if (--st.pending > 0) return;
  if (!st.all_prepared) {
    return release_then_next(self);  // presumed abort for every participant
  }
  // Decision: commit. Sent only when every participant holds its part, and only once the
  // decision is durable, so that a restarted node completes what it began (presumed abort:
  // without this record, recovery aborts every hold of the attempt).
  if (st.cfg.journal) {
    if (auto ok = st.cfg.journal->log_commit(st.txn); !ok) {
      st.reasons += "; " + ok.err().message;
      return release_then_next(self);
    }
  }
  st.committed.assign(st.current.size(), false);
  st.waiting.assign(st.current.size(), true);
  st.pending = static_cast<int>(st.current.size());
  for (std::size_t i = 0; i < st.current.size(); ++i) {
    self->request(st.crs.at(st.current[i].cluster), caf::infinite,
                  msg::commit_request{st.txn, {}, {}})
        .then(
            [self, i](const msg::ack_reply& a) {
              auto& s = self->state;
              if (!s.waiting[i]) return;
              if (a.error.ok())
                s.committed[i] = true;
              else
                s.all_committed = false;
              on_committed(self, i);
            },
            [self, i](caf::error&) {
              if (!self->state.waiting[i]) return;
              self->state.all_committed = false;
              on_committed(self, i);
            });
  }
}

// Phase one for the next common start time.
void next_attempt(self_ptr self) {
  auto& st = self->state;
  if (st.done) return;
  while (st.next_start < st.starts.size() && st.attempts < st.req.max_attempts) {
    const timestamp t = st.starts[st.next_start++];
    if (t < st.skip_until) continue;
    std::vector<placement> chosen;
    std::set<std::string> used;
    if (!assign(st.options, t, 0, used, chosen)) continue;
    ++st.attempts;
    st.txn = st.txn_base + ".a" + std::to_string(st.attempts);
    st.current = std::move(chosen);
    st.prepared.assign(st.current.size(), {});
    st.committed.clear();
    st.all_prepared = true;
    st.all_committed = true;
    st.waiting.assign(st.current.size(), true);
    st.pending = static_cast<int>(st.current.size());
    const timestamp expiry = st.cfg.clock() + st.cfg.prepare_expiry;
    for (std::size_t i = 0; i < st.current.size(); ++i) {
      const auto& p = st.current[i];
      msg::prepare_request req{
          st.txn, st.req.user, p.start, p.end, p.np, expiry, st.req.local_jobs_preferred, false};
      self->request(st.crs.at(p.cluster), caf::infinite, std::move(req))
          .then(
              [self, i](const msg::prepare_reply& r) {
                auto& s = self->state;
                if (!s.waiting[i]) return;  // its death was already counted
                s.prepared[i] = r;
                if (!r.error.ok()) {
                  s.all_prepared = false;
                  if (r.busy_until >= 0) {
                    if (s.earliest_alternative < 0 || r.busy_until < s.earliest_alternative)
                      s.earliest_alternative = r.busy_until;
                    // Part i starts at T + offset_i and cannot start before busy_until.
                    s.skip_until =
                        std::max(s.skip_until, r.busy_until - s.req.components[i].offset);
                  }
                }
                on_prepared(self, i);
              },
              [self, i](caf::error&) {
                if (!self->state.waiting[i]) return;
                self->state.all_prepared = false;
                on_prepared(self, i);
              });
    }
    return;
  }
  const bool none = st.attempts == 0;
  fail_with(self, none ? errc::infeasible : errc::busy,
            none ? "no common start time for all components" + st.reasons
                 : "all " + std::to_string(st.attempts) + " common start times were refused" +
                       st.reasons);
}

void plan(self_ptr self) {
  auto& st = self->state;
  std::set<timestamp> starts;
  for (std::size_t i = 0; i < st.options.size(); ++i) {
    auto& opts = st.options[i];
    if (opts.empty())
      return fail_with(self, errc::infeasible,
                       "component " + std::to_string(i) + " fits on no cluster" + st.reasons);
    std::sort(opts.begin(), opts.end(), [](const option& a, const option& b) {
      return std::tie(b.np, a.first, a.cluster) < std::tie(a.np, b.first, b.cluster);
    });
    // The earliest common start of a set of intervals is the first point of one of them;
    // later points (steps of tss_gap) give later attempts something to try after a refusal.
    const duration step = std::max<duration>(st.req.tss_gap, 1);
    for (const auto& o : opts)
      for (int j = 0; j <= st.req.max_attempts && o.first + j * step <= o.last; ++j)
        starts.insert(o.first + j * step);
  }
  st.starts.assign(starts.begin(), starts.end());
  next_attempt(self);
}

void on_probe(self_ptr self, std::size_t component, const msg::probe_reply& r) {
  auto& st = self->state;
  if (r.error.ok()) {
    const duration offset = st.req.components[component].offset;
    for (const auto& w : r.windows)
      st.options[component].push_back(
          {r.cluster, w.np, w.length, offset, w.first - offset, w.last - offset});
  } else {
    st.reasons += "; " + r.cluster + ": " + r.error.message;
  }
  if (--st.pending == 0) plan(self);
}

void probe_all(self_ptr self, const std::vector<const directory_entry*>& clusters) {
  auto& st = self->state;
  st.options.assign(st.components.size(), {});
  for (const auto* c : clusters) {
    st.crs.emplace(c->info.name, c->crs);
    self->monitor(c->crs);  // a participant that dies mid-phase never answers
  }
  // One message per cluster with the probes of every component that may go there.
  for (const auto* c : clusters) {
    const auto& info = c->info;
    msg::probe_batch_request batch;
    std::vector<std::size_t> parts;  // the component of each probe in the batch
    for (std::size_t i = 0; i < st.components.size(); ++i) {
      const auto& comp = st.req.components[i];
      if (!comp.clusters.empty() &&
          std::find(comp.clusters.begin(), comp.clusters.end(), info.name) == comp.clusters.end())
        continue;
      site_description site{info.name, info.cpus, info.pp, {info.bunch, info.counts}};
      auto adapted = adapt_to_site(st.components[i], site);
      if (!adapted) continue;
      msg::probe_request p;
      p.user = st.req.user;
      p.est = st.components[i].est;
      p.let = st.components[i].let;
      p.np_min = adapted->np_min;
      p.np_max = adapted->np_max;
      p.np_ref = adapted->np_ref;
      p.dur_ref = adapted->dur_ref;
      p.speedup = comp.speedup;
      p.tsn_max = 1;  // only the windows matter here
      p.tss_gap = st.req.tss_gap;
      p.properties = 0;
      p.want_windows = true;
      p.local_jobs_preferred = st.req.local_jobs_preferred;
      batch.probes.push_back(std::move(p));
      parts.push_back(i);
    }
    if (parts.empty()) continue;
    st.pending += static_cast<int>(parts.size());
    self->request(c->crs, caf::infinite, std::move(batch))
        .then(
            [self, parts, name = info.name](const msg::probe_batch_reply& r) {
              for (std::size_t k = 0; k < parts.size(); ++k) {
                if (k < r.replies.size()) {
                  on_probe(self, parts[k], r.replies[k]);
                } else {
                  msg::probe_reply missing;
                  missing.cluster = name;
                  missing.error = r.error.ok()
                                      ? msg::wire(errc::lrms_failure, "probe left unanswered")
                                      : r.error;
                  on_probe(self, parts[k], missing);
                }
                if (self->state.done) return;
              }
            },
            [self, parts, name = info.name](caf::error& e) {
              msg::probe_reply r;
              r.cluster = name;
              r.error = msg::wire(errc::unreachable, self->system().render(e));
              for (auto i : parts) {
                on_probe(self, i, r);
                if (self->state.done) return;
              }
            });
  }
  if (st.pending == 0) fail_with(self, errc::infeasible, "no cluster can host any component");
}

void start(self_ptr self, msg::coreservation_request req) {
  auto& st = self->state;
  st.req = std::move(req);
  if (st.req.user.empty())
    return fail_with(self, errc::permission_denied, "request without a user");
  if (st.req.components.empty() || st.req.components.size() > max_components)
    return fail_with(self, errc::invalid_parameter,
                     "a co-reservation needs 1 to " + std::to_string(max_components) +
                         " components, not " + std::to_string(st.req.components.size()));
  if (st.req.max_attempts < 1 || st.req.tss_gap < 0)
    return fail_with(self, errc::invalid_parameter, "max_attempts must be >= 1 and tss_gap >= 0");
  std::int32_t np_min = INT32_MAX;
  for (std::size_t i = 0; i < st.req.components.size(); ++i) {
    const auto& c = st.req.components[i];
    auto sp = msg::to_model(c.speedup);
    const std::string which = "component " + std::to_string(i) + ": ";
    if (!sp) return fail_with(self, sp.err().code, which + sp.err().message);
    if (c.offset < 0 || c.offset >= st.req.let - st.req.est)
      return fail_with(
          self, errc::invalid_window,
          which + "offset " + std::to_string(c.offset) + " s must lie inside the window");
    elastic_request e{
        st.req.user, st.req.est + c.offset, st.req.let, c.np_min, c.np_max, c.dur_ref, c.pp_ref,
        c.np_ref,    std::move(*sp)};
    if (auto ok = validate(e); !ok) return fail_with(self, ok.err().code, which + ok.err().message);
    np_min = std::min(np_min, c.np_min);
    st.components.push_back(std::move(e));
  }
  msg::gis_query q;
  q.user = st.req.user;
  q.np_min = np_min;
  start_with_directory(self, q, probe_all, fail_with);
}

}  // namespace

// A participant died: whatever it owed us in this phase counts as a refusal.
void on_participant_down(self_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  for (std::size_t i = 0; i < st.current.size() && i < st.waiting.size(); ++i) {
    if (!st.waiting[i] || st.crs.at(st.current[i].cluster).address() != dm.source) continue;
    if (st.committed.empty()) {
      st.all_prepared = false;
      on_prepared(self, i);
    } else {
      st.all_committed = false;
      on_committed(self, i);
    }
    if (st.done) return;
  }
}

caf::behavior coreservation_agent(self_ptr self, broker_config cfg, std::string txn_base,
                                  directory_view directory) {
  self->state.cfg = std::move(cfg);
  self->state.txn_base = std::move(txn_base);
  self->state.directory = std::move(directory);
  self->set_down_handler([self](const caf::down_msg& dm) { on_participant_down(self, dm); });
  return {
      [self](msg::coreservation_request& req) { return take_request(self, req, start, fail_with); },
      [self](timeout_atom) {
        if (self->state.pending > 0 && !self->state.current.empty()) release_current(self);
        fail_with(self, errc::timeout,
                  "no answer within " + std::to_string(self->state.cfg.request_timeout) + " s");
      },
  };
}

}  // namespace arbroker
