#pragma once

// Readers of what Son of Grid Engine's clients print, kept apart from the adapter so that
// they can be tested on recorded output. Every reader takes the client's output verbatim.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/adapters/lrms.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/job_requirements.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker::gridengine {

/// "2026-11-22T10:05:30" (optionally with fractional seconds), read as UTC: the adapter runs
/// the clients with TZ=UTC.
result<timestamp> parse_time(std::string_view text);

/// qrsub -a's [[CC]YY]MMDDhhmm[.SS], in UTC: "202611221005.30".
std::string format_time(timestamp t);

/// A Grid Engine time value: seconds ("3600") or "h:m:s" ("1:00:00"); INFINITY gives
/// time_infinity.
result<duration> parse_duration(std::string_view text);

/// The id in qrsub's "Your advance reservation 12 has been granted".
std::optional<std::string> granted_reservation_id(std::string_view out);

/// The id in qsub -terse's output ("12", or "12.1-10:1" for an array job).
std::optional<std::string> submitted_job_id(std::string_view out);

/// A reservation as qrstat -xml reports it: the summary (no np) or, with -ar, the details.
struct qrstat_entry {
  lrms_reservation reservation;  ///< owner: the first user of the access list, else creator
  std::string state;             ///< w(aiting), r(unning), d(eleted), E(rror), W(arning)
};
result<std::vector<qrstat_entry>> parse_qrstat(std::string_view xml);

/// The lines of a client's output, without their line ends ('\r' too), empty ones left out.
std::vector<std::string_view> lines_of(std::string_view out);

/// A queue's h_rt from qconf -sq's output: the hard walltime limit of its jobs
/// (time_infinity for INFINITY). invalid_parameter without an h_rt line or with a bad value.
result<duration> parse_queue_h_rt(std::string_view qconf_sq);

/// The slots of all cluster queues: the sum of <total> in qstat -g c -xml.
result<int> parse_cluster_slots(std::string_view xml);

/// A memory value in MiB: "23.586G", "885.434M", "512K", "1024" (bytes); K, M, G, T count
/// 1024, k, m, g, t 1000 (Grid Engine's memory specifiers). nullopt when unreadable.
std::optional<std::int64_t> memory_mib(std::string_view value);

/// The names of the BOOL complexes in qconf -sc's output.
std::set<std::string> boolean_complexes(std::string_view qconf_sc);

/// The execution hosts of qhost -q -F -xml as node groups (hosts alike are one group): a
/// host's CPUs are the slots of its queue instances over every queue (hosts in no queue are
/// left out), its memory mem_total (0 when it reports none), its features the `booleans` its
/// complex_values set TRUE. The global host is not one.
result<std::vector<node_group>> parse_qhost_nodes(std::string_view xml,
                                                  const std::set<std::string>& booleans);

/// A job as qstat -xml -r reports it.
struct qstat_entry {
  /// walltime: h_rt, or time_infinity without one; reservation and not_before unset (they
  /// are in qstat -j); for a pending job, after (its unfinished -hold_jid predecessors) and
  /// approximation (held, an error state, bound to a queue or host).
  lrms_job job;
  std::string state;  ///< qstat's letters: r, t, qw, hqw, Eqw, dr, ...
  bool pending = false;
};
/// Running jobs first, then pending ones in the order qstat lists them (its dispatch order).
result<std::vector<qstat_entry>> parse_qstat(std::string_view xml);

/// What only a job's details say: the reservation it is bound to (-ar) and its -a time.
struct job_details {
  std::optional<std::string> reservation;
  timestamp not_before = 0;
  friend bool operator==(const job_details&, const job_details&) = default;
};
/// job number -> its details, from qstat -j LIST -xml (jobs with neither are left out).
result<std::map<std::string, job_details>> parse_job_details(std::string_view xml);

/// The last accounting record of qacct -j ID.
struct accounting_record {
  int failed = 0;
  int exit_status = 0;
};
std::optional<accounting_record> parse_qacct(std::string_view text);

/// Whether qacct's `failed` code blames the host rather than the job (sge_shepherd's codes):
/// the execution daemon or shepherd could not set the job up or lost it (1-16 before or
/// around the job: config, PID, processor set, prolog, parallel environment, epilog; 18-21
/// shepherd errors and a job the restarted execd no longer recognised; 24-25 migrated or
/// rescheduled; 36 configured daemons). The job's own: 17 through a signal, 26-29 and 38 its
/// files, shell, directory and groups, 37 a limit enforced, 100 after the job (its exit).
bool failed_by_the_host(int failed) noexcept;

/// What a client's complaint means, as an errc; lrms_failure for anything unrecognised.
errc classify(std::string_view message);

/// qsub -l requests for a job's needs: "mem_free=NM" (memory per node, a host's free memory),
/// "h_vmem=NM" (per CPU: Grid Engine's per-slot limit), "F=TRUE" for each feature F (a
/// boolean complex the site attaches to the hosts that have it).
std::vector<std::string> resource_requests(const job_requirements& needs);

}  // namespace arbroker::gridengine
