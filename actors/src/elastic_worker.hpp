#pragma once

// The broker's elastic workers (internal): a small pool of long-lived coordinators, each
// running many elastic requests at once, by the 8 steps of paper 000 Sec. 2.2 (a pool, not an
// actor per request: docs/architecture.md, "CAF 0.17 constraints", 3).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbroker/core/candidate.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "elastic_coordinator.hpp"

namespace arbroker {

/// One elastic request a worker is running.
struct elastic_job : elastic_job_base {
  using elastic_job_base::elastic_job_base;

  /// A cluster that can host the request: its directory entry (service handle) and the
  /// request adapted to it. Its index is the site of the attempt's placements.
  struct site {
    const directory_entry* entry = nullptr;
    site_request adapted;
    bool held_back = false;     ///< its last probe sent only its best few of more
    bool send_all = false;      ///< probe it for every candidate (a what-if, a refill)
    bool nothing_fits = false;  ///< its probe sent no slot: asked for a busy-time hint on failure
    bool probed = false;        ///< asked at least once
    bool counted = false;       ///< its probe's statistics are in the request's
    /// A bound on the first objective of every candidate it can offer (smaller is better),
    /// from the window and the shapes alone; none when that objective needs a probe.
    std::optional<std::int64_t> bound;
  };
  std::vector<site> sites;  ///< point into the job's directory
  std::vector<candidate> candidates;
  /// Per candidate: where it came from.
  struct origin {
    std::size_t site = 0;    ///< index into `sites`
    bool cut_after = false;  ///< the last its cluster sent of more it has
  };
  std::vector<origin> origins;
  std::vector<candidate> tried;  ///< not to be tried again after a refill
  bool refilling = false;
  std::vector<std::size_t> order;  ///< candidates ranked so far (a prefix of the ranking)
  std::size_t next = 0;            ///< order position of the next try
  /// Order position that must not be tried before a refill: a cluster not asked yet could
  /// offer a candidate as good as it, or one that sent only its best few could offer more.
  std::size_t refill_at = SIZE_MAX;
  int probes_pending = 0;
};

/// The state of an elastic worker: the steps of one request, on the shared coordinator base.
class elastic_worker_state : public elastic_coordinator<elastic_worker_state, elastic_job> {
 public:
  using elastic_coordinator::elastic_coordinator;
  static inline const char* name = "arb.elastic_worker";

  // -- hooks of the coordinator bases --------------------------------------------------------
  void start(const job_ptr& j, const std::vector<const directory_entry*>& clusters);
  void try_next(const job_ptr& j);
  const cluster_service_actor& service_of(const elastic_job& j, std::size_t site) const;
  void flush();

 private:
  /// The probes for one cluster service collected since the last flush, of any requests:
  /// they go out as one probe_batch_request, so that a worker running many requests sends
  /// a cluster one message per turn instead of one per request.
  struct probe_outbox {
    cluster_service_actor service;
    msg::probe_batch_request batch;
    std::vector<std::pair<job_ptr, std::size_t>> asked;  ///< per probe: its job and site
  };
  /// Probes per batch at most: a larger batch goes out at once.
  static constexpr std::size_t max_batch = 64;
  void send_batch(probe_outbox& box);

  bool reserve_fixed_slot(const job_ptr& j);
  msg::probe_request probe_for(const elastic_job& j, const elastic_job::site& s) const;
  void probe(const job_ptr& j, std::size_t site);
  void on_probe_reply(const job_ptr& j, const msg::probe_reply& r, std::size_t site);
  bool rank_upto(const job_ptr& j, std::size_t upto);
  void rank(const job_ptr& j);
  void refill(const job_ptr& j);
  bool more_to_ask(const elastic_job& j) const;
  template <class Then>
  void after_busy_hints(const job_ptr& j, Then then);
  void refuse(const job_ptr& j, errc code, std::string message);
  double esr_threshold(const elastic_job& j) const;

  std::unordered_map<caf::actor_addr, probe_outbox> outboxes_;
  bool flush_due_ = false;  ///< a flush_atom is on its way to this worker
};

}  // namespace arbroker
