#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
/// call with refresh 0, but not twice at one instant while lrms::jobs_version() says no job
/// changed), the whole (lrms::snapshot) when older than max(refresh, full_refresh)
/// (on every call with both 0), and at once after wrong() (the LRMS refused what the view
/// allowed) or jobs_changed() (a submit, a cancel; the jobs only). In between the service keeps
/// its own reservations in it (put, erase). A periodic full read is not made while
/// lrms::reservations_version() says that nothing but the service's own calls changed the
/// reservations since the last (and that read left nothing out): the view keeps all a read
/// would list, so the jobs are read and the ended reservations dropped instead, with the same
/// view as the result (a simulated cluster, which only its service reserves on).
///
/// Reads aside (allow_reads_aside: a service with an actor of its own): the periodic full read
/// is no longer made by refresh() on the owner's thread, which a full read of n reservations
/// would stall for O(n log n). The owner begins it (begin_read_aside: what the LRMS must list
/// on that thread, lrms::begin_snapshot), another thread runs it (read_aside::run: the rest of
/// the listing and a new view built from it), and the owner ends it (end_read_aside): the new
/// view takes every put and erase made meanwhile, in order, and the jobs if they were read
/// meanwhile, and replaces the old one, which the read then holds to be dropped on the other
/// thread too. Until then refresh() reads the jobs as usual and the owner serves from the old
/// view. A read the view needs at once (the first, force, wrong()) is still made inline, and
/// a read aside begun before it is dropped; one that fails marks the view wrong(), so that
/// the next refresh reads inline and answers with the LRMS's error as it always has. Not
/// with max(refresh, full_refresh) = 0 (the whole LRMS on every call, inline).
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

  /// A full read made beside the owner (see above). Made by begin_read_aside, run once on
  /// any thread, then handed back to end_read_aside on the owner's; it owns what it reads.
  class read_aside {
   public:
    /// The rest of the listing, and a view made of it as a full read would make it.
    void run();
    /// After end_read_aside: the view to drop, the one the read replaced or, when the read
    /// was dropped, the one it built (null when it built none), for whoever drops it off the
    /// owner's thread (dropping a view of n reservations frees O(n) nodes).
    std::shared_ptr<capacity_view> take_dropped() { return std::move(dropped_); }

   private:
    friend class lrms_view;
    read_aside(lrms::snapshot_rest rest, timestamp at, int cpus, load_params load,
               std::uint64_t generation, bool plans,
               std::optional<std::uint64_t> reservations_version)
        : rest_(std::move(rest)),
          at_(at),
          cpus_(cpus),
          load_(load),
          generation_(generation),
          plans_(plans),
          reservations_version_(reservations_version) {}

    lrms::snapshot_rest rest_;
    timestamp at_;
    int cpus_;
    load_params load_;
    std::uint64_t generation_;  ///< the view's inline full reads when it began
    bool plans_;                ///< make the queue's plan too
    std::optional<std::uint64_t> reservations_version_;  ///< the LRMS's when it began
    status outcome_ = fail(errc::internal, "the read aside was not run");
    std::optional<capacity_view> view_;  ///< after run
    int running_ = 0;
    int queued_ = 0;
    std::shared_ptr<capacity_view> dropped_;
  };

  /// invalid_* for a history interval or load factors the parts refuse.
  static result<lrms_view> create(settings s);

  /// From now on the periodic full reads are made aside, by the owner's begin_read_aside and
  /// end_read_aside (see above).
  void allow_reads_aside() noexcept { aside_ = true; }
  /// The full read due now, begun: null when reads are not made aside, one is under way, or
  /// none is due by the policy (a read needed at once is refresh()'s, inline).
  std::unique_ptr<read_aside> begin_read_aside(lrms& backend, timestamp now);
  /// Puts what `read` read in the view, with what changed since it began (see above).
  void end_read_aside(read_aside& read, timestamp now);

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
  void wrong() noexcept { whole_now_ = true; }

  /// Only after a refresh (read once at least).
  const availability_profile& profile() const { return capacity_->profile(); }
  const capacity_view& capacity() const { return *capacity_; }
  int running() const noexcept { return running_; }
  int queued() const noexcept { return queued_; }
  const history& esr_history() const noexcept { return history_; }

 private:
  lrms_view(settings s, history h) : s_(std::move(s)), history_(std::move(h)) {}
  status read_whole(lrms& backend, timestamp now);
  /// Whether the view keeps what a full read would list (lrms::reservations_version, and
  /// capacity_view::holds_all): then the read is not made.
  bool reservations_kept(lrms& backend);
  status read_jobs(lrms& backend, timestamp now);
  /// After a read: the job counts, and the esr history's sample.
  void took_jobs(int running, int queued, timestamp now);
  /// How old the last full read may be (0: none may be kept).
  duration full_interval() const noexcept {
    return std::max(s_.policy.refresh, s_.policy.full_refresh);
  }
  bool aside() const noexcept { return aside_ && full_interval() > 0; }

  /// A put (span set) or an erase made while a read was aside, for its new view.
  struct change {
    std::string key;
    std::optional<reservation_span> span;
    timestamp at = 0;
  };

  settings s_;
  history history_;
  std::optional<capacity_view> capacity_;      ///< made by the first read
  timestamp full_read_ = -time_infinity;       ///< -time_infinity: read it all before next use
  timestamp jobs_read_ = -time_infinity;       ///< -time_infinity: read the jobs before next use
  std::optional<std::uint64_t> jobs_version_;  ///< the LRMS's at the last read of the jobs
  std::optional<std::uint64_t> reservations_version_;  ///< the LRMS's at the last full read
  int running_ = 0;
  int queued_ = 0;
  bool whole_now_ = false;        ///< wrong(): read it all before next use, inline
  bool aside_ = false;            ///< allow_reads_aside()
  bool reading_ = false;          ///< a read aside is under way
  std::uint64_t generation_ = 0;  ///< inline full reads made
  std::vector<change> changes_;   ///< since the read aside began
  bool jobs_read_meanwhile_ = false;
};

}  // namespace arbroker
