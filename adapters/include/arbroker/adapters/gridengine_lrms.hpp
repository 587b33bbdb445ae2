#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/adapters/lrms.hpp"
#include "arbroker/adapters/subprocess.hpp"

namespace arbroker {

/// Where the Grid Engine cell is and how the adapter uses it. The defaults match Debian's
/// gridengine packages and the cell scripts/gridengine/start.sh configures.
struct gridengine_config {
  std::string sge_root = "/var/lib/gridengine";
  std::string sge_cell = "default";
  /// Directory of qrsub, qrstat, qsub, ... Empty: /usr/lib/gridengine when it has them
  /// (Debian), else $SGE_ROOT/bin/<arch>. Not the /usr/bin wrappers: they cost ~0.7 s a call.
  std::string bin_dir;
  std::string pe = "arb";  ///< parallel environment reservations and jobs request
  /// Names of the reservations this adapter creates start with it; a restarted adapter finds
  /// its reservations again by it (owned_reservations()).
  std::string name_prefix = "arb-";
  /// Bound on each adapter call (all the commands it runs together).
  std::chrono::milliseconds timeout{20000};
  /// The scheduler's DURATION_OFFSET (`qconf -ssconf`, params): qmaster books a running job
  /// until start + h_rt + this when it checks an advance reservation (default 60 s).
  duration duration_offset = 60;
  std::string job_cwd = "/tmp";          ///< jobs' working directory
  std::string job_output = "/dev/null";  ///< jobs' stdout and stderr (qsub -o/-e)
};

/// The LRMS interface on Son of Grid Engine 8.1.9, through its command-line clients run
/// directly (no shell) with a hard timeout:
///   snapshot            qstat -g c, qstat -r -g d, qstat -j (reservation binding), qrstat
///   jobs_snapshot       the same without qrstat (no reservations)
///   create_reservation  qrsub -a START -d LENGTH -pe PE NP -N PREFIX+NAME [-u OWNER]
///   delete_reservation  qrdel (Grid Engine deletes the jobs bound to it too)
///   modify_reservation  qrsub of the new terms, then qrdel of the old (SGE has no qralter);
///                       refused with in_use while jobs are bound to the old one
///   submit_job          qsub -ar ID -l h_rt=WALLTIME -pe PE NP, script on stdin, run as the
///                       job's owner (the adapter must be root for other owners)
///   cancel_job          qdel
///   job_status          qstat, then qacct for finished jobs
///   node_groups         qhost -q -F -xml (slots, mem_total, TRUE booleans) and qconf -sc
/// A reservation's owner is the user it is made for: its access list (qrsub -u), so only
/// that user's jobs can run in it. Times cross the command line in UTC (TZ=UTC).
/// Not thread-safe: one owner calls it at a time.
class gridengine_lrms final : public lrms {
 public:
  explicit gridengine_lrms(gridengine_config config = {});

  std::string_view kind() const noexcept override { return "gridengine"; }
  const gridengine_config& config() const noexcept { return config_; }

  result<lrms_snapshot> snapshot() override;
  result<lrms_snapshot> jobs_snapshot() override;  ///< without qrstat
  result<std::string> create_reservation(const reservation_spec& spec) override;
  status delete_reservation(const std::string& id) override;
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override;
  // extend_reservation: lrms's default, infeasible: qrsub reservations cannot be altered and
  // a running job's h_rt cannot be raised, so an overrunning job ends with its reservation.
  result<std::string> submit_job(const job_spec& spec) override;
  status cancel_job(const std::string& id) override;
  result<lrms_job_state> job_status(const std::string& id) override;
  /// The execution hosts: their slots over every queue, mem_total, and the BOOL complexes
  /// their complex_values set TRUE (a job's features are requested as such: -l F=TRUE).
  result<std::vector<node_group>> node_groups() override;

  /// The reservations whose name starts with the configured prefix: the ones this adapter,
  /// or an earlier instance with the same prefix, created. For recovery after a restart.
  result<std::vector<lrms_reservation>> owned_reservations();

  /// The reservation's name in the LRMS: the prefix, then `name` (unless it has it already).
  std::string lrms_name(const std::string& name) const;

 private:
  using deadline = std::chrono::steady_clock::time_point;
  deadline start_call() const;
  /// Runs bin_dir/tool with args within the call's deadline.
  result<process_output> run(const char* tool, std::vector<std::string> args, deadline until,
                             std::optional<std::string> input = std::nullopt,
                             std::optional<process_user> user = std::nullopt) const;
  result<std::vector<lrms_reservation>> list_reservations(deadline until);
  result<int> total_slots(deadline until);
  result<lrms_snapshot> read(bool with_reservations);
  result<lrms_snapshot> snapshot_once(deadline until, bool with_reservations);
  /// The longest h_rt of the cluster queues (0: one has none), read at most every 10 min:
  /// it is configuration, not state.
  result<duration> queue_time_limit(deadline until);
  /// Jobs in qstat (running and pending) with their reservation binding filled in.
  result<std::vector<lrms_job>> list_jobs(deadline until, std::vector<lrms_job>* queued);
  result<std::string> create(const reservation_spec& spec, deadline until);
  status remove(const std::string& id, deadline until);

  gridengine_config config_;
  std::string bin_dir_;
  /// Jobs this instance submitted, with the reservation each is bound to.
  std::map<std::string, std::optional<std::string>> submitted_;
  /// Jobs this instance deleted: by cancel_job, or with their reservation.
  std::set<std::string> cancelled_;
  duration time_limit_ = 0;
  std::optional<std::chrono::steady_clock::time_point> time_limit_read_;
};

}  // namespace arbroker
