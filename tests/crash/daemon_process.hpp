#pragma once

// A daemon of the crash trials (arbd, arb-agent), started as a child process on a port the OS
// chose, which it names on stdout once it serves ("ready <port> ..."), and killed with
// SIGKILL or stopped with SIGTERM. The trials own it: it is not killed when it goes out of
// scope.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace arbroker {

class daemon_process {
 public:
  /// Any daemon that prints "ready <port> ..." on stdout once it serves (arbd, arb-agent).
  /// With `standby_ok`, an arbd that prints "standby <port> ..." first (several nodes on one
  /// store) is returned at once, not serving: wait_ready() waits for its ready line.
  static daemon_process spawn(std::vector<std::string> args, bool standby_ok = false) {
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    // Its ready line comes through a pipe (a blocking read, no polling), or EOF if it dies
    // first.
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    if (rc != 0) throw std::runtime_error("cannot start " + args[0]);
    daemon_process d;
    d.pid = pid;
    d.out_ = out[0];
    const std::string line = d.read_line();
    unsigned port = 0;
    if (standby_ok && std::sscanf(line.c_str(), "standby %u", &port) == 1) {
      d.port = static_cast<std::uint16_t>(port);
      return d;  // its ready line comes later, on the pipe kept open
    }
    d.close_out();  // it prints nothing else on stdout
    d.serving = true;
    if (std::sscanf(line.c_str(), "ready %u", &port) != 1) {
      int st = 0;
      ::waitpid(pid, &st, 0);
      throw std::runtime_error(args[0] + " did not start (exit status " + std::to_string(st) + ")");
    }
    d.port = static_cast<std::uint16_t>(port);
    return d;
  }
  /// A standby: blocks until it serves (true) or ends (false).
  bool wait_ready() {
    if (serving) return true;
    const std::string line = read_line();
    close_out();
    serving = line.rfind("ready ", 0) == 0;
    return serving;
  }
  void kill9() {
    ::kill(pid, SIGKILL);
    close_out();
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
  /// Sends `sig` and waits for the end: its exit code (128 + signal when killed).
  int stop(int sig) {
    ::kill(pid, sig);
    close_out();
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  int terminate() { return stop(SIGTERM); }
  /// Pauses it (SIGSTOP) and waits until every thread of it has stopped: a request sent
  /// after this is not answered until it is continued.
  void pause() {
    ::kill(pid, SIGSTOP);
    int st = 0;
    ::waitpid(pid, &st, WUNTRACED);
  }
  /// Continues a paused (SIGSTOP) daemon and waits for its end: its exit code.
  int resume_and_wait() { return stop(SIGCONT); }
  pid_t pid = 0;
  std::uint16_t port = 0;
  bool serving = false;

 private:
  std::string read_line() {
    std::string line;
    char ch;
    while (::read(out_, &ch, 1) == 1 && ch != '\n')
      line += ch;
    return line;
  }
  void close_out() {
    if (out_ >= 0) ::close(out_);
    out_ = -1;
  }
  int out_ = -1;
};

}  // namespace arbroker
