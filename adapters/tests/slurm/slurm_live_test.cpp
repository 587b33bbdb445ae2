// Integration tests of the Slurm adapter against live daemons: the test-only instance that
// the ctest fixture starts (scripts/slurm/start.sh arbtest --cpus 8 --nodes 2, see
// adapters/CMakeLists.txt). Each test leaves the cluster without jobs or test
// reservations. Waits poll a real condition with a bound, never a fixed sleep.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "arbroker/adapters/slurm_lrms.hpp"

namespace arbroker {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

// The fixture's instances (adapters/CMakeLists.txt): arbtest with 8 CPUs on two nodes for
// most tests, arbtest2 with 4 CPUs for the two-clusters test.
const std::string run_dir = ARB_SLURM_RUN_DIR;
const std::string instance = "arbtest";
const std::string instance_dir = run_dir + "/" + instance;
const std::string conf = instance_dir + "/slurm.conf";
const std::string conf2 = run_dir + "/arbtest2/slurm.conf";
const std::string prefix = "arbt-";
constexpr int cluster_cpus = 8;

slurm_options test_options(const std::string& slurm_conf = conf) {
  slurm_options o;
  o.conf = slurm_conf;
  o.prefix = prefix;
  o.job_dir = instance_dir + "/jobs";
  return o;
}

/// Runs a Slurm command (or a script) against the test instance; returns its exit code.
int shell(const std::string& command) {
  const std::string line = "SLURM_CONF=" + conf + " " + command + " >/dev/null 2>&1";
  const int rc = std::system(line.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// Polls `done` every 50 ms until it holds or `limit` has passed.
bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = clock_type::now() + limit;
  while (!done()) {
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

timestamp now() {
  return std::time(nullptr);
}

const lrms_reservation* find_reservation(const lrms_snapshot& s, const std::string& id) {
  auto it = std::find_if(s.reservations.begin(), s.reservations.end(),
                         [&](const lrms_reservation& r) { return r.id == id; });
  return it == s.reservations.end() ? nullptr : &*it;
}

const lrms_job* find_job(const std::vector<lrms_job>& jobs, const std::string& id) {
  auto it = std::find_if(jobs.begin(), jobs.end(), [&](const lrms_job& j) { return j.id == id; });
  return it == jobs.end() ? nullptr : &*it;
}

/// A job that sleeps; np CPUs, a walltime of `minutes`.
job_spec sleeper(int np, int minutes, std::optional<std::string> reservation = {}) {
  return {"arbt-sleep",
          "root",
          np,
          minutes * 60,
          std::move(reservation),
          "sleep " + std::to_string(minutes * 60)};
}

class SlurmLive : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(instance_dir + "/jobs");
    for (const auto& c : {conf, conf2}) {
      ASSERT_TRUE(std::filesystem::exists(c)) << c << " missing: is the fixture running?";
      clean(c);
    }
  }
  void TearDown() override {
    clean(conf);
    clean(conf2);
  }

  /// Cancels every job and deletes every test reservation (ours and the "admin" ones).
  void clean(const std::string& slurm_conf) {
    slurm_lrms s(test_options(slurm_conf));
    auto snap = s.snapshot();
    ASSERT_TRUE(snap) << to_string(snap.err());
    for (const auto* jobs : {&snap->running, &snap->queued})
      for (const auto& j : *jobs)
        (void)s.cancel_job(j.id);
    ASSERT_TRUE(wait_until(
        [&] {
          auto now_snap = s.snapshot();
          return now_snap && now_snap->running.empty() && now_snap->queued.empty();
        },
        20s));
    for (const auto& r : snap->reservations) {
      if (r.name.starts_with(prefix)) {
        // Jobs just cancelled may still hold the reservation for a moment.
        ASSERT_TRUE(wait_until(
            [&] {
              auto st = s.delete_reservation(r.id);
              return st || st.err().code == errc::not_found;
            },
            20s))
            << r.id;
      } else if (r.name.starts_with("arbtadmin")) {
        shell("scontrol delete reservation " + r.name);
      }
    }
  }

  /// Waits until job `id` is in state `want` (bounded); returns the last state seen.
  lrms_job_state wait_state(slurm_lrms& s, const std::string& id, lrms_job_state want,
                            std::chrono::milliseconds limit = 30s) {
    lrms_job_state last = lrms_job_state::failed;
    wait_until(
        [&] {
          auto st = s.job_status(id);
          if (st) last = *st;
          return st && *st == want;
        },
        limit);
    return last;
  }

  slurm_lrms s_{test_options()};
};

TEST_F(SlurmLive, CreateListDelete) {
  const timestamp start = now() + 3600;
  auto id = s_.create_reservation({"cld", "root", start, 600, 3});
  ASSERT_TRUE(id) << to_string(id.err());
  EXPECT_EQ(*id, prefix + "cld");

  auto snap = s_.snapshot();
  ASSERT_TRUE(snap) << to_string(snap.err());
  EXPECT_EQ(snap->cpus, cluster_cpus);
  EXPECT_EQ(snap->max_walltime, 2 * 86400);  // the partition's MaxTime (start.sh)
  EXPECT_EQ(snap->sizes.bunch, 1);
  EXPECT_LE(std::abs(snap->now - now()), 5);
  const auto* r = find_reservation(*snap, *id);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r, (lrms_reservation{*id, *id, "root", start, start + 600, 3}));

  auto mine = s_.owned_reservations();
  ASSERT_TRUE(mine);
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_EQ(mine->front().id, *id);

  ASSERT_TRUE(s_.delete_reservation(*id));
  snap = s_.snapshot();
  ASSERT_TRUE(snap);
  EXPECT_EQ(find_reservation(*snap, *id), nullptr);

  auto again = s_.delete_reservation(*id);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.err().code, errc::not_found);
  EXPECT_NE(again.err().message.find("Requested reservation is invalid"), std::string::npos)
      << again.err().message;
}

TEST_F(SlurmLive, DuplicateNameIsAnLrmsFailure) {
  const timestamp start = now() + 3600;
  ASSERT_TRUE(s_.create_reservation({"dup", "root", start, 600, 1}));
  auto twice = s_.create_reservation({"dup", "root", start + 7200, 600, 1});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.err().code, errc::lrms_failure);
  EXPECT_NE(twice.err().message.find("Duplicate reservation name"), std::string::npos)
      << twice.err().message;
}

TEST_F(SlurmLive, BusyWhenReservationsFillTheCluster) {
  const timestamp start = now() + 3600;
  ASSERT_TRUE(s_.create_reservation({"big", "root", start, 1200, 6}));
  // Overlapping the second half of "big": only 2 CPUs are left there.
  auto over = s_.create_reservation({"over", "root", start + 600, 1200, 3});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.err().code, errc::busy);
  EXPECT_NE(over.err().message.find("Requested nodes are busy"), std::string::npos)
      << over.err().message;
  EXPECT_TRUE(s_.create_reservation({"fits", "root", start + 600, 1200, 2}));
  // After "big" ends there is room again.
  EXPECT_TRUE(s_.create_reservation({"after", "root", start + 1200, 600, 6}));
  // More CPUs than the cluster has: Slurm says busy too.
  auto huge = s_.create_reservation({"huge", "root", start + 7200, 600, cluster_cpus + 1});
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.err().code, errc::busy);
}

TEST_F(SlurmLive, BusyWhenRunningJobsHoldTheCpus) {
  auto job = s_.submit_job(sleeper(6, 10));
  ASSERT_TRUE(job) << to_string(job.err());
  ASSERT_EQ(wait_state(s_, *job, lrms_job_state::running), lrms_job_state::running);
  // The job holds 6 CPUs for up to 10 minutes.
  auto during = s_.create_reservation({"during", "root", now() + 120, 600, 4});
  ASSERT_FALSE(during);
  EXPECT_EQ(during.err().code, errc::busy);
  EXPECT_TRUE(s_.create_reservation({"beside", "root", now() + 120, 600, 2}));
  EXPECT_TRUE(s_.create_reservation({"later", "root", now() + 15 * 60, 600, 6}));
}

TEST_F(SlurmLive, OverlapWithAWholeNodeReservationIsBusy) {
  const timestamp start = now() + 3600;
  char when[32];
  const std::time_t t = start;
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
  ASSERT_EQ(shell(std::string("scontrol create reservation reservationname=arbtadmin starttime=") +
                  when + " duration=20 users=root nodes=ALL"),
            0);
  auto r = s_.create_reservation({"under-admin", "root", start + 60, 600, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::busy);
  // Not arbroker's: the adapter neither deletes nor modifies it.
  EXPECT_EQ(s_.delete_reservation("arbtadmin").err().code, errc::permission_denied);
  auto snap = s_.snapshot();
  ASSERT_TRUE(snap);
  const auto* admin = find_reservation(*snap, "arbtadmin");
  ASSERT_NE(admin, nullptr);
  EXPECT_EQ(admin->np, cluster_cpus);
  auto mine = s_.owned_reservations();
  ASSERT_TRUE(mine);
  EXPECT_TRUE(mine->empty());
}

TEST_F(SlurmLive, PastStartIsAnInvalidWindow) {
  // Refused by the adapter...
  auto r = s_.create_reservation({"past", "root", now() - 3600, 600, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_window);
  // ... and by Slurm, which accepts up to ten minutes in the past.
  auto lenient_options = test_options();
  lenient_options.past_start_tolerance = 1000000;
  slurm_lrms lenient(lenient_options);
  r = lenient.create_reservation({"past", "root", now() - 3600, 600, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_window);
  EXPECT_NE(r.err().message.find("Invalid time specified"), std::string::npos) << r.err().message;
}

TEST_F(SlurmLive, UnknownUserIsPermissionDenied) {
  auto r = s_.create_reservation({"nobody", "arbroker-no-such-user", now() + 3600, 600, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::permission_denied);
  EXPECT_NE(r.err().message.find("Invalid user id"), std::string::npos) << r.err().message;
}

TEST_F(SlurmLive, ModifyReplacesTheReservation) {
  const timestamp start = now() + 3600;
  auto id = s_.create_reservation({"mod", "root", start, 600, 2});
  ASSERT_TRUE(id);
  auto moved = s_.modify_reservation(*id, {"mod", "root", start + 900, 1200, 5});
  ASSERT_TRUE(moved) << to_string(moved.err());
  EXPECT_EQ(*moved, prefix + "mod~1");
  auto snap = s_.snapshot();
  ASSERT_TRUE(snap);
  EXPECT_EQ(find_reservation(*snap, *id), nullptr);
  const auto* r = find_reservation(*snap, *moved);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r, (lrms_reservation{*moved, *moved, "root", start + 900, start + 2100, 5}));
  // Modified again: the next generation.
  auto again = s_.modify_reservation(*moved, {"mod", "root", start, 600, 1});
  ASSERT_TRUE(again) << to_string(again.err());
  EXPECT_EQ(*again, prefix + "mod~2");
}

TEST_F(SlurmLive, FailedModifyLeavesTheOldReservation) {
  const timestamp start = now() + 3600;
  auto a = s_.create_reservation({"a", "root", start, 600, 4});
  ASSERT_TRUE(a);
  ASSERT_TRUE(s_.create_reservation({"b", "root", start, 600, 4}));
  // Growing "a" to 6 CPUs cannot fit next to "b" (make-before-break needs 4 + 6 + 4 > 8).
  auto grown = s_.modify_reservation(*a, {"a", "root", start, 600, 6});
  ASSERT_FALSE(grown);
  EXPECT_EQ(grown.err().code, errc::busy);
  EXPECT_NE(grown.err().message.find("is unchanged"), std::string::npos) << grown.err().message;
  // A past start: refused, old one intact.
  auto past = s_.modify_reservation(*a, {"a", "root", now() - 3600, 600, 1});
  ASSERT_FALSE(past);
  EXPECT_EQ(past.err().code, errc::invalid_window);
  // Unknown old reservation: the successor is undone.
  auto ghost = s_.modify_reservation(prefix + "ghost", {"ghost", "root", start + 7200, 60, 1});
  ASSERT_FALSE(ghost);
  EXPECT_EQ(ghost.err().code, errc::not_found);

  auto snap = s_.snapshot();
  ASSERT_TRUE(snap);
  const auto* r = find_reservation(*snap, *a);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r, (lrms_reservation{*a, *a, "root", start, start + 600, 4}));
  auto mine = s_.owned_reservations();
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->size(), 2u);  // "a" and "b": no successor left behind
}

TEST_F(SlurmLive, JobBoundToAReservationRunsInsideIt) {
  // The reservation starts in a few seconds; the job waits for it, then runs in it.
  const timestamp start = now() + 4;
  auto id = s_.create_reservation({"run", "root", start, 300, 4});
  ASSERT_TRUE(id);
  auto job = s_.submit_job(sleeper(4, 2, *id));
  ASSERT_TRUE(job) << to_string(job.err());
  auto snap = s_.snapshot();
  ASSERT_TRUE(snap);
  if (now() < start) {
    const auto* queued = find_job(snap->queued, *job);
    ASSERT_NE(queued, nullptr);
    EXPECT_EQ(queued->reservation, *id);
    EXPECT_EQ(queued->np, 4);
    EXPECT_EQ(queued->walltime, 120);
  }
  ASSERT_EQ(wait_state(s_, *job, lrms_job_state::running), lrms_job_state::running);
  snap = s_.snapshot();
  ASSERT_TRUE(snap);
  const auto* running = find_job(snap->running, *job);
  ASSERT_NE(running, nullptr);
  EXPECT_EQ(running->reservation, *id);
  EXPECT_EQ(running->owner, "root");
  ASSERT_TRUE(running->started);
  EXPECT_GE(*running->started, start);
  // Jobs bound to it keep it: in_use.
  auto del = s_.delete_reservation(*id);
  ASSERT_FALSE(del);
  EXPECT_EQ(del.err().code, errc::in_use);
  EXPECT_NE(del.err().message.find("Requested reservation is in use"), std::string::npos)
      << del.err().message;
  // So does a modify (make-before-break cannot delete the old one): undone, in_use.
  auto moved = s_.modify_reservation(*id, {"run", "root", start + 3600, 300, 4});
  ASSERT_FALSE(moved);
  EXPECT_EQ(moved.err().code, errc::in_use);
  EXPECT_EQ(s_.owned_reservations()->size(), 1u);

  ASSERT_TRUE(s_.cancel_job(*job));
  EXPECT_EQ(wait_state(s_, *job, lrms_job_state::cancelled), lrms_job_state::cancelled);
  EXPECT_TRUE(wait_until([&] { return bool(s_.delete_reservation(*id)); }, 20s));
}

// Paper 002's overrun quantum: the reservation ends later in place (same name, no successor)
// and the running job's time limit follows it, so Slurm does not end the job at the old end.
TEST_F(SlurmLive, ExtendLetsTheRunningJobRunPastTheOldEnd) {
  auto id = s_.create_reservation({"ext", "root", now() + 2, 180, 4});
  ASSERT_TRUE(id) << to_string(id.err());
  auto job = s_.submit_job(sleeper(4, 3, *id));  // its limit ends with the reservation
  ASSERT_TRUE(job) << to_string(job.err());
  ASSERT_EQ(wait_state(s_, *job, lrms_job_state::running), lrms_job_state::running);
  auto before = s_.snapshot();
  ASSERT_TRUE(before);
  const auto* r = find_reservation(*before, *id);
  ASSERT_NE(r, nullptr);
  const timestamp old_end = r->end;

  auto earlier = s_.extend_reservation(*id, old_end - 10);
  ASSERT_FALSE(earlier);
  EXPECT_EQ(earlier.err().code, errc::invalid_window);
  auto unknown = s_.extend_reservation(prefix + "no-such", old_end + 600);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err().code, errc::not_found);

  ASSERT_TRUE(s_.extend_reservation(*id, old_end + 600));
  auto after = s_.snapshot();
  ASSERT_TRUE(after);
  r = find_reservation(*after, *id);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->end, old_end + 600);
  EXPECT_EQ(s_.owned_reservations()->size(), 1u);  // in place
  const auto* j = find_job(after->running, *job);
  ASSERT_NE(j, nullptr);
  ASSERT_TRUE(j->started);
  EXPECT_GE(*j->started + j->walltime, old_end + 600);  // whole minutes, at least to the end
  EXPECT_LT(*j->started + j->walltime, old_end + 600 + 60);
}

TEST_F(SlurmLive, JobRunsToCompletion) {
  auto job = s_.submit_job({"arbt-true", "root", 1, 60, {}, "exit 0"});
  ASSERT_TRUE(job);
  EXPECT_EQ(wait_state(s_, *job, lrms_job_state::completed), lrms_job_state::completed);
  auto failing = s_.submit_job({"arbt-false", "root", 1, 60, {}, "exit 3"});
  ASSERT_TRUE(failing);
  EXPECT_EQ(wait_state(s_, *failing, lrms_job_state::failed), lrms_job_state::failed);
}

// A begin time (sbatch --begin): the job stays pending on idle CPUs until then, is read back
// with it, and starts no earlier.
TEST_F(SlurmLive, AJobWithABeginTimeWaitsForIt) {
  auto later = sleeper(1, 5);
  later.not_before = now() + 3600;
  auto held = s_.submit_job(later);
  ASSERT_TRUE(held) << held.err().message;
  auto soon = sleeper(1, 5);
  soon.not_before = now() + 3;
  auto next = s_.submit_job(soon);
  ASSERT_TRUE(next) << next.err().message;
  auto snap = s_.jobs_snapshot();
  ASSERT_TRUE(snap) << snap.err().message;
  const auto* h = find_job(snap->queued, *held);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->not_before, later.not_before);
  ASSERT_EQ(wait_state(s_, *next, lrms_job_state::running), lrms_job_state::running);
  snap = s_.jobs_snapshot();
  ASSERT_TRUE(snap) << snap.err().message;
  const auto* n = find_job(snap->running, *next);
  ASSERT_NE(n, nullptr);
  ASSERT_TRUE(n->started);
  EXPECT_GE(*n->started, soon.not_before);
  EXPECT_EQ(s_.job_status(*held).value(), lrms_job_state::queued);  // CPUs idle, not its time
  EXPECT_TRUE(s_.cancel_job(*held));
  EXPECT_TRUE(s_.cancel_job(*next));
}

TEST_F(SlurmLive, CancelAndUnknownJobs) {
  auto job = s_.submit_job(sleeper(1, 5));
  ASSERT_TRUE(job);
  ASSERT_EQ(wait_state(s_, *job, lrms_job_state::running), lrms_job_state::running);
  ASSERT_TRUE(s_.cancel_job(*job));
  EXPECT_EQ(wait_state(s_, *job, lrms_job_state::cancelled), lrms_job_state::cancelled);
  // Cancelling an ended job again is fine; an unknown job is not_found (scancel says 0).
  EXPECT_TRUE(s_.cancel_job(*job));
  auto unknown = s_.cancel_job("987654");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err().code, errc::not_found);
  EXPECT_NE(unknown.err().message.find("Invalid job id"), std::string::npos)
      << unknown.err().message;
  EXPECT_EQ(s_.job_status("987654").err().code, errc::not_found);
}

TEST_F(SlurmLive, SnapshotShowsRunningAndQueuedJobsInOrder) {
  auto big = s_.submit_job(sleeper(cluster_cpus, 10));
  ASSERT_TRUE(big);
  ASSERT_EQ(wait_state(s_, *big, lrms_job_state::running), lrms_job_state::running);
  auto first = s_.submit_job(sleeper(2, 3));
  auto second = s_.submit_job(sleeper(3, 4));
  ASSERT_TRUE(first && second);
  const auto id = s_.create_reservation({"snap", "root", now() + 3 * 3600, 600, 2});
  ASSERT_TRUE(id);
  auto snap = s_.snapshot();
  ASSERT_TRUE(snap);
  ASSERT_EQ(snap->running.size(), 1u);
  EXPECT_EQ(snap->running[0].id, *big);
  EXPECT_EQ(snap->running[0].np, cluster_cpus);
  EXPECT_EQ(snap->running[0].walltime, 600);
  ASSERT_TRUE(snap->running[0].started);
  EXPECT_LE(*snap->running[0].started, snap->now);
  ASSERT_EQ(snap->queued.size(), 2u);
  EXPECT_EQ(snap->queued[0].id, *first);
  EXPECT_EQ(snap->queued[1].id, *second);
  EXPECT_EQ(snap->queued[1].np, 3);
  EXPECT_EQ(snap->queued[1].walltime, 240);
  EXPECT_FALSE(snap->queued[0].started);
  ASSERT_NE(find_reservation(*snap, *id), nullptr);
  // The jobs alone: the same jobs in the same order, no reservation loaded.
  auto jobs = s_.jobs_snapshot();
  ASSERT_TRUE(jobs) << jobs.err().message;
  EXPECT_EQ(jobs->running, snap->running);
  EXPECT_EQ(jobs->queued, snap->queued);
  EXPECT_EQ(jobs->cpus, snap->cpus);
  EXPECT_TRUE(jobs->reservations.empty());
  // The core's view: 10 minutes left (minus what already ran) for the big job.
  auto w = to_workload(*snap);
  ASSERT_EQ(w.running.size(), 1u);
  EXPECT_GT(w.running[0].remaining, 500);
  EXPECT_EQ(w.queued.size(), 2u);
}

TEST_F(SlurmLive, NewAdapterRediscoversItsReservations) {
  const timestamp start = now() + 3600;
  std::vector<std::string> ids;
  {
    slurm_lrms before(test_options());
    for (const char* name : {"keep1", "keep2"}) {
      auto id = before.create_reservation({name, "root", start, 600, 1});
      ASSERT_TRUE(id);
      ids.push_back(*id);
    }
  }
  slurm_lrms after(test_options());
  auto mine = after.owned_reservations();
  ASSERT_TRUE(mine);
  std::vector<std::string> found;
  for (const auto& r : *mine)
    found.push_back(r.id);
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, ids);
  // Another prefix owns none of them.
  auto other_options = test_options();
  other_options.prefix = "other-";
  slurm_lrms other(other_options);
  auto theirs = other.owned_reservations();
  ASSERT_TRUE(theirs);
  EXPECT_TRUE(theirs->empty());
}

TEST_F(SlurmLive, TwoClustersInOneProcess) {
  // One process, two independent clusters: libslurm is re-pointed at each call's cluster.
  slurm_lrms a(test_options(conf)), b(test_options(conf2));
  const timestamp start = now() + 3600;
  for (int round = 0; round < 3; ++round) {
    auto sa = a.snapshot();
    auto sb = b.snapshot();
    ASSERT_TRUE(sa && sb);
    EXPECT_EQ(sa->cpus, cluster_cpus);
    EXPECT_EQ(sb->cpus, 4);
  }
  auto ra = a.create_reservation({"twin", "root", start, 600, 4});
  auto rb = b.create_reservation({"twin", "root", start, 600, 4});
  ASSERT_TRUE(ra && rb);
  EXPECT_EQ(*ra, *rb);  // the same name on two clusters: two reservations
  auto full = b.create_reservation({"more", "root", start, 600, 1});
  ASSERT_FALSE(full);
  EXPECT_EQ(full.err().code, errc::busy);
  EXPECT_TRUE(a.create_reservation({"more", "root", start, 600, 4}));
  auto job = b.submit_job(sleeper(4, 2));
  ASSERT_TRUE(job);
  EXPECT_EQ(wait_state(b, *job, lrms_job_state::running), lrms_job_state::running);
  auto sa = a.snapshot();
  ASSERT_TRUE(sa);
  EXPECT_TRUE(sa->running.empty());
  EXPECT_EQ(a.owned_reservations()->size(), 2u);
  EXPECT_EQ(b.owned_reservations()->size(), 1u);
}

/// The controller's PID, from the instance's PID file.
pid_t controller_pid() {
  std::ifstream in(instance_dir + "/run/slurmctld.pid");
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

/// True when `pid` has exited (gone, or a zombie nobody has reaped yet).
bool process_gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  const auto paren = stat.rfind(')');
  return paren == std::string::npos || stat.substr(paren + 2, 1) == "Z";
}

/// Restarts the test instance's controller (start.sh is idempotent) and waits for it.
void restart_controller() {
  ASSERT_EQ(shell("ARB_RUN_DIR=" + run_dir + " " + ARB_SLURM_SCRIPTS + "/start.sh " + instance +
                  " --cpus 8 --nodes 2 --port 17917"),
            0);
}

TEST_F(SlurmLive, StoppedControllerIsUnreachableQuicklyAndStateSurvives) {
  auto id = s_.create_reservation({"survivor", "root", now() + 3600, 600, 2});
  ASSERT_TRUE(id);
  const pid_t pid = controller_pid();
  ASSERT_GT(pid, 1);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  ASSERT_TRUE(wait_until([&] { return process_gone(pid); }, 15s));

  slurm_options o = test_options();
  o.message_timeout_s = 2;
  slurm_lrms quick(o);
  auto t0 = clock_type::now();
  auto snap = quick.snapshot();
  auto elapsed = clock_type::now() - t0;
  ASSERT_FALSE(snap);
  EXPECT_EQ(snap.err().code, errc::unreachable) << to_string(snap.err());
  EXPECT_LT(elapsed, 5s);
  t0 = clock_type::now();
  auto created = quick.create_reservation({"while-down", "root", now() + 7200, 600, 1});
  elapsed = clock_type::now() - t0;
  ASSERT_FALSE(created);
  EXPECT_EQ(created.err().code, errc::unreachable) << to_string(created.err());
  EXPECT_LT(elapsed, 5s);

  restart_controller();
  // The controller saved its state: the reservation is still there, and a new adapter
  // finds it by its prefix.
  slurm_lrms after(test_options());
  auto mine = after.owned_reservations();
  ASSERT_TRUE(mine) << to_string(mine.err());
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_EQ(mine->front().id, *id);
}

TEST_F(SlurmLive, HungControllerTimesOut) {
  const pid_t pid = controller_pid();
  ASSERT_GT(pid, 1);
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  // libslurm's message timeout, set low, makes it give up waiting for the reply...
  slurm_options o1 = test_options();
  o1.message_timeout_s = 1;
  slurm_lrms libslurm_bound(o1);
  auto t1 = clock_type::now();
  auto snap1 = libslurm_bound.snapshot();
  auto elapsed1 = clock_type::now() - t1;
  t1 = clock_type::now();
  auto created1 = libslurm_bound.create_reservation({"hung", "root", now() + 7200, 600, 1});
  auto created_elapsed1 = clock_type::now() - t1;
  // ... and the adapter's own bound (call_timeout) ends the wait whatever libslurm does.
  slurm_options o2 = test_options();
  o2.message_timeout_s = 60;
  o2.call_timeout = 1500ms;
  slurm_lrms bounded(o2);
  auto t2 = clock_type::now();
  auto snap2 = bounded.snapshot();
  auto elapsed2 = clock_type::now() - t2;
  ASSERT_EQ(::kill(pid, SIGCONT), 0);

  ASSERT_FALSE(snap1);
  EXPECT_EQ(snap1.err().code, errc::timeout) << to_string(snap1.err());
  EXPECT_LT(elapsed1, 5s);
  ASSERT_FALSE(created1);
  EXPECT_EQ(created1.err().code, errc::timeout) << to_string(created1.err());
  EXPECT_LT(created_elapsed1, 5s);
  ASSERT_FALSE(snap2);
  EXPECT_EQ(snap2.err().code, errc::timeout) << to_string(snap2.err());
  EXPECT_LT(elapsed2, 2500ms);
  // Resumed, it answers again.
  EXPECT_TRUE(wait_until([&] { return bool(s_.snapshot()); }, 30s));
}

// Issue 35 item 4: the adapter publishes the partition's nodes as slurmctld has them, and passes
// a job's needs to Slurm, which keeps the job to the nodes that meet them or refuses it.
TEST_F(SlurmLive, PublishesItsNodesAndPassesAJobsNeeds) {
  slurm_lrms one(test_options()), two(test_options(conf2));
  EXPECT_EQ(*one.node_groups(), (std::vector<node_group>{{2, 4, 1000, {}}}));
  EXPECT_EQ(*two.node_groups(), (std::vector<node_group>{{1, 4, 2000, {"ib", "ssd"}}}));
  auto j = sleeper(2, 1);
  j.needs = {0, 0, {"ib"}, ""};
  auto no_feature = one.submit_job(j);  // arbtest's nodes have none
  ASSERT_FALSE(no_feature);
  EXPECT_NE(no_feature.err().message.find("feature"), std::string::npos)
      << no_feature.err().message;
  j.needs = {0, 0, {"ib", "ssd"}, ""};
  auto id = two.submit_job(j);
  ASSERT_TRUE(id) << to_string(id.err());
  j.needs = {300, 0, {}, ""};
  auto mem = one.submit_job(j);
  ASSERT_TRUE(mem) << to_string(mem.err());
  const auto shown = [](const std::string& slurm_conf, const std::string& job) {
    std::string out;
    const std::string cmd = "SLURM_CONF=" + slurm_conf + " scontrol show job " + job;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, p))
        out += buf;
      ::pclose(p);
    }
    return out;
  };
  EXPECT_NE(shown(conf2, *id).find("Features=ib&ssd "), std::string::npos) << shown(conf2, *id);
  EXPECT_NE(shown(conf, *mem).find("MinMemoryCPU=300M"), std::string::npos) << shown(conf, *mem);
  j.needs = {0, 4000, {}, ""};  // more than any node's 1000 MB
  EXPECT_FALSE(one.submit_job(j));
}

}  // namespace
}  // namespace arbroker
