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
  static daemon_process spawn(std::vector<std::string> args) {
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
    std::string line;
    char ch;
    while (::read(out[0], &ch, 1) == 1 && ch != '\n')
      line += ch;
    ::close(out[0]);  // it prints nothing else on stdout
    daemon_process d;
    d.pid = pid;
    unsigned port = 0;
    if (std::sscanf(line.c_str(), "ready %u", &port) != 1) {
      int st = 0;
      ::waitpid(pid, &st, 0);
      throw std::runtime_error(args[0] + " did not start (exit status " + std::to_string(st) + ")");
    }
    d.port = static_cast<std::uint16_t>(port);
    return d;
  }
  void kill9() {
    ::kill(pid, SIGKILL);
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
  int terminate() {
    ::kill(pid, SIGTERM);
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  pid_t pid = 0;
  std::uint16_t port = 0;
};

}  // namespace arbroker
