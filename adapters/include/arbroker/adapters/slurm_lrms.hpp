#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/adapters/lrms.hpp"

namespace arbroker {

/// How to reach a Slurm cluster and how to name and bound what arbroker does there.
struct slurm_options {
  /// The cluster's slurm.conf. Empty: $SLURM_CONF, else /etc/slurm/slurm.conf.
  std::string conf;
  /// Reservations arbroker creates are named with this prefix; rediscovery lists them by it,
  /// and the adapter deletes or modifies no reservation without it.
  std::string prefix = "arb-";
  /// Partition for reservations and jobs. Empty: the cluster's default partition.
  std::string partition;
  /// Hard bound on every call: past it the call returns errc::timeout, whatever libslurm
  /// does (the request may still complete on the controller afterwards).
  std::chrono::milliseconds call_timeout{8000};
  /// libslurm's own message timeout for this process, in seconds: how long it retries to
  /// connect to a dead controller (then errc::unreachable) and waits for a reply (then
  /// errc::timeout). Keep it below call_timeout.
  int message_timeout_s = 3;
  /// Slurm itself accepts a start up to ten minutes in the past; the adapter refuses a
  /// start earlier than now - past_start_tolerance with errc::invalid_window.
  duration past_start_tolerance = 60;
  /// Working directory of submitted jobs; their output goes to arb-slurm-<jobid>.out there.
  std::string job_dir = "/tmp";
};

/// The Slurm adapter: the lrms interface over the libslurm C API (Slurm 22.05).
///
/// Reservations reserve CPUs as cores (TRES cpu=N), are owned by the Slurm user
/// `spec.owner`, and are named `prefix + spec.name` (a generated name when spec.name is
/// empty); the Slurm reservation name is the id. Modify is create-new-then-delete-old
/// because Slurm does not check capacity when a reservation's times are updated and cannot
/// change its core count. Every call runs on one libslurm thread shared by the process and
/// is bounded by call_timeout. See adapters/README.md for the pitfalls handled.
class slurm_lrms final : public lrms {
 public:
  explicit slurm_lrms(slurm_options options);
  ~slurm_lrms() override;
  slurm_lrms(const slurm_lrms&) = delete;
  slurm_lrms& operator=(const slurm_lrms&) = delete;

  std::string_view kind() const noexcept override { return "slurm"; }
  const slurm_options& options() const noexcept { return options_; }

  result<lrms_snapshot> snapshot() override;
  result<lrms_snapshot> jobs_snapshot() override;  ///< without loading the reservations
  snapshot_rest begin_snapshot() override;         ///< all of it later, on the libslurm thread
  result<std::string> create_reservation(const reservation_spec& spec) override;
  status delete_reservation(const std::string& id) override;
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override;
  /// In place (`scontrol update ReservationName=... EndTime=...`, then each running job's
  /// TimeLimit, in whole minutes): raising a time limit needs an operator (SlurmUser, root or
  /// an AdminLevel=Operator account). Slurm does not check the CPUs for the longer span.
  status extend_reservation(const std::string& id, timestamp new_end) override;
  result<std::string> submit_job(const job_spec& spec) override;
  result<std::vector<node_group>> node_groups() override;
  status cancel_job(const std::string& id) override;
  result<lrms_job_state> job_status(const std::string& id) override;

  /// The reservations arbroker owns on this cluster (name starts with the prefix), e.g. to
  /// take them up again after a restart of the broker.
  result<std::vector<lrms_reservation>> owned_reservations();

  /// The Slurm name a reservation spec gets: `prefix + name`, or the name itself when it
  /// already has the prefix; a unique generated name when `name` is empty.
  std::string reservation_name(std::string_view name) const;

  /// The name of the reservation that replaces `id` in a modify: `id` with its generation
  /// suffix counted up (arb-x -> arb-x~1 -> arb-x~2).
  std::string successor_name(std::string_view id) const;

  struct cluster;  ///< what a libslurm call needs to reach this cluster (internal)

 private:
  result<lrms_snapshot> read(bool with_reservations);
  static result<lrms_snapshot> read(std::shared_ptr<cluster> cluster,
                                    std::chrono::milliseconds timeout, bool with_reservations);
  slurm_options options_;
  std::shared_ptr<cluster> cluster_;
};

/// How the adapter classifies a Slurm error number (slurm_get_errno(), slurm_errno.h or a
/// system errno): e.g. ESLURM_NODES_BUSY and ESLURM_RESERVATION_OVERLAP -> busy,
/// ESLURM_INVALID_TIME_VALUE -> invalid_window, a refused connection -> unreachable;
/// lrms_failure for anything without a closer code.
errc slurm_errc(int slurm_errno) noexcept;

/// The job ids a pending job still waits for, from Slurm's dependency text
/// ("afterany:12(unfulfilled),afterok:13:14(unfulfilled)"; "?" separates alternatives):
/// every id of an unfulfilled condition (singleton and others without a job id are left out).
std::vector<std::string> slurm_dependency_ids(std::string_view dependency);

/// What the plan of the queue cannot model about a pending Slurm job.
struct slurm_pending_facts {
  bool held = false;                   ///< priority 0, or reason JobHeldUser/JobHeldAdmin
  std::string_view partitions;         ///< the job's ("p1,p2")
  std::string_view cluster_partition;  ///< the one the adapter plans
  std::string_view req_nodes;          ///< nodes it asked for (-w)
  std::string_view dependency;         ///< Slurm's dependency text
};
/// Why the plan only approximates such a job (lrms_job::approximation): "" when it does not.
std::string slurm_approximation(const slurm_pending_facts& f);

}  // namespace arbroker
