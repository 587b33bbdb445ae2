#pragma once

// How a try of an elastic request ends, for both of its coordinators (the elastic workers
// and the matchmaker): a granted try is the client's reservation, a refused one counts.
// Internal.

#include "arbroker/actors/reservation_attempt.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "coordinator.hpp"

namespace arbroker {

/// The reservation the granted single-part try of `attempt` made for `req`.
inline msg::elastic_reply reservation_reply(const reservation_attempt& attempt,
                                            const msg::checked_elastic_request& req,
                                            const msg::request_stats& stats) {
  const auto& p = attempt.parts().front();
  const bool hold = req.mode == msg::request_mode::hold;
  msg::elastic_reply r;
  r.reservation = {p.prepared.reservation_id,
                   p.terms.cluster,
                   req.job.user,
                   p.terms.start,
                   p.terms.end,
                   p.terms.np,
                   hold ? reservation_state::accepted : reservation_state::committed,
                   hold ? attempt.expiry() : 0,
                   0,
                   p.prepared.cost};
  r.stats = stats;
  return r;
}

/// Counts the refusal of the last (single-part) try: who refused, and the earliest start
/// it named.
inline void count_refusal(coordinator_job& j, msg::request_stats& stats) {
  const auto& refused = j.attempt.parts().front().prepared;
  if (refused.refused_by == msg::refusal::service) ++stats.rejected_by_service;
  if (refused.refused_by == msg::refusal::lrms) ++stats.rejected_by_lrms;
  j.note_alternative(refused.busy_until);
}

/// A failed answer with what the request learnt on its way.
inline msg::elastic_reply elastic_failure(const coordinator_job& j, const msg::request_stats& stats,
                                          errc code, std::string message) {
  auto r = msg::error_reply<msg::elastic_reply>(code, std::move(message));
  r.stats = stats;
  r.earliest_alternative = j.earliest_alternative;
  return r;
}

}  // namespace arbroker
