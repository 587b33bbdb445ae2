#pragma once

// What the broker's coordinators share (internal): the elastic workers, the matchmaker and
// the co-reservation workers are long-lived actors, each running many client requests at
// once, and differ only in how they find and rank their candidates. This base state does
// everything else, once:
//   - the jobs: one per client request, under the broker's request number, answered to the
//     broker exactly once (the broker answers the client);
//   - the calls to cluster services, tagged, and their services' deaths, which answer the
//     open calls at once (service_calls.hpp);
//   - running a job's reservation_attempt: sending the calls it asks for and handing it
//     their answers; the derived state only says what to try next and what to answer;
//   - the broker's deadline (timeout_atom): the attempt gives up, the client hears
//     "timeout", and the job lives on, out of the table, until the grants still on their
//     way have arrived and been released;
//   - the GIS's directory, subscribed at start;
//   - ending with the broker, which it monitors (a link would let CAF's untrappable `kill`
//     of one coordinator take the broker down).
//
// The derived state (CRTP) provides:
//   std::shared_ptr<Job> make_job(msg::request_no, const Request&)
//   void start(const std::shared_ptr<Job>&, std::vector<const directory_entry*> fit)
//       -- the clusters fit for the request (job->req, job->clusters are set): probe, rank,
//       then try_placement()
//   void settle(const std::shared_ptr<Job>&)  -- after an answer moved the attempt on
//   Reply failure(const Job&, errc, std::string)  -- a failed answer with what it learnt
//   const cluster_service_actor& service_of(const Job&, std::size_t site)

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbroker/actors/broker_config.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/protocols.hpp"
#include "arbroker/actors/reservation_attempt.hpp"
#include "directory_subscription.hpp"
#include "service_calls.hpp"

namespace arbroker {

/// The notes in the order of their clusters' names (a what-if's reply).
inline std::vector<msg::cluster_note> by_cluster(std::vector<msg::cluster_note> notes) {
  std::stable_sort(notes.begin(), notes.end(),
                   [](const auto& a, const auto& b) { return a.cluster < b.cluster; });
  return notes;
}

/// What a coordinator keeps of one client request, whatever its kind.
template <class Request>
struct coordinator_job {
  coordinator_job(msg::request_no n, attempt_terms terms) : no(n), attempt(std::move(terms)) {}

  msg::request_no no;
  Request req;
  /// The directory the request was started with: what the job keeps of it points into it.
  std::shared_ptr<const cluster_directory> clusters;
  reservation_attempt attempt;
  bool answered = false;                   ///< the client has its answer
  std::int64_t earliest_alternative = -1;  ///< the earliest start a refusal named (-1: none)
  std::string reasons;  ///< why clusters were left out or refused, for the failure message
  /// The same per cluster, for a what-if's reply (pass_over keeps both).
  std::vector<msg::cluster_note> passed_over;
  void pass_over(const std::string& cluster, msg::wire_error why) {
    reasons += "; " + cluster + ": " + why.message;
    passed_over.push_back({cluster, std::move(why)});
  }
  /// Clusters that refused to serve the request at all (permission_denied: a site that
  /// enforces LJP asked to waive it by a non-admin) and all that answered a probe.
  int denied = 0, answered_probes = 0;
  /// Probes whose cluster did not answer (unreachable, timeout).
  int unreached = 0;
  /// Tries refused with permission_denied (a site that enforces LJP, asked to waive it by a
  /// non-admin).
  int denied_tries = 0;

  void note_probe_error(const msg::wire_error& e) {
    if (outcome_unknown(e)) ++unreached;
  }
  /// The code of a request that ends without a reservation: `code` (busy, infeasible), unless
  /// a cluster it needed could not be reached (a probe unanswered, or a prepare in doubt,
  /// released since): then `unreachable`, for it may not have been capacity that it lacked;
  /// or every try was refused as not permitted: then `permission_denied`.
  errc failure_code(errc code) const {
    if (attempt.decision_in_doubt()) return errc::storage_failure;
    if (unreached > 0 || attempt.in_doubt() > 0) return errc::unreachable;
    // Every try refused for want of permission: more capacity would not have helped.
    if (denied_tries > 0 && denied_tries == attempt.tries()) return errc::permission_denied;
    return code;
  }

  /// Keeps the earliest of the starts refusals named.
  void note_alternative(std::int64_t t) {
    if (t >= 0 && (earliest_alternative < 0 || t < earliest_alternative)) earliest_alternative = t;
  }
};

template <class Derived, class Request, class Reply, class Job>
class coordinator_state {
 public:
  using actor_type = coordinator_actor<Request, Reply>;
  using self_pointer = typename actor_type::template stateful_pointer<Derived>;
  using job_ptr = std::shared_ptr<Job>;

  explicit coordinator_state(self_pointer self) : self_(self) {}

 protected:
  /// The whole behavior. `broker` is monitored: the coordinator ends with it.
  typename actor_type::behavior_type coordinator_behavior(broker_config cfg,
                                                          const broker_actor& broker) {
    cfg_ = std::move(cfg);
    ignore_stray_messages(self_);
    if (broker) {
      broker_ = broker.address();
      self_->monitor(broker);
    }
    self_->set_down_handler([this](const caf::down_msg& dm) { on_down(dm); });
    subscribe_directory(self_, cfg_.gis, directory_);
    return {
        [this](msg::request_no no, Request& req) { return take(no, std::move(req)); },
        [this](timeout_atom, msg::request_no no) { time_out(no); },
        [this](flush_atom) { derived().flush(); },
        [this](msg::call_tag t, msg::probe_batch_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::busy_hint_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::advice_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::prepare_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::ack_reply& r) { calls_.complete(t, r); },
        [this](durable_atom, write_ticket key, const std::string& failure) {
          decision_durable(key, failure);
        },
        directory_updates(directory_),
    };
  }

  /// Sends what the coordinator collected across requests (a derived state that collects
  /// asks for a flush_atom to itself; this one collects nothing).
  void flush() {}

  const broker_config& cfg() const { return cfg_; }
  const directory_view& directory() const { return directory_; }
  timestamp now() const { return cfg_.clock(); }
  self_pointer self() const { return self_; }

  /// The terms of a job's attempt: its transactions are "<incarnation>-<request no>.<try>".
  attempt_terms terms_for(msg::request_no no, std::string user, bool client_commits,
                          duration hold_seconds, bool local_jobs_preferred, bool admin,
                          std::string account, timestamp window_start, timestamp window_end) const {
    attempt_terms t;
    t.user = std::move(user);
    t.txn_base = cfg_.incarnation + "-" + std::to_string(no.value);
    t.client_commits = client_commits;
    t.hold_seconds = hold_seconds > 0 ? hold_seconds : cfg_.hold_seconds;
    t.prepare_expiry = cfg_.prepare_expiry;
    t.local_jobs_preferred = local_jobs_preferred;
    t.admin = admin;
    t.account = std::move(account);
    t.journal = cfg_.journal;
    t.window_start = window_start;
    t.window_end = window_end;
    return t;
  }

  /// Calls `service` with `req`, tagged; `on_answer` gets the reply, or nullptr when the
  /// service went away first.
  template <class ReplyType, class RequestType, class F>
  void call(const cluster_service_actor& service, RequestType req, F on_answer) {
    calls_.template call<ReplyType>(self_, service, std::move(req), std::move(on_answer));
  }

  /// Calls `service` (the service of `cluster`) with a batch of probes; `on_probe(k, reply)`
  /// gets the answer to probe k, for every k in order: the service's, or an error reply
  /// saying why there is none (the service went away, or failed the whole batch).
  template <class F>
  void call_probes(const cluster_service_actor& service, const std::string& cluster,
                   msg::probe_batch_request batch, F on_probe) {
    const std::size_t n = batch.probes.size();
    call<msg::probe_batch_reply>(
        service, std::move(batch),
        [n, cluster, on_probe = std::move(on_probe)](msg::probe_batch_reply* r) mutable {
          for (std::size_t k = 0; k < n; ++k) {
            if (r && r->error.ok() && k < r->replies.size()) {
              on_probe(k, r->replies[k]);
              continue;
            }
            msg::probe_reply none;
            none.cluster = cluster;
            none.error = !r               ? service_gone()
                         : !r->error.ok() ? r->error
                                          : msg::wire(errc::internal, "probe left unanswered");
            on_probe(k, none);
          }
        });
  }

  /// The error of a call whose service went away before it answered.
  static msg::wire_error service_gone() {
    return msg::wire(errc::unreachable, "the cluster's reservation service is gone");
  }

  /// Sends the calls the job's attempt asks for; their answers go back to the attempt, and
  /// then to the derived state's settle().
  void run(const job_ptr& j, reservation_attempt::calls calls) {
    for (auto& c : calls) {
      std::visit(
          [&](auto& req) {
            using R = std::decay_t<decltype(req)>;
            if constexpr (std::is_same_v<R, reservation_attempt::durable_wait>) {
              await_durable(j, c.id, req);
            } else if constexpr (std::is_same_v<R, msg::prepare_request>) {
              call<msg::prepare_reply>(
                  derived().service_of(*j, c.site), std::move(req),
                  [this, j, id = c.id](msg::prepare_reply* r) { answered_call(j, id, r); });
            } else {
              call<msg::ack_reply>(
                  derived().service_of(*j, c.site), std::move(req),
                  [this, j, id = c.id](msg::ack_reply* r) { answered_call(j, id, r); });
            }
          },
          c.request);
    }
  }

  /// Answers the job's client (through the broker), once; the job leaves the table (what is
  /// still on its way holds it until it arrives).
  void answer(const job_ptr& j, Reply reply) {
    if (j->answered) return;
    j->answered = true;
    auto it = jobs_.find(j->no);
    if (it == jobs_.end()) return;
    auto rp = std::move(it->second.second);
    jobs_.erase(it);
    rp.deliver(j->no, std::move(reply));
  }

  /// Answers with an error and what the job learnt (derived().failure).
  void fail(const job_ptr& j, errc code, std::string message) {
    answer(j, derived().failure(*j, code, std::move(message)));
  }

  /// Runs one step of a job; an exception (which would kill the coordinator and every job on
  /// it) becomes that job's error reply.
  template <class F>
  void guarded(const job_ptr& j, F&& step) {
    try {
      step();
    } catch (const std::exception& e) {
      if (j->answered) return;
      try {
        run(j, j->attempt.give_up());  // what it holds goes, or expires by itself
      } catch (const std::exception&) {
      }
      fail(j, errc::internal, std::string("internal error: ") + e.what());
    }
  }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  caf::typed_response_promise<msg::request_no, Reply> take(msg::request_no no, Request req) {
    auto j = derived().make_job(no, req);
    auto rp = self_->template make_response_promise<msg::request_no, Reply>();
    jobs_.emplace(no, std::make_pair(j, rp));
    j->req = std::move(req);
    guarded(j, [&] {
      if (!directory_.error.empty()) return fail(j, errc::unreachable, directory_.error);
      j->clusters = directory_.clusters;
      auto clusters = fit(*j->clusters, j->req.where);
      if (auto ok = leave_out_short_holds(clusters, hold_length(j->req)); !ok)
        return fail(j, ok.err().code, ok.err().message);
      derived().start(j, std::move(clusters));
    });
    return rp;
  }

  /// How long a prepare for `r` holds its CPUs: the client's hold in mode hold, else until
  /// the broker commits (its prepare expiry), as reservation_attempt sets the expiry.
  duration hold_length(const msg::checked_elastic_request& r) const {
    if (r.mode != msg::request_mode::hold) return cfg_.prepare_expiry;
    return r.hold_seconds > 0 ? r.hold_seconds : cfg_.hold_seconds;
  }
  duration hold_length(const msg::checked_coreservation_request&) const {
    return cfg_.prepare_expiry;
  }

  /// A cluster refuses a prepare that holds longer than its published max_hold: such a
  /// cluster is no candidate, and when that leaves none, the request gets a clear error
  /// (issue 16: it used to be "busy" after every try was refused).
  static status leave_out_short_holds(std::vector<const directory_entry*>& clusters,
                                      duration hold) {
    std::string limits;
    const auto before = clusters.size();
    std::erase_if(clusters, [&](const directory_entry* e) {
      if (e->info.max_hold <= 0 || hold <= e->info.max_hold) return false;
      limits += (limits.empty() ? "" : ", ") + e->info.name + " " +
                std::to_string(e->info.max_hold) + " s";
      return true;
    });
    if (before == 0 || !clusters.empty()) return {};
    return arbroker::fail(errc::invalid_parameter,
                          "a hold of " + std::to_string(hold) +
                              " s is longer than any cluster for this request "
                              "grants (max_hold: " +
                              limits + ")");
  }

  template <class ReplyType>
  void answered_call(const job_ptr& j, std::uint64_t id, ReplyType* r) {
    advance(j, [&] { return j->attempt.answer(id, r); });
  }

  // Runs the calls an answer asks for; the derived state hears of the answer only when it
  // moved the attempt to another phase. An answer nothing waited for (a part in doubt
  // released, answered after the job went on: probing again, or trying the next
  // candidate) must not start a second try beside the one under way.
  template <class Step>
  void advance(const job_ptr& j, Step step) {
    guarded(j, [&] {
      const auto before = j->attempt.current();
      run(j, step());
      if (!j->answered && j->attempt.current() != before) derived().settle(j);
    });
  }

  // The attempt's commit decision is on its way to the disk: the journal calls back on its
  // own thread, and the word comes here as a message (keyed by a number of this
  // coordinator's, not the ticket: the wait may be on any journal).
  void await_durable(const job_ptr& j, std::uint64_t id,
                     const reservation_attempt::durable_wait& w) {
    const std::uint64_t key = next_decision_++;
    decisions_.emplace(key, std::make_pair(j, id));
    w.journal->when_durable(w.ticket, [me = caf::actor_cast<actor_type>(self_), key](status ok) {
      caf::anon_send(me, durable_atom::value, key, ok ? std::string() : ok.err().message);
    });
  }

  void decision_durable(std::uint64_t key, const std::string& failure) {
    auto it = decisions_.find(key);
    if (it == decisions_.end()) return;
    auto [j, id] = std::move(it->second);
    decisions_.erase(it);
    const status ok = failure.empty() ? status{} : status{error{errc::storage_failure, failure}};
    advance(j, [&] { return j->attempt.decided(id, ok); });
  }

  // The broker's deadline for request `no` passed: its attempt gives up (releasing what it
  // holds, now or as grants arrive) and the client hears "timeout".
  void time_out(msg::request_no no) {
    auto it = jobs_.find(no);
    if (it == jobs_.end()) return;  // answered already
    auto j = it->second.first;
    run(j, j->attempt.give_up());
    fail(j, errc::timeout, "no answer within " + std::to_string(cfg_.request_timeout) + " s");
  }

  // A service that goes away answers its open calls at once (with nullptr) instead of
  // leaving them to the request's deadline.
  void on_down(const caf::down_msg& dm) {
    if (dm.source == broker_) return self_->quit(dm.reason);
    calls_.lost(dm.source);
  }

  self_pointer self_;
  broker_config cfg_;
  caf::actor_addr broker_;
  directory_view directory_;
  /// Jobs not yet answered, and their client's promise (the broker's request).
  std::unordered_map<msg::request_no,
                     std::pair<job_ptr, caf::typed_response_promise<msg::request_no, Reply>>>
      jobs_;
  service_calls<msg::probe_batch_reply, msg::busy_hint_reply, msg::advice_reply, msg::prepare_reply,
                msg::ack_reply>
      calls_;
  /// Commit decisions waiting to be durable: the job and its attempt's call id, by key.
  std::unordered_map<std::uint64_t, std::pair<job_ptr, std::uint64_t>> decisions_;
  std::uint64_t next_decision_ = 1;
};

/// Spawns a coordinator of `broker` (it ends with the broker) whose state is `State`.
template <class State, class Actor>
Actor spawn_coordinator(caf::local_actor* parent, broker_config cfg, const broker_actor& broker) {
  using self_pointer = typename Actor::template stateful_pointer<State>;
  return parent->spawn(
      [](self_pointer self, broker_config c, broker_actor b) ->
      typename Actor::behavior_type { return self->state.make_behavior(std::move(c), b); },
      std::move(cfg), broker);
}

}  // namespace arbroker
