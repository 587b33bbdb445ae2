#pragma once

// What the two coordinators of elastic requests share (internal): the elastic workers (by
// preferences) and the matchmaker (by a policy) differ in how they find and order their
// candidates; a one-part try of the coordinator core, what a granted or refused try means
// and how the client hears of it are the same, here.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/reservation_attempt.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/core/site_runtime.hpp"
#include "arbroker/core/time_format.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "coordinator.hpp"

namespace arbroker {

/// What both keep of an elastic request.
struct elastic_job_base : coordinator_job<msg::checked_elastic_request> {
  using coordinator_job::coordinator_job;
  msg::request_stats stats;
};

/// The request adapted to cluster `c` (paper 000 Sec. 3.2.1-3.2.2) after paper 003's hints, when
/// it brings any: run time from its benchmarks, start after its stage-in (site_runtime.hpp).
/// `delivery` gets what a slot there delivers, for the TTD.
inline result<site_request> adapt_to_cluster(const arbroker::elastic_request& req,
                                             const directory_entry& c, timestamp now,
                                             delivery_terms& delivery) {
  if (req.hints.empty()) {
    delivery = {};
    return adapt_to_site(req, c.site);
  }
  auto on_site = runtime_on_site(req, c.site, c.benchmarks, c.info.bandwidth, now);
  if (!on_site) return on_site.err();
  delivery = on_site->delivery;
  return adapt_to_site(on_site->req, c.site);
}

/// A cluster fit for a request: the request adapted to it, and what a slot there delivers.
struct adapted_host {
  const directory_entry* entry = nullptr;
  site_request adapted;
  delivery_terms delivery;
};

/// The derived state (CRTP) provides start(job, fit clusters) and try_next(job), the next
/// candidate or the refusal; it may hide on_granted(job) to learn where a request landed.
template <class Derived, class Job>
class elastic_coordinator
    : public coordinator_state<Derived, msg::checked_elastic_request, msg::elastic_reply, Job> {
  using base = coordinator_state<Derived, msg::checked_elastic_request, msg::elastic_reply, Job>;

 public:
  using base::base;
  using typename base::job_ptr;

  elastic_coordinator_actor::behavior_type make_behavior(broker_config cfg,
                                                         const broker_actor& broker) {
    return this->coordinator_behavior(std::move(cfg), broker);
  }

  // -- the coordinator base's hooks ----------------------------------------------------------

  job_ptr make_job(msg::request_no no, const msg::checked_elastic_request& req) const {
    return std::make_shared<Job>(
        no, this->terms_for(no, req.job.user, req.mode == msg::request_mode::hold, req.hold_seconds,
                            req.local_jobs_preferred, req.admin, req.account, req.job.est,
                            req.job.let));
  }

  /// After an answer that moved the attempt on: a granted try is the reservation; a refused one
  /// counts, and the next candidate goes.
  void settle(const job_ptr& j) {
    switch (j->attempt.current()) {
      case reservation_attempt::phase::granted:
        derived().on_granted(*j);
        return this->answer(j, granted_reply(*j));
      case reservation_attempt::phase::idle:
        count_refusal(*j);
        return derived().try_next(j);
      default:
        return;  // answers still on their way
    }
  }

  msg::elastic_reply failure(const Job& j, errc code, std::string message) const {
    auto r = msg::error_reply<msg::elastic_reply>(code, std::move(message));
    r.stats = j.stats;
    r.earliest_alternative = j.earliest_alternative;
    return r;
  }

  void on_granted(const Job&) {}

 protected:
  /// Steps 3-4 of paper 000 for both: the request adapted to each of `clusters`, in their
  /// order; a cluster it cannot be adapted to is named in the job's reasons. None fit: the
  /// request has failed (answered) and the result is empty.
  std::vector<adapted_host> adapt_to_clusters(const job_ptr& j,
                                              const std::vector<const directory_entry*>& clusters) {
    std::vector<adapted_host> hosts;
    // A window over before the request arrived: said as such (it read as "no candidate time
    // slot", and a what-if answered an empty list).
    if (const auto now = this->now(); j->req.job.let <= now) {
      this->fail(j, errc::invalid_window,
                 "the window ended before now (let " + format_time(j->req.job.let) + ", now " +
                     format_time(now) + ")");
      return hosts;
    }
    if (j->req.mode == msg::request_mode::whatif) pass_over_unfit(j, clusters);
    for (const auto* c : clusters) {
      adapted_host h{c, {}, {}};
      auto adapted = adapt_to_cluster(j->req.job, *c, this->now(), h.delivery);
      if (!adapted) {
        j->pass_over(c->info.name, msg::to_wire(adapted.err()));
        continue;
      }
      h.adapted = std::move(*adapted);
      hosts.push_back(std::move(h));
    }
    if (hosts.empty())
      this->fail(j, errc::infeasible,
                 clusters.empty() ? "no cluster satisfies the core requirements"
                                  : "no cluster can host the request" + j->reasons);
    return hosts;
  }

  /// A what-if names every cluster of the directory it left out before adapting, and why:
  /// what the request asks for that the cluster does not offer, or a hold it does not grant.
  void pass_over_unfit(const job_ptr& j, const std::vector<const directory_entry*>& fit) {
    const auto& asked = j->req.where.clusters;  // those it did not name are not news
    for (const auto& e : *j->clusters) {
      if (std::find(fit.begin(), fit.end(), &e) != fit.end()) continue;
      if (!asked.empty() && std::find(asked.begin(), asked.end(), e.info.name) == asked.end())
        continue;
      auto why = why_not(e.info, j->req.where);
      if (why.empty()) why = "it grants holds of at most " + std::to_string(e.info.max_hold) + " s";
      j->pass_over(e.info.name, msg::wire(errc::infeasible, std::move(why)));
    }
  }

  /// Tries one cluster's placement. A movable request (paper 002) lets the cluster move it
  /// within the window the request was adapted to there.
  void try_part(const job_ptr& j, placement_part part, const site_request& adapted) {
    if (j->req.movable) {
      part.earliest = std::min(adapted.est, part.start);
      part.deadline = std::max(adapted.let, part.end);
    }
    this->run(j, j->attempt.try_placement({std::move(part)}, this->now()));
  }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  // The reservation the granted (single-part) try made.
  static msg::elastic_reply granted_reply(const Job& j) {
    msg::elastic_reply r;
    r.reservation = j.attempt.reservation_of(0);
    r.stats = j.stats;
    return r;
  }

  // Who refused the last try, and the earliest start it named.
  static void count_refusal(Job& j) {
    const auto& refused = j.attempt.parts().front().prepared;
    if (refused.refused_by == msg::refusal::service) ++j.stats.rejected_by_service;
    if (refused.refused_by == msg::refusal::lrms) ++j.stats.rejected_by_lrms;
    if (refused.error.code == static_cast<std::uint8_t>(errc::permission_denied)) ++j.denied_tries;
    j.note_alternative(refused.busy_until);
  }
};

}  // namespace arbroker
