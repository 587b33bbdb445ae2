#pragma once

#include <optional>
#include <string>

#include "arbroker/actors/cluster_policy.hpp"
#include "arbroker/adapters/lrms.hpp"
#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/capacity_view.hpp"
#include "arbroker/core/esr_history.hpp"

namespace arbroker {

/// A cluster service's view of its LRMS (capacity_view.hpp: the availability profile of the
/// running jobs and reservations, T_wkl, the queued jobs and their plan) with the policy that
/// keeps it fresh, the esr history sampled from it, and the admission rule (Local Jobs
/// Preferred) every handler reads from it. It does not own the LRMS: refresh() is given it.
///
/// Refresh: the jobs are read again (lrms::jobs_snapshot) when older than `refresh` (on every
/// call with refresh 0), the whole (lrms::snapshot) when older than max(refresh, full_refresh)
/// (on every call with both 0), and at once after wrong() (the LRMS refused what the view
/// allowed) or jobs_changed() (a submit, a cancel; the jobs only). In between the service keeps
/// its own reservations in it (put, erase).
class lrms_view {
 public:
  struct settings {
    std::string cluster;  ///< for messages
    int cpus = 0;
    /// The site's (cluster_policy.hpp): refresh, full_refresh, history_delta, load, ljp and
    /// ljp_check are the view's.
    cluster_policy policy;
  };
  /// Where the CPUs of a request must be free and from when on, under the site's LJP rule.
  struct admission {
    const availability_profile* free = nullptr;
    timestamp not_before = 0;
    bool ljp = false;  ///< LJP applies
  };

  /// invalid_* for a history interval or load factors the parts refuse.
  static result<lrms_view> create(settings s);

  /// Reads what is due by the policy (everything with `force`); then makes the queue's plan
  /// (when the site plans it), so that the first request that needs it does not.
  status refresh(lrms& backend, timestamp now, bool force = false);
  /// The rule for a request that asks `ljp` (sent by an admin or not): permission_denied when
  /// the site enforces LJP and a non-admin waives it. Valid until the view changes. Only after
  /// a refresh.
  result<admission> admission_for(bool ljp, bool admin, timestamp now) const;
  /// Whether the LJP rule `ese` can apply here (holds must fit the queue's plan).
  bool plans_queue() const noexcept {
    return s_.policy.ljp != ljp_policy::off && s_.policy.ljp_check == ljp_method::ese;
  }

  /// Reservation `lrms_id` holds `span` from `now` on (granted, changed, extended). One the
  /// view cannot take marks it wrong: the next refresh reads it whole.
  void put(const std::string& lrms_id, const reservation_span& span, timestamp now);
  /// It holds nothing any more; queued jobs may start in its CPUs: the jobs are read again.
  void erase(const std::string& lrms_id);
  void jobs_changed() noexcept { jobs_read_ = -time_infinity; }
  void wrong() noexcept { full_read_ = -time_infinity; }

  /// Only after a refresh (read once at least).
  const availability_profile& profile() const { return capacity_->profile(); }
  const capacity_view& capacity() const { return *capacity_; }
  int running() const noexcept { return running_; }
  int queued() const noexcept { return queued_; }
  const history& esr_history() const noexcept { return history_; }

 private:
  lrms_view(settings s, history h) : s_(std::move(s)), history_(std::move(h)) {}
  status read_whole(lrms& backend, timestamp now);
  status read_jobs(lrms& backend, timestamp now);
  /// After either read: the job counts, and the esr history's sample.
  void took_jobs(const lrms_snapshot& snap, timestamp now);

  settings s_;
  history history_;
  std::optional<capacity_view> capacity_;  ///< made by the first read
  timestamp full_read_ = -time_infinity;   ///< -time_infinity: read it all before next use
  timestamp jobs_read_ = -time_infinity;   ///< -time_infinity: read the jobs before next use
  int running_ = 0;
  int queued_ = 0;
};

}  // namespace arbroker
