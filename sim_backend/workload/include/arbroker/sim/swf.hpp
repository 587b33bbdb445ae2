#pragma once

// The Standard Workload Format (SWF, version 2.2) of the Parallel Workloads Archive: one job
// per line, 18 whitespace-separated numbers, -1 for "unknown"; header lines start with ';'.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker::sim {

/// The value SWF uses for "unknown" in every field.
inline constexpr std::int64_t swf_unknown = -1;

/// Number of fields of an SWF record.
inline constexpr int swf_field_count = 18;

/// One SWF record, field for field (numbers in comments are the SWF field numbers). Times
/// are whole seconds, the submit time counted from the log's start. Every field may be -1
/// (unknown) except the job number and the submit time.
struct swf_job {
  std::int64_t job_id = swf_unknown;           ///< 1: job number
  timestamp submit_time = swf_unknown;         ///< 2: submit time
  duration wait_time = swf_unknown;            ///< 3: wait time
  duration run_time = swf_unknown;             ///< 4: run time
  std::int64_t allocated_procs = swf_unknown;  ///< 5: number of allocated processors
  double avg_cpu_time = swf_unknown;           ///< 6: average CPU time used (s, may be fractional)
  double used_memory = swf_unknown;            ///< 7: used memory (KB per processor)
  std::int64_t requested_procs = swf_unknown;  ///< 8: requested number of processors
  duration requested_time = swf_unknown;       ///< 9: requested time (the user's estimate)
  double requested_memory = swf_unknown;       ///< 10: requested memory (KB per processor)
  std::int64_t status = swf_unknown;           ///< 11: 1 completed, 0 failed, 5 cancelled, ...
  std::int64_t user_id = swf_unknown;          ///< 12
  std::int64_t group_id = swf_unknown;         ///< 13
  std::int64_t executable_id = swf_unknown;    ///< 14
  std::int64_t queue = swf_unknown;            ///< 15: queue number (0 is often "interactive")
  std::int64_t partition = swf_unknown;        ///< 16
  std::int64_t preceding_job = swf_unknown;    ///< 17
  duration think_time = swf_unknown;           ///< 18: think time from the preceding job

  friend bool operator==(const swf_job&, const swf_job&) = default;
};

/// The processors a job asked for: the requested count when it is known (> 0), the allocated
/// one otherwise (some logs, e.g. CTC-SP2 and SDSC-Par-1996, leave field 8 at -1). -1 when
/// neither is known.
std::int64_t procs(const swf_job& job) noexcept;

/// The header of a trace: all its ';' lines, verbatim, plus the few fields the simulator uses.
struct swf_header {
  std::vector<std::string> comments;           ///< each ';' line as read, without the line end
  std::int64_t max_procs = swf_unknown;        ///< "; MaxProcs: N"
  std::int64_t max_nodes = swf_unknown;        ///< "; MaxNodes: N" (text after N is ignored)
  std::int64_t unix_start_time = swf_unknown;  ///< "; UnixStartTime: N" (epoch of time 0)
  std::string time_zone_string;                ///< "; TimeZoneString: US/Pacific"; empty if absent

  friend bool operator==(const swf_header&, const swf_header&) = default;
};

/// Records left out of a trace read with skip_bad_records, for one reason.
struct swf_skipped {
  std::int64_t count = 0;
  std::size_t first_line = 0;  ///< where it happened first
  std::string first;           ///< the first such record's full message ("path:line: what")

  friend bool operator==(const swf_skipped&, const swf_skipped&) = default;
};

struct swf_trace {
  swf_header header;
  std::vector<swf_job> jobs;  ///< in file order
  /// Bad records left out, by reason ("wrong number of fields", "field 11 (status) is
  /// negative", "unknown submit time", ...); empty when none was or when reading strictly.
  std::map<std::string, swf_skipped> skipped;

  friend bool operator==(const swf_trace&, const swf_trace&) = default;
};

/// How to read a trace. Real traces have bad records (negative status codes such as -4,
/// submit times of -1, missing fields); by default one such record refuses the whole trace
/// (strict, for tools that must not lose a job); skip_bad_records leaves each out and counts
/// it by reason in swf_trace::skipped instead. Header lines are always checked.
struct swf_read_options {
  bool skip_bad_records = false;
};

/// Reads an SWF file, plain or gzip-compressed (told apart by the gzip magic bytes, not by
/// the name). Errors: errc::not_found when the file cannot be opened; errc::invalid_parameter
/// for a damaged gzip stream or a malformed line, with the message "path:line: what" (wrong
/// number of fields, a field that is not a number, a negative value other than -1, an
/// unknown job number or submit time).
result<swf_trace> read_swf(const std::filesystem::path& path, swf_read_options options = {});

/// Parses SWF text; `name` stands for the file name in error messages.
result<swf_trace> read_swf_string(std::string_view text, std::string_view name = "<string>",
                                  swf_read_options options = {});

/// Reads a whole stream and parses it like read_swf_string.
result<swf_trace> read_swf_stream(std::istream& in, std::string_view name = "<stream>");

/// The SWF text of a trace: the header comments verbatim, then one line per job with the 18
/// fields separated by single spaces. When `header.comments` is empty, header lines are made
/// from the parsed fields that are set ("; Version: 2.2", "; MaxProcs: N", ...), so that
/// reading the text back restores them.
std::string format_swf(const swf_trace& trace);

/// Writes format_swf(trace) to a stream; errc::invalid_parameter if the stream fails.
status write_swf(std::ostream& out, const swf_trace& trace);

/// Writes format_swf(trace) to a file, gzip-compressed when the name ends in ".gz";
/// errc::invalid_parameter naming the path when it cannot be written.
status write_swf(const std::filesystem::path& path, const swf_trace& trace);

}  // namespace arbroker::sim
