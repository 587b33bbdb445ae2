#include "arbroker/adapters/subprocess.hpp"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace arbroker {
namespace {

using namespace std::chrono_literals;

process_spec sh(std::string script, std::chrono::milliseconds timeout = 10s) {
  process_spec p;
  p.argv = {"/bin/sh", "-c", std::move(script)};
  p.timeout = timeout;
  return p;
}

/// True when pid no longer runs (gone, or a zombie nobody has reaped yet).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

TEST(RunProcess, ExitCodesAndBothStreams) {
  auto r = run_process(sh("echo out; echo err >&2; exit 3"));
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->signal, 0);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");

  auto t = run_process(sh("true"));
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->ok());
  EXPECT_EQ(t->out, "");
}

TEST(RunProcess, ReportsTheSignalThatEndedTheChild) {
  auto r = run_process(sh("kill -TERM $$"));
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->signal, SIGTERM);
  EXPECT_FALSE(r->ok());
}

TEST(RunProcess, ArgumentsAreNotInterpretedByAShell) {
  process_spec p;
  p.argv = {"printf", "%s|", "a b", "$HOME", "'q'", ";echo x"};
  auto r = run_process(p);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->out, "a b|$HOME|'q'|;echo x|");
}

TEST(RunProcess, TimeoutKillsTheChildAndWhatItStarted) {
  const auto t0 = std::chrono::steady_clock::now();
  // The shell reports its background child's pid, then blocks.
  process_spec p = sh("sleep 30 & echo $! > /tmp/arb_subprocess_test_pid; sleep 30", 300ms);
  auto r = run_process(p);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::timeout);
  EXPECT_NE(r.err().message.find("0.3 s"), std::string::npos) << r.err().message;
  EXPECT_LT(took, 3s);

  std::ifstream f("/tmp/arb_subprocess_test_pid");
  pid_t grandchild = 0;
  ASSERT_TRUE(f >> grandchild);
  std::remove("/tmp/arb_subprocess_test_pid");
  // SIGKILL went to the whole process group; allow the kernel a moment to finish it.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ended(grandchild);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "background child " << grandchild << " survived the timeout";
}

TEST(RunProcess, StrayHoldingThePipesDoesNotHoldTheCaller) {
  // The child exits at once, but a background process keeps stdout open for 30 s.
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_process(sh("sleep 30 & echo done", 20s));
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->out, "done\n");
  EXPECT_LT(took, 5s);
}

TEST(RunProcess, LargeOutputOnBothStreams) {
  // 8 MB on stderr first, then 8 MB on stdout: needs concurrent reading to not deadlock.
  auto r = run_process(sh("head -c 8000000 /dev/zero >&2; head -c 8000000 /dev/zero | tr '\\0' x"));
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->err.size(), 8000000u);
  ASSERT_EQ(r->out.size(), 8000000u);
  EXPECT_EQ(r->out.find_first_not_of('x'), std::string::npos);
}

TEST(RunProcess, LargeInputRoundTrip) {
  std::string input;
  for (int i = 0; input.size() < 4000000; ++i)
    input += std::to_string(i) + "\n";
  process_spec p;
  p.argv = {"cat"};
  p.input = input;
  auto r = run_process(p);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->out, input);
}

TEST(RunProcess, ChildThatIgnoresItsInputIsNoProblem) {
  process_spec p = sh("exit 0");
  p.input = std::string(4000000, 'y');  // more than a socket buffer holds
  auto r = run_process(p);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->ok());
}

TEST(RunProcess, NoInputMeansDevNull) {
  auto r = run_process(sh("cat; echo end"));
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->out, "end\n");
}

TEST(RunProcess, EnvironmentAndWorkingDirectory) {
  process_spec p = sh("echo \"$ARB_A $ARB_B\"; pwd");
  p.env = {{"ARB_A", "one"}, {"ARB_B", "two"}, {"ARB_A", "three"}};
  p.cwd = "/tmp";
  auto r = run_process(p);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->out, "three two\n/tmp\n");
  // The caller's environment is inherited.
  process_spec q = sh("echo \"$PATH\"");
  auto s = run_process(q);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->out, std::string(std::getenv("PATH")) + "\n");
}

TEST(RunProcess, MissingOrUnrunnablePrograms) {
  process_spec p;
  auto none = run_process(p);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.err().code, errc::invalid_parameter);

  p.argv = {"/nonexistent/arb-prog"};
  auto missing = run_process(p);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.err().code, errc::not_found);
  EXPECT_NE(missing.err().message.find("/nonexistent/arb-prog"), std::string::npos);

  p.argv = {"arb-no-such-program-anywhere"};
  auto unknown = run_process(p);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err().code, errc::not_found);

  p.argv = {"/etc/passwd"};  // exists, not executable
  auto denied = run_process(p);
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.err().code, errc::permission_denied);

  p.argv = {"/bin/true"};
  p.cwd = "/nonexistent-dir";
  auto bad_cwd = run_process(p);
  ASSERT_FALSE(bad_cwd);
}

TEST(LookupUser, KnownAndUnknown) {
  auto root = lookup_user("root");
  ASSERT_TRUE(root) << root.err().message;
  EXPECT_EQ(root->uid, 0u);
  EXPECT_EQ(root->home, "/root");
  auto nobody = lookup_user("arb-no-such-user");
  ASSERT_FALSE(nobody);
  EXPECT_EQ(nobody.err().code, errc::permission_denied);
}

TEST(RunProcess, RunsAsAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  auto user = lookup_user("nobody");
  ASSERT_TRUE(user) << user.err().message;
  process_spec p = sh("id -u; id -g; echo $USER; cat");
  p.user = *user;
  p.cwd = "/tmp";
  p.input = "in\n";
  auto r = run_process(p);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->ok()) << r->err;
  EXPECT_EQ(r->out,
            std::to_string(user->uid) + "\n" + std::to_string(user->gid) + "\nnobody\nin\n");

  p.cwd = "/nonexistent-dir";
  auto bad_cwd = run_process(p);
  ASSERT_FALSE(bad_cwd);
  EXPECT_EQ(bad_cwd.err().code, errc::not_found);

  p.cwd = "/tmp";
  p.argv = {"/nonexistent/arb-prog"};
  auto missing = run_process(p);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.err().code, errc::not_found);

  p = sh("sleep 30", 200ms);
  p.user = *user;
  auto slow = run_process(p);
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.err().code, errc::timeout);
}

}  // namespace
}  // namespace arbroker
