// Integration tests of gridengine_lrms against the live one-host cell that
// scripts/gridengine/start.sh --slots 8 runs (ctest starts it as a fixture). Every test
// cleans up the reservations it made (name prefix "arbtest-") before and after it runs.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include "arbroker/adapters/gridengine_lrms.hpp"

namespace arbroker {
namespace {

using namespace std::chrono_literals;

constexpr int cluster_slots = 8;  // start.sh --slots 8 (adapters/gridengine.cmake)
const std::string scripts = ARB_GRIDENGINE_SCRIPTS;

timestamp now() {
  return static_cast<timestamp>(std::time(nullptr));
}

gridengine_config test_config() {
  gridengine_config c;
  c.name_prefix = "arbtest-";
  return c;
}

/// Another broker's reservations, on the same cell.
gridengine_config other_config() {
  gridengine_config c;
  c.name_prefix = "arbtest2-";
  return c;
}

/// Polls `done` until it holds or `limit` passes; true when it held.
bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(200ms);
  }
  return done();
}

pid_t qmaster_pid() {
  std::ifstream f("/run/arbroker-gridengine/qmaster.pid");
  pid_t pid = 0;
  f >> pid;
  return pid;
}

const lrms_reservation* find(const std::vector<lrms_reservation>& rs, const std::string& id) {
  auto it = std::find_if(rs.begin(), rs.end(), [&](const auto& r) { return r.id == id; });
  return it == rs.end() ? nullptr : &*it;
}

const lrms_job* find(const std::vector<lrms_job>& js, const std::string& id) {
  auto it = std::find_if(js.begin(), js.end(), [&](const auto& j) { return j.id == id; });
  return it == js.end() ? nullptr : &*it;
}

class GridEngine : public ::testing::Test {
 protected:
  void SetUp() override { clean(); }
  void TearDown() override {
    for (const auto& id : jobs_)
      (void)ge_.cancel_job(id);
    clean();
  }
  /// Deletes every reservation with the tests' prefixes (and so the jobs bound to them).
  void clean() {
    for (const auto& c : {test_config(), other_config()}) {
      gridengine_lrms ge(c);
      auto mine = ge.owned_reservations();
      ASSERT_TRUE(mine) << mine.err().message;
      for (const auto& r : *mine)
        ASSERT_TRUE(ge.delete_reservation(r.id)) << r.id;
    }
  }
  reservation_spec spec(std::string name, timestamp start, duration length, int np) {
    return {std::move(name), "root", start, length, np};
  }
  std::string create(const reservation_spec& s) {
    auto id = ge_.create_reservation(s);
    EXPECT_TRUE(id) << id.err().message;
    return id ? *id : std::string();
  }
  std::string submit(job_spec j) {
    auto id = ge_.submit_job(j);
    EXPECT_TRUE(id) << id.err().message;
    if (!id) return {};
    jobs_.push_back(*id);
    return *id;
  }
  lrms_job_state status(const std::string& id) {
    auto s = ge_.job_status(id);
    EXPECT_TRUE(s) << s.err().message;
    return s ? *s : lrms_job_state::failed;
  }
  std::vector<lrms_reservation> reservations() {
    auto s = ge_.snapshot();
    EXPECT_TRUE(s) << s.err().message;
    return s ? s->reservations : std::vector<lrms_reservation>{};
  }

  gridengine_lrms ge_{test_config()};
  std::vector<std::string> jobs_;
};

TEST_F(GridEngine, CreateListDelete) {
  const timestamp start = now() + 3600;
  const std::string id = create(spec("cld", start, 600, 2));
  ASSERT_FALSE(id.empty());

  const auto listed = reservations();
  const auto* r = find(listed, id);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r, (lrms_reservation{id, "arbtest-cld", "root", start, start + 600, 2}));
  auto mine = ge_.owned_reservations();
  ASSERT_TRUE(mine);
  EXPECT_NE(find(*mine, id), nullptr);

  ASSERT_TRUE(ge_.delete_reservation(id));
  EXPECT_EQ(find(reservations(), id), nullptr);
  auto again = ge_.delete_reservation(id);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.err().code, errc::not_found);
  EXPECT_NE(again.err().message.find("does not exist"), std::string::npos) << again.err().message;
  // Names and patterns never reach qrdel.
  EXPECT_EQ(ge_.delete_reservation("arbtest-*").err().code, errc::not_found);
}

TEST_F(GridEngine, OverlapIsBusyAndNothingIsOverbooked) {
  const timestamp start = now() + 7200;
  const std::string full = create(spec("full", start, 600, cluster_slots));
  ASSERT_FALSE(full.empty());
  // One more CPU anywhere in [start, start + 600) does not fit.
  auto over = ge_.create_reservation(spec("over", start + 300, 600, 1));
  ASSERT_FALSE(over);
  EXPECT_EQ(over.err().code, errc::busy);
  EXPECT_NE(over.err().message.find("no suitable queues"), std::string::npos) << over.err().message;
  // Right after it, the whole cluster is free again.
  EXPECT_FALSE(create(spec("after", start + 600, 600, cluster_slots)).empty());
  // More CPUs than the cluster has is a different complaint.
  auto huge = ge_.create_reservation(spec("huge", start + 5000, 60, cluster_slots + 1));
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.err().code, errc::invalid_processor_range) << huge.err().message;
}

TEST_F(GridEngine, InvalidTimesAndSizes) {
  auto past = ge_.create_reservation(spec("past", now() - 60, 600, 1));
  ASSERT_FALSE(past);
  EXPECT_EQ(past.err().code, errc::invalid_window);
  auto empty = ge_.create_reservation(spec("empty", now() + 3600, 0, 1));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.err().code, errc::invalid_window);
  auto none = ge_.create_reservation(spec("none", now() + 3600, 60, 0));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.err().code, errc::invalid_processor_range);
}

TEST_F(GridEngine, UnknownUserIsPermissionDenied) {
  reservation_spec s = spec("who", now() + 3600, 600, 1);
  s.owner = "arb-no-such-user";
  auto r = ge_.create_reservation(s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::permission_denied);
  EXPECT_NE(r.err().message.find("arb-no-such-user is not known as a user"), std::string::npos)
      << r.err().message;
  auto j = ge_.submit_job({"j", "arb-no-such-user", 1, 60, std::nullopt, "true"});
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::permission_denied);
}

TEST_F(GridEngine, ModifyReplacesTheReservation) {
  const timestamp start = now() + 3600;
  const std::string old_id = create(spec("mod", start, 600, 2));
  ASSERT_FALSE(old_id.empty());
  auto new_id = ge_.modify_reservation(old_id, spec("mod", start + 60, 900, 4));
  ASSERT_TRUE(new_id) << new_id.err().message;
  EXPECT_NE(*new_id, old_id);
  const auto listed = reservations();
  EXPECT_EQ(find(listed, old_id), nullptr);
  const auto* r = find(listed, *new_id);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r, (lrms_reservation{*new_id, "arbtest-mod", "root", start + 60, start + 960, 4}));
  auto gone = ge_.modify_reservation(old_id, spec("mod", start, 600, 2));
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.err().code, errc::not_found);
}

TEST_F(GridEngine, FailedModifyLeavesTheOldReservation) {
  const timestamp start = now() + 3600;
  const std::string a = create(spec("a", start, 600, 2));
  const std::string b = create(spec("b", start, 600, cluster_slots - 2));
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  // Growing `a` needs CPUs `b` holds: the new terms are refused before `a` is touched.
  auto grown = ge_.modify_reservation(a, spec("a", start, 600, 4));
  ASSERT_FALSE(grown);
  EXPECT_EQ(grown.err().code, errc::busy);
  auto past = ge_.modify_reservation(a, spec("a", now() - 10, 600, 2));
  ASSERT_FALSE(past);
  EXPECT_EQ(past.err().code, errc::invalid_window);
  const auto listed = reservations();
  const auto* ra = find(listed, a);
  ASSERT_NE(ra, nullptr);
  EXPECT_EQ(*ra, (lrms_reservation{a, "arbtest-a", "root", start, start + 600, 2}));
  EXPECT_NE(find(listed, b), nullptr);
}

// Paper 002's overrun quantum needs an in-place extension, which Grid Engine does not have:
// the service is told so (infeasible) and the reservation is left as it was.
TEST_F(GridEngine, CannotExtendAReservationInPlace) {
  const timestamp start = now() + 3600;
  const std::string ar = create(spec("ext", start, 600, 2));
  ASSERT_FALSE(ar.empty());
  auto extended = ge_.extend_reservation(ar, start + 1200);
  ASSERT_FALSE(extended);
  EXPECT_EQ(extended.err().code, errc::infeasible);
  EXPECT_NE(extended.err().message.find("gridengine"), std::string::npos) << extended.err().message;
  const auto* r = find(reservations(), ar);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->end, start + 600);
}

TEST_F(GridEngine, ModifyRefusesToDropBoundJobs) {
  const std::string ar = create(spec("bound", now() + 3600, 600, 2));
  ASSERT_FALSE(ar.empty());
  const std::string job = submit({"arbtest-wait", "root", 2, 60, ar, "true"});
  ASSERT_FALSE(job.empty());
  auto r = ge_.modify_reservation(ar, spec("bound", now() + 3700, 600, 2));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::in_use);
  EXPECT_NE(find(reservations(), ar), nullptr);
  EXPECT_EQ(status(job), lrms_job_state::queued);
}

TEST_F(GridEngine, BoundJobRunsInsideItsReservation) {
  const timestamp start = now() + 4;
  const std::string ar = create(spec("run", start, 120, 2));
  ASSERT_FALSE(ar.empty());
  const std::string job = submit({"arbtest-run", "root", 2, 60, ar, "sleep 3"});
  ASSERT_FALSE(job.empty());

  // Waits while the reservation has not begun, then runs.
  lrms_job_state seen = lrms_job_state::queued;
  timestamp first_running = 0;
  ASSERT_TRUE(eventually(
      [&] {
        seen = status(job);
        if (seen == lrms_job_state::running && first_running == 0) first_running = now();
        return seen != lrms_job_state::queued;
      },
      40s))
      << "job " << job << " never left the queue";
  EXPECT_NE(seen, lrms_job_state::failed);
  if (seen == lrms_job_state::running) {
    EXPECT_GE(first_running, start);
    auto snap = ge_.snapshot();
    ASSERT_TRUE(snap) << snap.err().message;
    if (const auto* j = find(snap->running, job)) {  // unless it has just ended
      EXPECT_EQ(j->reservation, ar);
      EXPECT_EQ(j->np, 2);
      EXPECT_EQ(j->walltime, 60);
      ASSERT_TRUE(j->started.has_value());
      EXPECT_GE(*j->started, start);
      EXPECT_LT(*j->started, start + 120);
    }
  }
  ASSERT_TRUE(eventually([&] { return status(job) == lrms_job_state::completed; }, 40s))
      << to_string(status(job));
}

TEST_F(GridEngine, FailingJobIsFailed) {
  const std::string ar = create(spec("fail", now() + 3, 120, 1));
  ASSERT_FALSE(ar.empty());
  const std::string job = submit({"arbtest-fail", "root", 1, 60, ar, "exit 3"});
  ASSERT_FALSE(job.empty());
  // Until its accounting record is written (later under load), a job that just ended can
  // read as cancelled: wait for the final state rather than for "not running any more".
  EXPECT_TRUE(eventually([&] { return status(job) == lrms_job_state::failed; }, 40s))
      << "last state: " << to_string(status(job));
}

TEST_F(GridEngine, CancelJob) {
  const std::string ar = create(spec("cancel", now() + 3600, 600, 1));
  ASSERT_FALSE(ar.empty());
  const std::string job = submit({"arbtest-cancel", "root", 1, 60, ar, "true"});
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(status(job), lrms_job_state::queued);
  ASSERT_TRUE(ge_.cancel_job(job));
  EXPECT_TRUE(eventually([&] { return status(job) == lrms_job_state::cancelled; }, 20s));
  auto again = ge_.cancel_job(job);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.err().code, errc::not_found);
  // A running job is killed, and reported cancelled, not failed.
  const std::string run = submit({"arbtest-cancel-run", "root", 1, 60, std::nullopt, "sleep 60"});
  ASSERT_TRUE(eventually([&] { return status(run) == lrms_job_state::running; }, 30s));
  ASSERT_TRUE(ge_.cancel_job(run));
  ASSERT_TRUE(eventually(
      [&] {
        auto in_queue = ge_.snapshot();
        return in_queue && find(in_queue->running, run) == nullptr;
      },
      30s));
  EXPECT_EQ(status(run), lrms_job_state::cancelled);
  EXPECT_EQ(ge_.cancel_job("*").err().code, errc::not_found);
  auto unknown = gridengine_lrms(test_config()).job_status("999999");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err().code, errc::not_found);
}

// A begin time (qsub -a): the job stays pending on idle slots until then, is read back with
// it, and starts no earlier.
TEST_F(GridEngine, AJobWithABeginTimeWaitsForIt) {
  job_spec later{"arbtest-later", "root", 1, 60, std::nullopt, "sleep 60"};
  later.not_before = now() + 3600;
  const std::string held = submit(later);
  job_spec soon{"arbtest-soon", "root", 1, 60, std::nullopt, "sleep 60"};
  soon.not_before = now() + 3;
  const std::string next = submit(soon);
  ASSERT_FALSE(held.empty() || next.empty());
  auto snap = ge_.snapshot();
  ASSERT_TRUE(snap) << snap.err().message;
  const auto* h = find(snap->queued, held);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->not_before, later.not_before);
  ASSERT_TRUE(eventually([&] { return status(next) == lrms_job_state::running; }, 40s));
  snap = ge_.snapshot();
  ASSERT_TRUE(snap) << snap.err().message;
  const auto* n = find(snap->running, next);
  ASSERT_NE(n, nullptr);
  ASSERT_TRUE(n->started);
  EXPECT_GE(*n->started, soon.not_before);
  EXPECT_EQ(status(held), lrms_job_state::queued);  // slots idle, but not its time
}

// Issue 35 item 4: a job's needs reach qsub as resource requests (h_vmem per slot, mem_free per
// host, a boolean complex per feature); a feature the cell does not define is refused by qsub.
TEST_F(GridEngine, AJobsNeedsBecomeResourceRequests) {
  const std::string ar = create(spec("needs", now() + 3600, 600, 1));
  ASSERT_FALSE(ar.empty());
  job_spec j{"arbtest-needs", "root", 1, 60, ar, "true"};
  j.needs = {512, 0, {}, ""};
  const std::string per_cpu = submit(j);
  ASSERT_FALSE(per_cpu.empty());
  // mem_free is a host's load value, not a resource a reservation holds: a job in an advance
  // reservation cannot ask for it (qsub: no suitable queues); a job in the queue can.
  j.needs = {0, 64, {}, ""};
  auto in_reservation = ge_.submit_job(j);
  ASSERT_FALSE(in_reservation);
  EXPECT_NE(in_reservation.err().message.find("no suitable queues"), std::string::npos)
      << in_reservation.err().message;
  j.reservation.reset();
  j.command = "sleep 60";
  const std::string per_node = submit(j);
  ASSERT_FALSE(per_node.empty());
  const auto requested = [](const std::string& job) {
    std::string out;
    if (FILE* p = ::popen(("qstat -j " + job + " 2>&1").c_str(), "r")) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, p))
        out += buf;
      ::pclose(p);
    }
    return out;
  };
  // qstat may answer a busy qmaster with an error (a loaded machine): asked until it shows them.
  const auto shows = [&](const std::string& job, const std::string& what) {
    return eventually([&] { return requested(job).find(what) != std::string::npos; }, 20s);
  };
  EXPECT_TRUE(shows(per_cpu, "h_vmem=512M")) << requested(per_cpu);
  EXPECT_TRUE(shows(per_node, "mem_free=64M")) << requested(per_node);
  j.needs = {0, 0, {"arbnosuchfeature"}, ""};
  auto refused = ge_.submit_job(j);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.err().message.find("arbnosuchfeature"), std::string::npos)
      << refused.err().message;
}

// Issue 35 item 4: the cell publishes its host (8 slots, its memory) and, once the host's
// complex_values set a BOOL complex TRUE, that feature too (a job needing it asks -l F=TRUE).
TEST_F(GridEngine, ItsHostsAreNodeGroupsWithTheirSlotsMemoryAndBooleanFeatures) {
  const auto qconf = [](const std::string& args) {
    return std::system(("qconf " + args + " >/dev/null 2>&1").c_str()) == 0;
  };
  auto plain = ge_.node_groups();
  ASSERT_TRUE(plain) << plain.err().message;
  ASSERT_EQ(plain->size(), 1u);
  EXPECT_EQ((*plain)[0].count, 1);
  EXPECT_EQ((*plain)[0].cpus, cluster_slots);
  EXPECT_GT((*plain)[0].memory, 0);  // mem_total of this machine
  EXPECT_TRUE((*plain)[0].features.empty());
  // display_win_gui: a BOOL complex every cell defines; set TRUE on the host, then taken back.
  ASSERT_TRUE(qconf("-mattr exechost complex_values display_win_gui=TRUE localhost"));
  struct restore {
    std::function<bool(const std::string&)> run;
    ~restore() { run("-dattr exechost complex_values display_win_gui=TRUE localhost"); }
  } undo{qconf};
  std::vector<node_group> featured;
  EXPECT_TRUE(eventually(
      [&] {
        auto n = ge_.node_groups();
        if (n) featured = *n;
        return n && n->size() == 1 && !(*n)[0].features.empty();
      },
      20s));
  ASSERT_EQ(featured.size(), 1u);
  EXPECT_EQ(featured[0].features, std::vector<std::string>{"display_win_gui"});
  EXPECT_EQ(featured[0].cpus, cluster_slots);
}

TEST_F(GridEngine, JobLongerThanItsReservationIsRefused) {
  const std::string ar = create(spec("short", now() + 3600, 60, 1));
  ASSERT_FALSE(ar.empty());
  auto j = ge_.submit_job({"arbtest-long", "root", 1, 600, ar, "true"});
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::invalid_duration) << j.err().message;
  auto bad = ge_.submit_job({"arbtest-x", "root", 1, 0, ar, "true"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_duration);
}

TEST_F(GridEngine, DeletingAReservationDeletesItsJobs) {
  const std::string ar = create(spec("del", now() + 3600, 600, 2));
  ASSERT_FALSE(ar.empty());
  const std::string job = submit({"arbtest-del", "root", 2, 60, ar, "true"});
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(ge_.delete_reservation(ar));
  EXPECT_TRUE(eventually([&] { return status(job) == lrms_job_state::cancelled; }, 20s));
  // An adapter that did not submit it finds no trace of it: it never ran.
  auto fresh = gridengine_lrms(test_config()).job_status(job);
  ASSERT_FALSE(fresh);
  EXPECT_EQ(fresh.err().code, errc::not_found);
  auto snap = ge_.snapshot();
  ASSERT_TRUE(snap);
  EXPECT_EQ(find(snap->queued, job), nullptr);
  EXPECT_EQ(find(snap->running, job), nullptr);
}

TEST_F(GridEngine, SnapshotShowsCapacityJobsAndReservations) {
  const timestamp start = now() + 3600;
  const std::string ar = create(spec("snap", start, 600, 3));
  ASSERT_FALSE(ar.empty());
  // A job outside any reservation runs at once; one that needs every CPU waits behind it.
  const std::string running = submit({"arbtest-r", "root", 1, 90, std::nullopt, "sleep 60"});
  ASSERT_TRUE(eventually([&] { return status(running) == lrms_job_state::running; }, 30s));
  const std::string waiting =
      submit({"arbtest-w", "root", cluster_slots, 30, std::nullopt, "true"});
  const std::string bound = submit({"arbtest-b", "root", 3, 60, ar, "true"});

  auto snap = ge_.snapshot();
  ASSERT_TRUE(snap) << snap.err().message;
  EXPECT_EQ(snap->cpus, cluster_slots);
  EXPECT_EQ(snap->max_walltime, 48 * 3600);  // the queue's h_rt (start.sh)
  EXPECT_EQ(snap->sizes.bunch, 1);
  EXPECT_LE(std::abs(snap->now - now()), 2);
  const auto* r = find(snap->running, running);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->np, 1);
  EXPECT_EQ(r->walltime, 90);
  EXPECT_EQ(r->owner, "root");
  EXPECT_FALSE(r->reservation.has_value());
  ASSERT_TRUE(r->started.has_value());
  EXPECT_LE(*r->started, snap->now);
  const auto* w = find(snap->queued, waiting);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->np, cluster_slots);
  EXPECT_EQ(w->walltime, 30);
  const auto* b = find(snap->queued, bound);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->reservation, ar);
  const auto* res = find(snap->reservations, ar);
  ASSERT_NE(res, nullptr);
  EXPECT_EQ(res->np, 3);
  // The jobs alone (no qrstat): the same jobs, no reservation.
  auto jobs = ge_.jobs_snapshot();
  ASSERT_TRUE(jobs) << jobs.err().message;
  EXPECT_EQ(jobs->cpus, snap->cpus);
  EXPECT_NE(find(jobs->running, running), nullptr);
  EXPECT_NE(find(jobs->queued, waiting), nullptr);
  ASSERT_NE(find(jobs->queued, bound), nullptr);
  EXPECT_EQ(find(jobs->queued, bound)->reservation, ar);
  EXPECT_TRUE(jobs->reservations.empty());

  // The workload view counts the reservation once, and not the job bound to it.
  const auto w_view = to_workload(*snap);
  EXPECT_EQ(w_view.cpus, cluster_slots);
  EXPECT_TRUE(std::any_of(w_view.reservations.begin(), w_view.reservations.end(),
                          [&](const auto& s) { return s.start == start && s.np == 3; }));
  EXPECT_EQ(w_view.queued.size(), snap->queued.size() - 1);
}

TEST_F(GridEngine, NewAdapterFindsItsReservationsByPrefix) {
  const timestamp start = now() + 3600;
  const std::string a = create(spec("keep-1", start, 600, 1));
  const std::string b = create(spec("keep-2", start + 600, 600, 2));
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  gridengine_lrms other(other_config());
  auto foreign = other.create_reservation({"x", "root", start, 60, 1});
  ASSERT_TRUE(foreign) << foreign.err().message;

  gridengine_lrms restarted(test_config());
  auto found = restarted.owned_reservations();
  ASSERT_TRUE(found) << found.err().message;
  ASSERT_EQ(found->size(), 2u);
  const auto* ra = find(*found, a);
  const auto* rb = find(*found, b);
  ASSERT_NE(ra, nullptr);
  ASSERT_NE(rb, nullptr);
  EXPECT_EQ(*ra, (lrms_reservation{a, "arbtest-keep-1", "root", start, start + 600, 1}));
  EXPECT_EQ(*rb, (lrms_reservation{b, "arbtest-keep-2", "root", start + 600, start + 1200, 2}));
  EXPECT_EQ(find(*found, *foreign), nullptr);
  auto theirs = other.owned_reservations();
  ASSERT_TRUE(theirs);
  ASSERT_EQ(theirs->size(), 1u);
  EXPECT_EQ(theirs->front().name, "arbtest2-x");
}

TEST_F(GridEngine, FrozenQmasterGivesTimeout) {
  const pid_t qmaster = qmaster_pid();
  ASSERT_GT(qmaster, 0);
  gridengine_config c = test_config();
  c.timeout = 1500ms;
  gridengine_lrms quick(c);
  ASSERT_EQ(::kill(qmaster, SIGSTOP), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto snap = quick.snapshot();
  auto made = quick.create_reservation(spec("frozen", now() + 3600, 60, 1));
  const auto took = std::chrono::steady_clock::now() - t0;
  ::kill(qmaster, SIGCONT);
  ASSERT_FALSE(snap);
  EXPECT_EQ(snap.err().code, errc::timeout) << snap.err().message;
  ASSERT_FALSE(made);
  EXPECT_EQ(made.err().code, errc::timeout) << made.err().message;
  EXPECT_LT(took, 6s);
  EXPECT_TRUE(eventually([&] { return static_cast<bool>(ge_.snapshot()); }, 30s));
}

TEST_F(GridEngine, StoppedQmasterIsUnreachable) {
  const pid_t qmaster = qmaster_pid();
  ASSERT_GT(qmaster, 0);
  ASSERT_EQ(::kill(qmaster, SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return ::kill(qmaster, 0) != 0; }, 60s));
  auto snap = ge_.snapshot();
  auto made = ge_.create_reservation(spec("down", now() + 3600, 60, 1));
  auto del = ge_.delete_reservation("1");
  // Bring the cell back for the tests after this one.
  process_spec start;
  start.argv = {scripts + "/start.sh", "--slots", std::to_string(cluster_slots)};
  start.timeout = 120s;
  auto up = run_process(start);
  ASSERT_TRUE(up && up->ok()) << (up ? up->err : up.err().message);

  ASSERT_FALSE(snap);
  EXPECT_EQ(snap.err().code, errc::unreachable) << snap.err().message;
  ASSERT_FALSE(made);
  EXPECT_EQ(made.err().code, errc::unreachable) << made.err().message;
  ASSERT_FALSE(del);
  EXPECT_EQ(del.err().code, errc::unreachable) << del.err().message;
  // The cell answers again. (Its first answers after a restart may still be refusals: the
  // tests after this one need it whole, so wait, and say what it answered if it never does.)
  std::string last;
  EXPECT_TRUE(eventually(
      [&] {
        auto s = ge_.snapshot();
        if (!s) last = s.err().message;
        return static_cast<bool>(s);
      },
      60s))
      << last;
}

}  // namespace
}  // namespace arbroker
