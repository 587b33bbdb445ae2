#include "arbroker/adapters/subprocess.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>

extern char** environ;

namespace arbroker {
namespace {

using clock = std::chrono::steady_clock;

std::string errno_text(int e) {
  return std::strerror(e);
}

/// A file descriptor closed on scope exit.
class fd_guard {
 public:
  fd_guard() = default;
  explicit fd_guard(int fd) : fd_(fd) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() { reset(); }
  int get() const noexcept { return fd_; }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// The executable for argv[0]: itself when it names a path, else the first match in PATH.
std::optional<std::string> resolve(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return prog;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + prog;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

/// The child's environment: the caller's, with the spec's variables (and HOME/USER/LOGNAME
/// of a switched user) replaced or added.
std::vector<std::string> child_environment(const process_spec& spec) {
  std::vector<std::pair<std::string, std::string>> set = spec.env;
  if (spec.user) {
    set.emplace_back("HOME", spec.user->home);
    set.emplace_back("USER", spec.user->name);
    set.emplace_back("LOGNAME", spec.user->name);
  }
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [k, v] : set)
      overridden = overridden || k == key;
    if (!overridden) env.emplace_back(entry);
  }
  for (std::size_t i = 0; i < set.size(); ++i) {
    bool later = false;  // the last setting of a variable wins
    for (std::size_t j = i + 1; j < set.size(); ++j)
      later = later || set[j].first == set[i].first;
    if (!later) env.push_back(set[i].first + "=" + set[i].second);
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> p;
  p.reserve(v.size() + 1);
  for (auto& s : v)
    p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

error spawn_error(const std::string& what, int e) {
  if (e == ENOENT || e == ENOTDIR)
    return fail(errc::not_found, "cannot run " + what + ": " + errno_text(e));
  if (e == EACCES || e == EPERM)
    return fail(errc::permission_denied, "cannot run " + what + ": " + errno_text(e));
  return fail(errc::lrms_failure, "cannot run " + what + ": " + errno_text(e));
}

/// The pipes between parent and child. stdin is a socket pair so that writing to a child
/// that stopped reading gives EPIPE (send with MSG_NOSIGNAL) instead of SIGPIPE.
struct channels {
  fd_guard in_parent, in_child;  // stdin (socket pair) when there is input
  fd_guard out_parent, out_child, err_parent, err_child;
};

status open_channels(const process_spec& spec, channels& c) {
  int p[2];
  if (spec.input) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0)
      return fail(errc::lrms_failure, "socketpair: " + errno_text(errno));
    c.in_parent.reset(p[0]);
    c.in_child.reset(p[1]);
    ::shutdown(p[0], SHUT_RD);
  }
  if (::pipe2(p, O_CLOEXEC) != 0) return fail(errc::lrms_failure, "pipe: " + errno_text(errno));
  c.out_parent.reset(p[0]);
  c.out_child.reset(p[1]);
  if (::pipe2(p, O_CLOEXEC) != 0) return fail(errc::lrms_failure, "pipe: " + errno_text(errno));
  c.err_parent.reset(p[0]);
  c.err_child.reset(p[1]);
  for (int fd : {c.in_parent.get(), c.out_parent.get(), c.err_parent.get()})
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return {};
}

/// Starts the child with posix_spawn (no user switch). Returns its pid.
result<pid_t> spawn_plain(const std::string& path, const process_spec& spec, channels& c,
                          char* const* argv, char* const* envp) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  if (c.in_child.get() >= 0)
    posix_spawn_file_actions_adddup2(&fa, c.in_child.get(), 0);
  else
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, c.out_child.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, c.err_child.get(), 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, path.c_str(), &fa, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return spawn_error(path, rc);
  return pid;
}

/// Starts the child with fork/exec, switching to spec.user first. Between fork and exec the
/// child makes only async-signal-safe calls; an exec failure comes back through a pipe.
result<pid_t> spawn_as_user(const std::string& path, const process_spec& spec, channels& c,
                            char* const* argv, char* const* envp) {
  const process_user& u = *spec.user;
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return fail(errc::lrms_failure, "pipe: " + errno_text(errno));
  fd_guard report_read(report[0]), report_write(report[1]);
  const int in_fd = c.in_child.get();
  const int out_fd = c.out_child.get();
  const int err_fd = c.err_child.get();
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  const pid_t pid = ::fork();
  if (pid < 0) return fail(errc::lrms_failure, "fork: " + errno_text(errno));
  if (pid == 0) {
    auto die = [&](int step) {
      const std::array<int, 2> msg{step, errno};
      [[maybe_unused]] auto n = ::write(report[1], msg.data(), sizeof msg);
      ::_exit(127);
    };
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s = 1; s < NSIG; ++s)
      ::signal(s, SIG_DFL);
    const int in = in_fd >= 0 ? in_fd : ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) die(0);
    if (::setgroups(u.groups.size(), u.groups.data()) != 0) die(1);
    if (::setgid(u.gid) != 0) die(1);
    if (::setuid(u.uid) != 0) die(1);
    if (cwd != nullptr && ::chdir(cwd) != 0) die(2);
    ::execve(path.c_str(), argv, envp);
    die(3);
  }
  report_write.reset();
  std::array<int, 2> msg{};
  ssize_t n;
  do
    n = ::read(report_read.get(), msg.data(), sizeof msg);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return pid;  // exec succeeded: the pipe closed on exec
  int st;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  switch (msg[0]) {
    case 1:
      return fail(errc::permission_denied,
                  "cannot run " + path + " as " + u.name + ": " + errno_text(msg[1]));
    case 2:
      return fail(errc::not_found, "cannot change to " + spec.cwd + ": " + errno_text(msg[1]));
    case 3:
      return spawn_error(path, msg[1]);
    default:
      return fail(errc::lrms_failure, "cannot set up " + path + ": " + errno_text(msg[1]));
  }
}

/// Reads what is available on fd into buf; false at end of file.
bool drain(int fd, std::string& buf) {
  char chunk[65536];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buf.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;  // other errors end the stream too
  }
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

std::string seconds_text(std::chrono::milliseconds ms) {
  const auto n = ms.count();
  std::string s = std::to_string(n / 1000);
  if (n % 1000 != 0) {
    std::string frac = std::to_string(n % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    while (frac.back() == '0')
      frac.pop_back();
    s += "." + frac;
  }
  return s + " s";
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

result<process_user> lookup_user(const std::string& name) {
  if (name.empty()) return fail(errc::permission_denied, "no user name given");
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size > 0 ? static_cast<std::size_t>(size) : 16384);
  passwd pw{};
  passwd* found = nullptr;
  int rc;
  while ((rc = ::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found)) == ERANGE)
    buf.resize(buf.size() * 2);
  if (rc != 0)
    return fail(errc::lrms_failure, "cannot look up user " + name + ": " + errno_text(rc));
  if (found == nullptr) return fail(errc::permission_denied, "no such user: " + name);
  process_user u{pw.pw_name, pw.pw_uid, pw.pw_gid, {}, pw.pw_dir != nullptr ? pw.pw_dir : "/"};
  int count = 32;
  u.groups.resize(static_cast<std::size_t>(count));
  while (::getgrouplist(pw.pw_name, pw.pw_gid, u.groups.data(), &count) < 0)
    u.groups.resize(static_cast<std::size_t>(count) + 32),
        count = static_cast<int>(u.groups.size());
  u.groups.resize(static_cast<std::size_t>(count));
  return u;
}

result<process_output> run_process(const process_spec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty())
    return fail(errc::invalid_parameter, "run_process: no program given");
  const std::string& prog = spec.argv[0];
  const auto path = resolve(prog);
  if (!path) return fail(errc::not_found, "cannot run " + prog + ": not found in PATH");
  if (spec.user && ::geteuid() != 0 && spec.user->uid != ::geteuid())
    return fail(errc::permission_denied,
                "cannot run " + prog + " as " + spec.user->name + ": not running as root");

  if (!spec.cwd.empty()) {
    struct stat st {};
    if (::stat(spec.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return fail(errc::not_found,
                  "cannot run " + prog + " in " + spec.cwd + ": no such directory");
  }

  const auto deadline = clock::now() + spec.timeout;
  channels c;
  if (auto s = open_channels(spec, c); !s) return s.err();
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = child_environment(spec);
  auto argv = c_strings(args);
  auto envp = c_strings(env);
  auto started = spec.user ? spawn_as_user(*path, spec, c, argv.data(), envp.data())
                           : spawn_plain(*path, spec, c, argv.data(), envp.data());
  if (!started) return started.err();
  const pid_t pid = *started;
  c.in_child.reset();
  c.out_child.reset();
  c.err_child.reset();

  process_output result_out;
  const std::string& input = spec.input ? *spec.input : std::string();
  std::size_t written = 0;
  if (c.in_parent.get() >= 0 && input.empty()) c.in_parent.reset();
  fd_guard pidfd(open_pidfd(pid));
  bool out_open = true, err_open = true, exited = false, timed_out = false;
  // Whether the child has ended, without reaping it: while it is an unreaped zombie its pid
  // (and so its process group id) cannot be reused, so killing the group stays safe.
  auto has_exited = [&] {
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0)
      if (errno != EINTR) return true;  // cannot happen for our own child; do not spin
    return info.si_pid == pid;
  };
  // Once the child has exited, a grandchild may still hold the pipes: wait for their end
  // for at most this long.
  std::optional<clock::time_point> drain_until;

  while (out_open || err_open || !exited) {
    const auto now = clock::now();
    if (now >= deadline) {
      timed_out = !exited;
      break;
    }
    if (drain_until && now >= *drain_until) break;
    std::array<pollfd, 4> fds{};
    nfds_t n = 0;
    const auto add = [&](int fd, short events) {
      fds[n].fd = fd;
      fds[n].events = events;
      ++n;
    };
    if (out_open) add(c.out_parent.get(), POLLIN);
    if (err_open) add(c.err_parent.get(), POLLIN);
    if (c.in_parent.get() >= 0) add(c.in_parent.get(), POLLOUT);
    const bool watch_pidfd = !exited && pidfd.get() >= 0;
    if (watch_pidfd) add(pidfd.get(), POLLIN);
    auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(
        (drain_until ? std::min(deadline, *drain_until) : deadline) - now);
    // Without a pidfd (old kernels) the child's exit is noticed by polling waitpid.
    if (!exited && pidfd.get() < 0) limit = std::min(limit, std::chrono::milliseconds(10));
    const int ready = ::poll(fds.data(), n, static_cast<int>(limit.count()) + 1);
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n && ready > 0; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == c.out_parent.get()) {
        out_open = drain(fds[i].fd, result_out.out);
      } else if (fds[i].fd == c.err_parent.get()) {
        err_open = drain(fds[i].fd, result_out.err);
      } else if (fds[i].fd == c.in_parent.get()) {
        const ssize_t w = ::send(fds[i].fd, input.data() + written, input.size() - written,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) ||
            written == input.size())
          c.in_parent.reset();  // done, or the child closed its end (EPIPE)
      }
    }
    if (!exited && (pidfd.get() < 0 || (watch_pidfd && ready > 0 && fds[n - 1].revents != 0))) {
      exited = has_exited();
      if (exited && (out_open || err_open))
        drain_until = std::min(deadline, clock::now() + std::chrono::seconds(1));
    }
  }
  c.in_parent.reset();
  // Kill what is left of the group: the child on a timeout, strays holding the pipes else.
  ::kill(-pid, SIGKILL);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return fail(errc::timeout, command_line(spec.argv) + ": no answer within " +
                                   seconds_text(spec.timeout) + "; killed");
  if (WIFSIGNALED(wait_status)) {
    result_out.signal = WTERMSIG(wait_status);
    result_out.exit_code = -1;
  } else {
    result_out.exit_code = WEXITSTATUS(wait_status);
  }
  return result_out;
}

}  // namespace arbroker
