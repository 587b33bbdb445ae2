#pragma once

// The measures of the papers' experiments, from per-job and per-request records. No CAF and
// no I/O: the experiment runner feeds a collector and prints its summary.
//
//   MWT  mean wait of batch jobs: mean of (first start - submit) over the batch jobs that
//        started (paper 001 Sec. 4.2; paper 000 Sec. 4.3 "waiting time").
//   MOT  mean offset from the requested reservation time: mean of |granted start - requested
//        start| over accepted reservation requests (paper 001 Sec. 4.2).
//   U    utilization: busy CPU-seconds inside [begin, end) / ((end - begin) x CPUs)
//        (paper 002 eq. 4.2; paper 001 Sec. 4.4).
//   rejections, and P_b = rejected requests / requests (paper 002 eq. 4.1).
//   W_R  percentage of work rejected: 100 x sum of np x runtime over rejected requests / the
//        same over all requests (paper 002 Sec. 4.1.1).
//   Q    fairness: mean work of rejected requests / mean work of all requests (paper 002
//        Sec. 4.1.4); so P_b = (W_R / 100) / Q.
//   R_OD mean of (completion - submit) over completed on-demand requests; R_AR mean of
//        (completion - earliest start) over completed AR requests (paper 002 Sec. 4.1.5-6).
//   Broker effort (paper 000 Sec. 4.2, Fig. 7), separately for accepted and rejected
//        requests: mean candidates received from the probe, mean left after the esr
//        threshold, mean reserve tries rejected by the CRS and by the local scheduler.
//   ac   ESE accuracy (paper 004 eq. 8), the mean over estimates of
//        1 - |et - rt| / rt if |et - rt| <= rt, else 0, where rt and et are the real and the
//        estimated start counted from the moment of the estimate (as absolute times every
//        estimate would score about 1). rt = 0 scores 1 if et = 0, else 0.
//
// A mean over no sample is absent (nullopt), never 0.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker::sim {

enum class request_kind : std::uint8_t { advance_reservation, on_demand };

/// Who turned a reserve try down (paper 000 Sec. 4.2): the cluster reservation service's
/// workload check, or the local scheduler itself.
enum class reserve_rejecter : std::uint8_t { crs, local_scheduler };

/// Paper 000 Fig. 7: the mean effort per request of one outcome.
struct broker_effort {
  std::size_t requests = 0;  ///< requests of this outcome with a candidate record
  std::optional<double> candidates;
  std::optional<double> after_threshold;
  std::optional<double> rejected_by_crs;
  std::optional<double> rejected_by_local_scheduler;
  friend bool operator==(const broker_effort&, const broker_effort&) = default;
};

struct metrics_summary {
  std::size_t batch_jobs = 0;          ///< submitted
  std::size_t batch_jobs_started = 0;  ///< those MWT averages over
  std::optional<double> mean_wait;     ///< MWT (s)

  std::size_t requests = 0;
  std::size_t accepted = 0;
  std::size_t rejected = 0;                                 ///< "rejections"
  std::optional<double> mean_offset;                        ///< MOT (s)
  std::optional<double> blocking_probability;               ///< P_b
  std::optional<double> work_rejected_percent;              ///< W_R (%)
  std::optional<double> fairness;                           ///< Q
  std::optional<double> mean_response_on_demand;            ///< R_OD (s)
  std::optional<double> mean_response_advance_reservation;  ///< R_AR (s)

  std::optional<double> utilization;  ///< U

  broker_effort accepted_effort;
  broker_effort rejected_effort;

  std::size_t estimates = 0;
  std::optional<double> estimate_accuracy;  ///< ac, mean of eq. 8

  friend bool operator==(const metrics_summary&, const metrics_summary&) = default;
};

/// ESE accuracy of one estimate (paper 004 eq. 8); rt and et counted from the estimate.
double estimate_accuracy(duration real_wait, duration estimated_wait) noexcept;

/// Records per-job and per-request events of one experiment run and computes the summary.
/// Every call checks its input: an unknown or repeated key, a time out of order or a bad
/// count gives errc::invalid_parameter / not_found and records nothing. Each record is
/// O(1) expected; summary() is O(jobs + requests + segments).
class metrics_collector {
 public:
  /// invalid_processor_range unless total_cpus >= 1 (all clusters together, for U).
  static result<metrics_collector> create(int total_cpus);

  /// Room for this many batch_record() jobs and requests (a whole run's records at once).
  void reserve(std::size_t batch_jobs, std::size_t requests);

  // Batch jobs (MWT).
  /// A batch job known whole, with its first start if it started: no key, no lookup (a
  /// replay's records). invalid_parameter if it starts before its submit.
  status batch_record(timestamp submitted, std::optional<timestamp> started);
  status batch_submitted(const std::string& job, timestamp t);
  /// The first start counts; later starts (a restarted job) are ignored.
  status batch_started(const std::string& job, timestamp t);

  // Busy CPUs (U): any job's run, batch or not, as np CPUs over [from, to).
  status cpus_busy(timestamp from, timestamp to, int np);

  // Requests: reservations (AR) and on-demand jobs (OD) sent to the broker.
  /// `requested_start` is the earliest start the user asked for (an OD's is its submit time);
  /// the work is np x runtime.
  status request_submitted(const std::string& request, request_kind kind, timestamp submitted,
                           timestamp requested_start, int np, duration runtime);
  status request_accepted(const std::string& request, timestamp granted_start);
  status request_rejected(const std::string& request);
  /// The job of an accepted request completed.
  status request_completed(const std::string& request, timestamp t);
  /// Candidates from the probe and those left after the esr threshold (after <= received).
  status candidates(const std::string& request, std::size_t received, std::size_t after_threshold);
  status reserve_rejected(const std::string& request, reserve_rejecter by);

  // ESE accuracy: an estimate made at `made_at` against the real start.
  status start_estimate(timestamp made_at, timestamp estimated_start, timestamp real_start);

  /// The measures over [begin, end) for U (invalid_window unless begin < end); the others
  /// use every record.
  result<metrics_summary> summary(timestamp begin, timestamp end) const;

 private:
  struct batch_job {
    timestamp submitted = 0;
    std::optional<timestamp> started;
  };
  enum class outcome : std::uint8_t { pending, accepted, rejected };
  struct request {
    request_kind kind = request_kind::on_demand;
    timestamp submitted = 0;
    timestamp requested_start = 0;
    double work = 0;
    outcome state = outcome::pending;
    std::optional<timestamp> granted_start;
    std::optional<timestamp> completed;
    std::optional<std::size_t> candidates;
    std::size_t after_threshold = 0;
    std::size_t rejected_by_crs = 0;
    std::size_t rejected_by_local = 0;
  };
  struct segment {
    timestamp from;
    timestamp to;
    int np;
  };

  explicit metrics_collector(int total_cpus) : total_cpus_(total_cpus) {}
  result<request*> find(const std::string& id);

  int total_cpus_;
  std::unordered_map<std::string, batch_job> batch_;
  std::vector<batch_job> whole_batch_;  // batch_record(): without keys
  std::unordered_map<std::string, request> requests_;
  std::vector<segment> busy_;
  std::size_t estimates_ = 0;
  double accuracy_sum_ = 0;
};

}  // namespace arbroker::sim
