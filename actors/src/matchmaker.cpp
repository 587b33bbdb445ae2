#include "matchmaker.hpp"

#include "directory_subscription.hpp"

#include <algorithm>
#include <exception>
#include <numeric>

#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker {
namespace {

using self_ptr = caf::stateful_actor<matchmaker_state>*;
using request_id = std::uint64_t;

match_in_flight* find(self_ptr self, request_id id) {
  auto it = self->state.requests.find(id);
  return it == self->state.requests.end() ? nullptr : &it->second;
}

void finish(self_ptr self, request_id id, msg::elastic_reply reply) {
  auto* m = find(self, id);
  if (!m) return;  // answered already (e.g. timed out)
  reply.stats = m->stats;
  if (reply.earliest_alternative < 0) reply.earliest_alternative = m->earliest_alternative;
  m->rp.deliver(std::move(reply));
  self->state.deadlines.remove(m->deadline, id);
  self->state.requests.erase(id);
}

void set_deadline_timer(self_ptr self, std::optional<timestamp> t) {
  if (t) self->delayed_send(self, delay_until(*t, self->state.cfg.clock()), timeout_atom::value);
}

void fail_with(self_ptr self, request_id id, errc code, std::string message);

// Answers every request past its deadline with errc::timeout.
void on_deadline(self_ptr self) {
  auto& st = self->state;
  set_deadline_timer(self, st.deadlines.fire(st.cfg.clock(), [&](request_id id) {
    fail_with(self, id, errc::timeout,
              "no answer within " + std::to_string(st.cfg.request_timeout) + " s");
  }));
}

void fail_with(self_ptr self, request_id id, errc code, std::string message) {
  msg::elastic_reply r;
  r.error = msg::wire(code, std::move(message));
  finish(self, id, std::move(r));
}

// Runs one step of a request; an exception (which would kill the matchmaker and, linked,
// the broker) becomes the request's error reply.
template <class F>
void guarded(self_ptr self, request_id id, F&& step) {
  try {
    step();
  } catch (const std::exception& e) {
    fail_with(self, id, errc::lrms_failure, std::string("internal error: ") + e.what());
  }
}

msg::reservation_info terms(const match_in_flight& m, const msg::advice_reply& a) {
  msg::reservation_info info;
  info.cluster = a.cluster;
  info.owner = m.req.user;
  info.start = a.start;
  info.end = a.end;
  info.np = a.np;
  return info;
}

void on_prepared(self_ptr self, request_id id, const msg::advice_reply& a, timestamp expiry,
                 bool hold, const msg::prepare_reply& r);

// Reserves at the next cluster of the policy's order until one accepts or all refused.
void try_next(self_ptr self, request_id id) {
  auto* m = find(self, id);
  if (!m) return;
  const auto& cfg = self->state.cfg;
  if (m->next >= m->order.size() || m->tries >= cfg.max_tries)
    return fail_with(self, id, errc::busy,
                     "policy " + std::string(to_string(m->policy)) + ": all " +
                         std::to_string(m->tries) + " clusters tried refused the reservation");
  const std::size_t c = m->order[m->next++];
  const msg::advice_reply a = m->advice[c];
  const std::string txn =
      self->state.txn_base + ".m" + std::to_string(id) + "." + std::to_string(++m->tries);
  const bool hold = m->req.mode == msg::mode_hold;
  const timestamp expiry =
      cfg.clock() + (hold ? (m->req.hold_seconds > 0 ? m->req.hold_seconds : cfg.hold_seconds)
                          : cfg.prepare_expiry);
  msg::prepare_request p{
      txn, m->req.user, a.start, a.end, a.np, expiry, m->req.local_jobs_preferred, !hold};
  self->request(m->handles[c], caf::infinite, std::move(p))
      .then(
          [self, id, a, expiry, hold, crs = m->handles[c],
           user = m->req.user](const msg::prepare_reply& r) {
            if (!find(self, id)) {
              // Answered "timeout" meanwhile: what this grants is nobody's; undo it.
              if (r.error.ok())
                self->request(crs, caf::infinite, msg::cancel_request{user, r.reservation_id})
                    .then([](const msg::ack_reply&) {}, [](caf::error&) {});
              return;
            }
            guarded(self, id, [&] { on_prepared(self, id, a, expiry, hold, r); });
          },
          [self, id](caf::error&) { guarded(self, id, [&] { try_next(self, id); }); });
}

void on_prepared(self_ptr self, request_id id, const msg::advice_reply& a, timestamp expiry,
                 bool hold, const msg::prepare_reply& r) {
  auto* job = find(self, id);
  if (!job) return;
  if (r.error.ok()) {
    self->state.next_fit = a.cluster;
    msg::elastic_reply reply;
    reply.reservation = terms(*job, a);
    reply.reservation.id = r.reservation_id;
    reply.reservation.cost = r.cost;
    reply.reservation.state = static_cast<std::uint8_t>(hold ? reservation_state::accepted
                                                             : reservation_state::committed);
    reply.reservation.expiry = hold ? expiry : 0;
    return finish(self, id, std::move(reply));
  }
  if (r.refused_by == msg::refused_by_service) ++job->stats.rejected_by_service;
  if (r.refused_by == msg::refused_by_lrms) ++job->stats.rejected_by_lrms;
  if (r.busy_until >= 0 &&
      (job->earliest_alternative < 0 || r.busy_until < job->earliest_alternative))
    job->earliest_alternative = r.busy_until;
  try_next(self, id);
}

// Every advisor answered: order the window by the policy.
void decide(self_ptr self, request_id id) {
  auto* m = find(self, id);
  if (!m) return;
  std::vector<match_report> reports;
  for (std::size_t i = 0; i < m->infos.size(); ++i) {
    const auto& info = m->infos[i];
    const auto& a = m->advice[i];
    match_report r;
    r.name = info.name;
    r.meets_qos = a.error.ok() && a.meets_qos;
    if (r.meets_qos) ++m->stats.candidates;
    r.completion = a.end;
    r.zeta = a.zeta;
    r.utilization = a.utilization;
    r.relative_speed = info.pp / m->req.pp_ref;
    // SED knows only the sum of the jobs' cores ({} when idle) and takes the longest walltime
    // seen for the LRMS's limit.
    r.machine = {info.name,
                 {info.pp},
                 info.cpus,
                 std::max<duration>(a.longest_walltime, 1),
                 a.busy_cores > 0 ? std::vector<int>{a.busy_cores} : std::vector<int>{},
                 0};
    r.ttd = {0, std::max<duration>(a.start - a.now, 0), std::max<duration>(a.end - a.start, 1), {}};
    reports.push_back(std::move(r));
  }
  m->stats.above_threshold = m->stats.candidates;
  const sed_application app{m->req.pp_ref, m->req.dur_ref, {}};
  auto order = match_order(reports, m->policy, app, self->state.next_fit, self->state.rng);
  if (!order) return fail_with(self, id, order.err().code, order.err().message + m->reasons);
  m->order = std::move(*order);
  if (m->req.mode == msg::mode_whatif) {
    msg::elastic_reply r;
    for (auto i : m->order) {
      const auto& a = m->advice[i];
      r.ranked.push_back({a.cluster, a.start, a.end, a.np, 0, 0, 0});
    }
    return finish(self, id, std::move(r));
  }
  try_next(self, id);
}

void on_advice(self_ptr self, request_id id, std::size_t i, msg::advice_reply r) {
  auto* m = find(self, id);
  if (!m) return;
  if (!r.error.ok()) m->reasons += "; " + m->infos[i].name + ": " + r.error.message;
  m->advice[i] = std::move(r);
  if (--m->pending == 0) decide(self, id);
}

// The selection window: every cluster the GIS found that can host the request at all, in
// name order (the sequence FF and NF agree on); their advisors are asked in parallel.
void ask_advisors(self_ptr self, request_id id,
                  const std::vector<const directory_entry*>& clusters) {
  auto* m = find(self, id);
  if (!m) return;
  m->stats.clusters = static_cast<std::int32_t>(clusters.size());
  std::vector<msg::advice_request> asks;
  for (const auto* c : clusters) {  // the directory is in name order
    const auto& info = c->info;
    site_description site{info.name, info.cpus, info.pp, {info.bunch, info.counts}};
    auto adapted = adapt_to_site(m->core, site);
    if (!adapted) {
      m->reasons += "; " + info.name + ": " + adapted.err().message;
      continue;
    }
    m->infos.push_back(info);
    m->handles.push_back(c->crs);
    asks.push_back({m->req.user, m->req.est, m->req.let, adapted->np_min, adapted->np_max,
                    adapted->np_ref, adapted->dur_ref, m->req.speedup,
                    m->req.local_jobs_preferred});
  }
  if (asks.empty())
    return fail_with(self, id, errc::infeasible,
                     clusters.empty() ? "no cluster satisfies the core requirements"
                                      : "no cluster can host the request" + m->reasons);
  m->advice.resize(asks.size());
  m->pending = static_cast<int>(asks.size());
  for (std::size_t i = 0; i < asks.size(); ++i) {
    self->request(m->handles[i], caf::infinite, std::move(asks[i]))
        .then(
            [self, id, i](msg::advice_reply& r) {
              guarded(self, id, [&] { on_advice(self, id, i, std::move(r)); });
            },
            [self, id, i](caf::error& e) {
              msg::advice_reply r;
              r.error = msg::wire(errc::unreachable, self->system().render(e));
              guarded(self, id, [&] { on_advice(self, id, i, std::move(r)); });
            });
  }
}

// Checks the request, then picks the selection window from the directory.
void start(self_ptr self, request_id id) {
  auto& m = self->state.requests.at(id);
  auto policy = parse_match_policy(m.req.policy);
  if (!policy) return fail_with(self, id, policy.err().code, policy.err().message);
  m.policy = *policy;
  auto sp = msg::to_model(m.req.speedup);
  if (!sp) return fail_with(self, id, sp.err().code, sp.err().message);
  m.core = {m.req.user,    m.req.est,    m.req.let,    m.req.np_min,  m.req.np_max,
            m.req.dur_ref, m.req.pp_ref, m.req.np_ref, std::move(*sp)};
  if (m.req.user.empty())
    return fail_with(self, id, errc::permission_denied, "request without a user");
  if (auto ok = validate(m.core); !ok) return fail_with(self, id, ok.err().code, ok.err().message);
  if (m.req.mode > msg::mode_whatif)
    return fail_with(self, id, errc::invalid_parameter,
                     "unknown mode " + std::to_string(m.req.mode));
  const auto& cfg = self->state.cfg;
  m.deadline = cfg.clock() + cfg.request_timeout;
  set_deadline_timer(self, self->state.deadlines.add(m.deadline, id));
  const auto& dir = self->state.directory;
  if (!dir.error.empty()) return fail_with(self, id, errc::unreachable, dir.error);
  ask_advisors(
      self, id,
      fit(*dir.clusters, {m.req.user, m.req.np_min, m.req.os, m.req.features, m.req.clusters}));
}

}  // namespace

caf::behavior matchmaker_actor(self_ptr self, broker_config cfg, std::string txn_base) {
  ignore_stray_messages(self);
  self->state.txn_base = std::move(txn_base);
  self->state.rng.seed(cfg.matchmaker_seed);
  self->state.cfg = std::move(cfg);
  subscribe_directory(self, self->state.cfg.gis, self->state.directory);
  return {
      directory_updates(self->state.directory),
      [self](msg::elastic_request& req) {
        const request_id id = self->state.next_id++;
        auto& m = self->state.requests[id];
        m.req = std::move(req);
        m.rp = self->make_response_promise();
        auto rp = m.rp;
        guarded(self, id, [&] { start(self, id); });
        return rp;
      },
      [self](timeout_atom) { on_deadline(self); },
  };
}

}  // namespace arbroker
