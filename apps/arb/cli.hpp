#pragma once

// The `arb` command line: options -> request bodies, replies -> tables or JSON, outcomes ->
// exit codes (docs/cli.md). A library so that tests can drive it without a process.

#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "arbroker/api/protocol.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "list_view.hpp"

namespace arbroker::cli {

/// Exit codes (documented in docs/cli.md).
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failed = 1;         ///< any other error the broker reports
inline constexpr int usage = 2;          ///< bad options or option values
inline constexpr int unreachable = 3;    ///< cannot connect, connection lost, timeout
inline constexpr int auth = 4;           ///< the broker refused the credentials
inline constexpr int invalid = 5;        ///< the broker refused the request as invalid
inline constexpr int not_found = 6;      ///< no such reservation (or not yours)
inline constexpr int unsatisfiable = 7;  ///< no reservation possible (infeasible, busy)
inline constexpr int denied = 8;         ///< not allowed (acting for another user)
}  // namespace exit_code

/// Everything the options can say; each subcommand reads its part.
struct options {
  std::string command;  ///< the chosen subcommand
  // Connection and output.
  std::string server = "127.0.0.1:7400";
  std::string user;
  std::string token;
  std::string ca;    ///< TLS: the CA of the node's certificate ("" = plain text)
  std::string cert;  ///< TLS: a client certificate, when the node asks for one ...
  std::string key;   ///< ... and its key
  std::string output = "table";
  double timeout = 30;  ///< seconds
  std::string as_user;  ///< admin: act for this user
  // Elastic requests (reserve, hold, whatif) and co-reservations.
  std::string est = "now";
  std::string let;
  std::string ready;     ///< estimate: not before
  std::string deadline;  ///< estimate: ending by
  std::string np;        ///< "8" or "4-32"
  std::string dur_ref;   ///< --runtime: on np_ref CPUs of power pp_ref
  double pp_ref = 0;     ///< 0: each cluster's own power (grid jobs: --walltime holds everywhere)
  int np_ref = 0;        ///< 0: the lower end of --np
  std::string speedup = "amdahl:0";
  std::string prefer;
  std::string policy;
  std::string esr = "load";
  double esr_threshold = -1;
  int tsn_max = 8;
  std::string tss_gap = "60";
  std::string hold_for;
  std::string os;
  std::string account;  ///< reservations' account (paper 003, Sec. 3.1)
  std::vector<std::string> features;
  std::vector<std::string> clusters;
  bool no_local_preference = false;
  bool movable = false;  ///< paper 002: the cluster may move it within [est, let]
  std::vector<std::string> components;
  int max_attempts = 8;
  // Single reservations and jobs.
  std::string id;
  std::string start;
  std::string end;
  std::string duration;
  std::string walltime;
  std::string name;
  std::string job_command;
  bool all = false;
  list_view list;                ///< arb list: filters, order, format
  std::vector<std::string> ids;  ///< coallocate: the parts' reservation ids
  // Grid jobs (submit without --reservation, jobs, job show/cancel).
  std::string strategy = "single";
  std::string rank = "start";  ///< grid job: start (earliest planned start) or sed
  int width = 3;
  std::vector<std::string> benchmarks;  ///< name=result:seconds
  std::vector<std::string> inputs;      ///< location:size
  std::string output_size;
  double penalty = 1.25;  ///< c, for a benchmark a cluster does not publish
  std::string min_gain;
  int max_migrations = -2;
  int max_resubmits = -1;  ///< -1: the node's default
  int retry_on_failure = 0;
  bool fallback_flood = false;
  std::string state;
  /// `arb jobs`: ended ones from the store too, by pages (as `arb list --history`).
  bool jobs_history = false;
  bool jobs_noheader = false;
  bool jobs_parsable = false;
  std::string jobs_format;  ///< arb jobs --format
  int jobs_limit = 0;
  std::string jobs_before;
  bool finish_eq7 = false;
  std::string mem_per_cpu;  ///< submit: MiB as Slurm writes them (4096, 4G)
  std::string mem;          ///< submit: per node
  std::string job_id;       ///< job show|cancel: a grid job's id, or (with id) an LRMS job id
  std::vector<std::string> after;          ///< submit: grid jobs it waits for, ID[:ok|any]
  std::string on_parent_failure = "fail";  ///< submit: fail or cancel it when a parent fails
  bool no_locality = false;                ///< submit: ignore where its parents' outputs are
  std::string jobs_file;                   ///< submit-dag: the TOML file of jobs
  // arb watch
  std::int64_t since = -1;         ///< after this event (-1: from now on)
  std::vector<std::string> kinds;  ///< kinds or families of events
  int count = 0;                   ///< stop after so many events (0: never)
};

/// "10", "10kB", "5MB", "2GiB" -> bytes (kB = 1000 B, KiB = 1024 B, as paper 003's sizes).
result<std::int64_t> parse_bytes(std::string_view option, std::string_view text);

/// Defines every subcommand and option of `arb` on `app`, writing into `o`. Connection
/// options also read ARB_SERVER, ARB_USER, ARB_TOKEN, ARB_CA, ARB_CERT and ARB_KEY.
void define(CLI::App& app, options& o);

/// The grid job the options ask for (arb submit without --reservation).
result<msg::grid_submit_request> grid_submit_request_of(const options& o);

/// The jobs of a job file (TOML: keys as `arb submit`'s options, top-level ones for every
/// job, one [[job]] table per job); `base` gives the connection and user. The error names
/// the file, the job and the key.
result<msg::grid_submit_many_request> read_job_file(const options& base, const std::string& path);

/// The request body the options ask for; invalid_parameter naming the option when a value
/// does not parse. `now` resolves relative times.
result<api::request_body> build_request(const options& o, timestamp now);

/// A parsed co-reservation component: "np=4-8;dur=2h;np-ref=4;pp-ref=1500;
/// speedup=amdahl:0.1;offset=10m;clusters=a,b".
result<msg::coreservation_component> parse_component(std::string_view spec);

/// "8" -> {8, 8}; "4-32" -> {4, 32}.
result<std::pair<std::int32_t, std::int32_t>> parse_np_range(std::string_view text);

/// The reply as a table (format "table") or JSON ("json"), errors included.
std::string render(const api::response& r, const std::string& format);
/// `arb jobs` as a table: without its header, fields separated by '|' without padding.
/// `arb jobs`: the default table, or the fields of `format` ("id,state,cluster"; the names of
/// job_fields()); invalid_parameter for a field it does not know.
result<std::string> render_jobs(const msg::grid_list_reply& r, const std::string& format,
                                bool noheader, bool parsable);
const std::vector<std::string>& job_fields();
/// A failure before any response (connection, usage), in the chosen format.
std::string render_error(const error& e, const std::string& format);

/// One event of `arb watch`: a line of text, or (format "json") one JSON object on a line.
std::string render_event(const msg::watch_event& e, const std::string& format);

int exit_code_of(const api::response& r);
int exit_code_of_transport(const error& e);

/// The whole command: parse, connect, call, print. Returns the exit code.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        const std::function<timestamp()>& clock);

}  // namespace arbroker::cli
