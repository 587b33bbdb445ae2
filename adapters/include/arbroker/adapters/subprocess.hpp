#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbroker/core/error.hpp"

namespace arbroker {

/// The identity a child process runs as when the caller (root) switches user.
struct process_user {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  ///< supplementary groups
  std::string home;
};

/// Looks a user up in the password database (with supplementary groups).
/// Errors: permission_denied when there is no such user.
result<process_user> lookup_user(const std::string& name);

/// What to run. The program is started directly (fork/exec, never through a shell) in its
/// own process group, so that a timeout can kill it with everything it started.
struct process_spec {
  std::vector<std::string> argv;  ///< argv[0]: a path, or a name looked up in PATH
  /// Set (or overridden) on top of the caller's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::string> input;  ///< written to stdin, which is then closed; none: /dev/null
  std::chrono::milliseconds timeout{10000};  ///< hard limit; then SIGKILL to the group
  std::string cwd;                           ///< empty: the caller's
  std::optional<process_user> user;          ///< run as this user (the caller must be root)
};

/// How a finished process ended and what it printed.
struct process_output {
  int exit_code = 0;  ///< valid when signal == 0
  int signal = 0;     ///< the signal that ended it, or 0
  std::string out;
  std::string err;
  bool ok() const noexcept { return signal == 0 && exit_code == 0; }
};

/// Runs a program to its end and returns its exit status and output; a non-zero exit is
/// not an error here (the caller reads it). stdout and stderr are read concurrently, so any
/// amount of output is fine. Never waits longer than spec.timeout (plus the time to reap a
/// killed child).
/// Errors: invalid_parameter (empty argv), timeout (killed at the deadline), not_found (no
/// such program), permission_denied (not executable, or cannot switch user), lrms_failure
/// (the system refused: pipes, fork).
result<process_output> run_process(const process_spec& spec);

/// "prog arg1 arg2 ...", for messages.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace arbroker
