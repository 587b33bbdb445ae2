// Grid jobs end to end on real batch systems (real_grid.hpp): floods, every strategy on a
// partly busy cluster, migration, and the reserve strategy on full clusters.

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <mutex>

#include "arbroker/store/sqlite_journal.hpp"
#include "real_grid.hpp"

namespace arbroker {
namespace {

using namespace arbroker::testing;

// -- grid jobs on the real batch systems --------------------------------------------------

struct real_grid_jobs : real_grid {
  void SetUp() override {
    real_grid::SetUp();
    manager = spawn_manager(300);
  }
  grid_jobs_actor spawn_manager(duration lost_after) {
    grid_jobs_config c;
    c.node = "e2e";
    // A store, for the events a watcher would be told (docs/watch.md).
    auto store = sqlite_journal::open(":memory:");
    EXPECT_TRUE(store) << (store ? "" : store.err().message);
    if (store) {
      std::shared_ptr<sqlite_journal> j(std::move(*store));
      // (The store may outlive the fixture a little: its actor ends after TearDown.)
      j->set_event_listener([told = told_](std::vector<event_row> batch) {
        std::lock_guard lock{told->mu};
        told->events.insert(told->events.end(), batch.begin(), batch.end());
      });
      c.journal = j;
    }
    c.gis = gis;
    c.clock = wall_clock();
    c.poll_interval = 0;  // rounds when the test asks
    c.adaptation_interval = 0;
    c.lost_after = lost_after;
    return spawn_grid_jobs(sys, c);
  }
  void TearDown() override {
    self->send_exit(manager, caf::exit_reason::user_shutdown);
    real_grid::TearDown();
  }

  msg::grid_submit_request grid_job(grid_strategy s, int width) {
    msg::grid_submit_request r;
    r.user = "root";
    r.name = "e2e";
    r.command = "sleep 600";
    r.np = 2;
    r.walltime = 900;
    r.strategy = s;
    r.width = width;
    return r;
  }

  msg::grid_job_info show(const std::string& id) {
    return ask<msg::grid_job_reply>(manager, msg::grid_query_request{"root", id}).job;
  }

  // Polls the LRMSs through the manager until `done` holds (the real schedulers start jobs
  // within seconds), for at most 60 s.
  template <class Pred>
  msg::grid_job_info until(const std::string& id, Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      (void)ask<std::int32_t>(manager, poll_atom::value);
      auto j = show(id);
      if (done(j) || std::chrono::steady_clock::now() > deadline) return j;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }

  // Whether the LRMS of `cluster` still has `lrms_id` in its queue or running.
  bool in_lrms(const std::string& cluster, const std::string& lrms_id) {
    std::unique_ptr<lrms> l;
    if (cluster == "sge")
      l = std::make_unique<gridengine_lrms>(ge_conf());
    else
      l = std::make_unique<slurm_lrms>(slurm_opts(cluster == "slurm1" ? conf1 : conf2));
    auto st = l->job_status(lrms_id);
    return st && (*st == lrms_job_state::queued || *st == lrms_job_state::running);
  }

  void remember(const msg::grid_job_info& j) {
    for (const auto& c : j.copies) {
      if (c.lrms_id.empty()) continue;
      if (c.cluster == "sge")
        ge_jobs.push_back(c.lrms_id);
      else
        jobs.emplace_back(c.cluster == "slurm1" ? conf1 : conf2, c.lrms_id);
    }
  }

  // How both failure tests begin: a manager that gives up on a silent cluster after 5 s (a
  // node: 5 min), slurm1 full with a local job (`blocker`, cancelled by the test to make
  // room), and a grid job running `command` that may go to slurm1 or `other`: running on
  // `other`.
  msg::grid_job_info running_beside_a_full_slurm1(const std::string& other,
                                                  const std::string& command,
                                                  std::string& blocker) {
    self->send_exit(manager, caf::exit_reason::user_shutdown);
    manager = spawn_manager(5);
    start_signal s1;
    blocker = sbatch_whole(conf1, 20, s1);
    EXPECT_TRUE(s1.wait(30)) << "the local job did not start";
    auto r = grid_job(grid_strategy::single, 1);
    r.clusters = {"slurm1", other};
    r.command = command;
    r.walltime = 300;
    auto sub = ask<msg::grid_job_reply>(manager, r);
    EXPECT_TRUE(sub.error.ok()) << sub.error.message;
    remember(sub.job);
    if (sub.job.copies.empty() || sub.job.copies[0].cluster != other) {
      ADD_FAILURE() << "not placed on " << other << " beside the full slurm1";
      return sub.job;
    }
    return until(sub.job.id, [](const auto& x) { return x.state == grid_job_state::running; });
  }

  // How both moving tests begin: both Slurm clusters full with a local job, slurm1's ending
  // first (20 min, slurm2's 40), and a job of `strategy` for either; the test cancels slurm2's
  // (`blocker2`) to make an earlier start there.
  msg::grid_submit_request on_both_full_slurms(grid_strategy strategy, std::string& blocker2) {
    start_signal s1, s2;
    sbatch_whole(conf1, 20, s1);
    blocker2 = sbatch_whole(conf2, 40, s2);
    EXPECT_TRUE(s1.wait(30) && s2.wait(30)) << "the local jobs did not start";
    auto r = grid_job(strategy, 1);
    r.clusters = {"slurm1", "slurm2"};
    return r;
  }

  // The kinds of the events told of job `id`, in order, and the cluster each names.
  std::vector<std::pair<std::string, std::string>> events_of(const std::string& id) {
    std::lock_guard lock{told_->mu};
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : told_->events)
      if (e.subject == id) out.emplace_back(e.kind, e.cluster);
    return out;
  }
  static bool has(const std::vector<std::pair<std::string, std::string>>& es,
                  const std::string& kind, const std::string& cluster) {
    return std::find(es.begin(), es.end(), std::pair{kind, cluster}) != es.end();
  }

  grid_jobs_actor manager;
  struct told_events {
    std::mutex mu;
    std::vector<event_row> events;
  };
  std::shared_ptr<told_events> told_ = std::make_shared<told_events>();
};

TEST_F(real_grid_jobs, FloodRunsWhereItCanStartAndLeavesNoOtherCopyInAnyQueue) {
  start_signal s1, sg;
  sbatch_whole(conf1, 20, s1);
  qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && sg.wait(30)) << "the local jobs did not start";
  auto sub = ask<msg::grid_job_reply>(manager, grid_job(grid_strategy::flood, 3));
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_EQ(sub.job.copies.size(), 3u);
  auto j = until(sub.job.id, [](const auto& x) {
    return x.state == grid_job_state::running &&
           std::none_of(x.copies.begin(), x.copies.end(),
                        [](const auto& c) { return c.state == copy_state::queued; });
  });
  ASSERT_EQ(j.state, grid_job_state::running);
  ASSERT_GE(j.winner, 0);
  EXPECT_EQ(j.copies[static_cast<std::size_t>(j.winner)].cluster, "slurm2");
  for (std::size_t i = 0; i < j.copies.size(); ++i) {
    const auto& c = j.copies[i];
    EXPECT_EQ(in_lrms(c.cluster, c.lrms_id), static_cast<int>(i) == j.winner)
        << c.cluster << " " << c.lrms_id;  // squeue/qstat: only the winner is left
  }
  EXPECT_EQ(j.duplicate_starts, 0);
}

// Issue 33: slurm1 and the Grid Engine cell are full for 20 minutes, slurm2 is half busy for
// as long. A job of 2 CPUs runs where it can start at once (slurm2) whatever its strategy:
// placed by `single`, the first placement of `adaptive`, the flood's winner (its other copies
// withdrawn) and the reservation `reserve` keeps (the others released). Paper 004's SED,
// with its W_max x ceil(busy/CPUs) over a long W_max, cannot tell a full cluster from a
// partly busy one: `--rank sed` sends single and adaptive to the full Grid Engine cell.
TEST_F(real_grid_jobs, EveryStrategyStartsAtOnceOnThePartlyBusyCluster) {
  start_signal s1, s2, sg;
  sbatch_whole(conf1, 20, s1);
  sbatch(conf2, cpus["slurm2"] / 2, 20, s2);
  qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && s2.wait(30) && sg.wait(30)) << "the local jobs did not start";
  for (const auto strategy : {grid_strategy::single, grid_strategy::adaptive, grid_strategy::flood,
                              grid_strategy::reserve}) {
    SCOPED_TRACE(std::string(to_string(strategy)));
    const bool wide = strategy == grid_strategy::flood || strategy == grid_strategy::reserve;
    auto sub = ask<msg::grid_job_reply>(manager, grid_job(strategy, wide ? 3 : 1));
    ASSERT_TRUE(sub.error.ok()) << sub.error.message;
    remember(sub.job);
    auto j = until(sub.job.id, [](const auto& x) {
      return x.state == grid_job_state::running &&
             std::none_of(x.copies.begin(), x.copies.end(),
                          [](const auto& c) { return c.state == copy_state::queued; });
    });
    ASSERT_EQ(j.state, grid_job_state::running);
    const auto runs = std::find_if(j.copies.begin(), j.copies.end(),
                                   [](const auto& c) { return c.state == copy_state::running; });
    ASSERT_NE(runs, j.copies.end());
    EXPECT_EQ(runs->cluster, "slurm2");
    for (const auto& c : j.copies)  // squeue/qstat: only the running copy is left
      EXPECT_EQ(in_lrms(c.cluster, c.lrms_id), &c == &*runs) << c.cluster << " " << c.lrms_id;
    if (strategy == grid_strategy::reserve) {
      EXPECT_EQ(j.reservation.rfind("slurm2/", 0), 0u) << j.reservation;
      slurm_lrms sl1(slurm_opts(conf1));
      gridengine_lrms ge(ge_conf());
      EXPECT_TRUE(ours(sl1).empty() && ours(ge).empty());  // the other holds were released
    }
    // Cancelled and gone from slurm2's queue, so that the next job finds its CPUs free.
    (void)ask<msg::grid_job_reply>(manager, msg::grid_cancel_request{"root", sub.job.id});
    auto gone = until(sub.job.id, [&](const auto& x) {
      return std::none_of(x.copies.begin(), x.copies.end(),
                          [&](const auto& c) { return in_lrms(c.cluster, c.lrms_id); });
    });
    ASSERT_EQ(gone.state, grid_job_state::cancelled);
  }
}

TEST_F(real_grid_jobs, AdaptiveJobMigratesWhenTheOtherQueueDrainsAndRunsOnce) {
  std::string blocker2;
  auto r = on_both_full_slurms(grid_strategy::adaptive, blocker2);
  ASSERT_FALSE(HasFailure());
  auto sub = ask<msg::grid_job_reply>(manager, r);
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_EQ(sub.job.copies.at(0).cluster, "slurm1");  // its queue ends first (20 < 40 min)
  (void)ask<std::int32_t>(manager, adapt_atom::value);
  EXPECT_EQ(show(sub.job.id).migrations, 0);
  // slurm2's queue drains: the job should move there.
  ASSERT_TRUE(slurm_lrms(slurm_opts(conf2)).cancel_job(blocker2));
  (void)ask<std::int32_t>(manager, adapt_atom::value);
  auto moved = show(sub.job.id);
  remember(moved);
  ASSERT_EQ(moved.migrations, 1);
  ASSERT_EQ(moved.copies.size(), 2u);
  EXPECT_EQ(moved.copies[1].cluster, "slurm2");
  EXPECT_FALSE(in_lrms("slurm1", moved.copies[0].lrms_id));
  auto j = until(sub.job.id, [](const auto& x) { return x.state == grid_job_state::running; });
  ASSERT_EQ(j.state, grid_job_state::running);
  EXPECT_EQ(j.winner, 1);
  EXPECT_FALSE(in_lrms("slurm1", j.copies[0].lrms_id));  // it runs exactly once
  EXPECT_TRUE(in_lrms("slurm2", j.copies[1].lrms_id));
  // What a watcher is told, in order: placed on slurm1, migrated to slurm2, started there.
  const auto told = events_of(sub.job.id);
  EXPECT_TRUE(has(told, "grid_job.placed", "slurm1"));
  EXPECT_TRUE(has(told, "grid_job.migrated", "slurm2"));
  EXPECT_TRUE(has(told, "grid_job.started", "slurm2"));
  EXPECT_EQ(std::count_if(told.begin(), told.end(),
                          [](const auto& e) { return e.first == "grid_job.started"; }),
            1);
}

// Runs scripts/slurm/NAME with `args` on the test instances; true when it succeeded.
bool slurm_script(const std::string& name, std::vector<std::string> args) {
  process_spec p;
  p.argv = {std::string(ARB_SLURM_SCRIPTS) + "/" + name};
  p.argv.insert(p.argv.end(), args.begin(), args.end());
  p.env = {{"ARB_RUN_DIR", slurm_run}};
  p.timeout = std::chrono::seconds(120);
  auto out = run_process(p);
  EXPECT_TRUE(out && out->ok()) << name << ": " << (out ? out->err : to_string(out.err()));
  return out && out->ok();
}

// Issue 35: a job running on slurm2 whose Slurm instance is stopped (its controller, node
// daemons and the job's processes killed: scripts/slurm/stop.sh) is placed again on slurm1
// once slurm2 has not answered for lost_after, and runs to its end there.
TEST_F(real_grid_jobs, AJobWhoseSlurmClusterIsStoppedRunsToItsEndOnTheOther) {
  std::string blocker;
  const auto sub = running_beside_a_full_slurm1("slurm2", "sleep 10", blocker);
  ASSERT_EQ(sub.state, grid_job_state::running);
  // slurm2 goes down with the job; it is started again afresh whatever happens here, for the
  // tests after this one, as the fixture starts it (adapters/slurm.cmake).
  struct restarted_at_end {
    ~restarted_at_end() {
      slurm_script("start.sh", {"arbtest2", "--cpus", "4", "--port", "17927", "--memory", "2000",
                                "--features", "ib,ssd", "--clean"});
    }
  } slurm2_back;
  ASSERT_TRUE(slurm_script("stop.sh", {"arbtest2", "--keep-munge"}));
  ASSERT_TRUE(slurm_lrms(slurm_opts(conf1)).cancel_job(blocker));  // room on slurm1
  auto again = until(sub.id, [](const auto& x) {
    return x.copies.size() == 2 && x.state == grid_job_state::running;
  });
  remember(again);
  ASSERT_EQ(again.copies.size(), 2u);
  EXPECT_EQ(again.copies[1].cluster, "slurm1");
  EXPECT_TRUE(again.copies[0].lost);
  EXPECT_EQ(again.resubmits, 1);
  const bool said_why = std::any_of(again.history.begin(), again.history.end(), [](const auto& e) {
    return e.what.find("resubmission 1 of 2: lost at slurm2 (slurm2 could not be asked for") !=
           std::string::npos;
  });
  EXPECT_TRUE(said_why);
  auto done = until(sub.id, [](const auto& x) { return is_terminal(x.state); });
  EXPECT_EQ(done.state, grid_job_state::completed);  // sleep 10 ran to its end on slurm1
  EXPECT_EQ(done.winner, 1);
  EXPECT_FALSE(in_lrms("slurm1", done.copies[1].lrms_id));
  // A watcher is told of the placement again on slurm1 and of the end there.
  const auto told = events_of(sub.id);
  EXPECT_TRUE(has(told, "grid_job.resubmitted", "slurm1"));
  EXPECT_TRUE(has(told, "grid_job.ended", "slurm1"));
}

// The same on Grid Engine, where the cell can be made to stop answering but not its host to
// fail: the qmaster is stopped under a running job (its execd goes on running it). The node
// gives the copy up unconfirmed after lost_after and places the job on slurm1, where it runs
// to its end; once the cell answers again nothing of the job is left on it.
TEST_F(real_grid_jobs, AJobWhoseGridEngineCellStopsAnsweringRunsToItsEndOnSlurm) {
  std::string blocker;
  const auto sub = running_beside_a_full_slurm1("sge", "sleep 40", blocker);
  ASSERT_EQ(sub.state, grid_job_state::running);
  // The cell comes back for the tests after this one whatever happens here.
  struct cell {
    bool down = false;
    bool start() {
      process_spec p;
      p.argv = {std::string(ARB_GRIDENGINE_SCRIPTS) + "/start.sh", "--slots", "8"};
      p.timeout = std::chrono::seconds(120);
      auto out = run_process(p);
      down = !(out && out->ok());
      return !down;
    }
    ~cell() {
      if (down) start();
    }
  } qmaster;
  pid_t pid = 0;
  std::ifstream("/run/arbroker-gridengine/qmaster.pid") >> pid;
  ASSERT_GT(pid, 0);
  qmaster.down = true;
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  for (int i = 0; i < 300 && ::kill(pid, 0) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(slurm_lrms(slurm_opts(conf1)).cancel_job(blocker));  // room on slurm1
  auto again = until(sub.id, [](const auto& x) {
    return x.copies.size() == 2 && x.state == grid_job_state::running;
  });
  remember(again);
  ASSERT_EQ(again.copies.size(), 2u);
  EXPECT_EQ(again.copies[1].cluster, "slurm1");
  EXPECT_TRUE(again.copies[0].lost);
  EXPECT_EQ(again.resubmits, 1);
  ASSERT_TRUE(qmaster.start());
  auto done = until(sub.id, [](const auto& x) { return is_terminal(x.state); });
  EXPECT_EQ(done.state, grid_job_state::completed);  // on slurm1
  EXPECT_EQ(done.winner, 1);
  // The old copy, once the cell answers again: cancelled if it still runs there (a duplicate
  // start), or found gone if it ran to its end while the cell was silent (the partition's
  // window, docs/grid-jobs.md); never left in the cell.
  auto settled =
      until(sub.id, [&](const auto&) { return !in_lrms("sge", done.copies[0].lrms_id); });
  EXPECT_FALSE(in_lrms("sge", done.copies[0].lrms_id));
  EXPECT_LE(settled.duplicate_starts, 1);
}

// Issue 33: with every cluster full (a local job of all its CPUs for 20 minutes), the reserve
// strategy holds right after the running jobs where each batch system accepts it. Each hold
// used to start exactly at a job's end, which Slurm and Grid Engine refuse: "no cluster
// granted a hold".
TEST_F(real_grid_jobs, ReserveOnFullClustersHoldsWhereTheBatchSystemsAccept) {
  start_signal s1, s2, sg;
  const timestamp before = wall_clock()();  // the local jobs end 20 minutes after this, or later
  sbatch_whole(conf1, 20, s1);
  sbatch_whole(conf2, 20, s2);
  qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && s2.wait(30) && sg.wait(30)) << "the local jobs did not start";
  auto sub = ask<msg::grid_job_reply>(manager, grid_job(grid_strategy::reserve, 3));
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_FALSE(sub.job.reservation.empty()) << sub.job.history.back().what;
  std::string refused;
  for (const auto& e : sub.job.history)
    if (e.what.rfind("no hold at ", 0) == 0) refused += e.what + "; ";
  EXPECT_EQ(refused, "");  // every full cluster granted its hold
  const auto where = sub.job.reservation.substr(0, sub.job.reservation.find('/'));
  auto q = ask<msg::query_reply>(crs.at(where), msg::query_request{"root", sub.job.reservation});
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_GE(q.info.start, before + 20 * 60);  // after the running job, not over it
  EXPECT_EQ(q.info.state, reservation_state::committed);
}

TEST_F(real_grid_jobs, ReserveKeepsOneReservationAndReleasesTheOthers) {
  auto sub = ask<msg::grid_job_reply>(manager, grid_job(grid_strategy::reserve, 3));
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_FALSE(sub.job.reservation.empty());
  slurm_lrms s1(slurm_opts(conf1)), s2(slurm_opts(conf2));
  gridengine_lrms ge(ge_conf());
  std::size_t held = 0;
  for (lrms* l : std::initializer_list<lrms*>{&s1, &s2, &ge})
    held += ours(*l).size();
  EXPECT_EQ(held, 1u);  // the kept one; the other two holds were released in the LRMSs
  ASSERT_EQ(sub.job.copies.size(), 1u);
  EXPECT_TRUE(in_lrms(sub.job.copies[0].cluster, sub.job.copies[0].lrms_id));
  auto c = ask<msg::grid_job_reply>(manager, msg::grid_cancel_request{"root", sub.job.id});
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  auto after =
      until(sub.job.id, [](const auto& x) { return x.copies[0].state == copy_state::cancelled; });
  EXPECT_FALSE(in_lrms(after.copies[0].cluster, after.copies[0].lrms_id));
  held = 0;
  for (lrms* l : std::initializer_list<lrms*>{&s1, &s2, &ge})
    held += ours(*l).size();
  EXPECT_EQ(held, 0u);
}

// Issue 35 item 7: a reserve job held on slurm1 (its queue ends first) moves, make-before-break,
// to a new reservation on slurm2 once slurm2's queue drains: the new reservation is made and
// the job queued in it before the old copy is withdrawn and the old reservation deleted in
// Slurm; it runs once, in the new one.
TEST_F(real_grid_jobs, AReservedJobMovesToAnEarlierReservationOnTheOtherSlurmAndRunsOnceThere) {
  std::string blocker2;
  auto r = on_both_full_slurms(grid_strategy::reserve, blocker2);
  ASSERT_FALSE(HasFailure());
  r.command = "sleep 5";
  r.walltime = 120;
  auto sub = ask<msg::grid_job_reply>(manager, r);
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_EQ(sub.job.reservation.substr(0, 7), "slurm1/") << sub.job.history.back().what;
  slurm_lrms l1(slurm_opts(conf1)), l2(slurm_opts(conf2));
  ASSERT_EQ(ours(l1).size(), 1u);
  ASSERT_TRUE(slurm_lrms(slurm_opts(conf2)).cancel_job(blocker2));
  (void)ask<std::int32_t>(manager, adapt_atom::value);
  auto moved = show(sub.job.id);
  remember(moved);
  std::string history;
  for (const auto& e : moved.history)
    history += e.what + " | ";
  ASSERT_EQ(moved.migrations, 1) << history;
  ASSERT_EQ(moved.copies.size(), 2u) << history;
  EXPECT_EQ(moved.reservation.substr(0, 7), "slurm2/") << history;
  EXPECT_FALSE(in_lrms("slurm1", moved.copies[0].lrms_id));
  EXPECT_EQ(ours(l1).size(), 0u);  // the old reservation deleted in Slurm
  EXPECT_EQ(ours(l2).size(), 1u);
  auto j = until(sub.job.id, [](const auto& x) { return is_terminal(x.state); });
  EXPECT_EQ(j.state, grid_job_state::completed) << history;
  EXPECT_EQ(j.winner, 1);
  EXPECT_EQ(j.duplicate_starts, 0);
}

// Issue 35 item 4: slurm2's node has the features ib and ssd and 2000 MB (adapters/slurm.cmake),
// slurm1's and the Grid Engine cell's none. A job that needs ib goes to slurm2 although slurm1
// ranks first by name on a tie, Slurm gets its constraint and memory (scontrol shows them), and
// it runs there; a job needing more memory per CPU than the node holds for its CPUs is refused
// naming why, leaving nothing in any queue.
TEST_F(real_grid_jobs, AJobThatNeedsAFeatureAndMemoryRunsOnTheNodesThatHaveThem) {
  auto r = grid_job(grid_strategy::single, 1);
  r.command = "true";
  r.walltime = 60;
  r.features = {"ib"};
  r.mem_per_cpu = 500;
  auto sub = ask<msg::grid_job_reply>(manager, r);
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_EQ(sub.job.copies.size(), 1u);
  EXPECT_EQ(sub.job.copies[0].cluster, "slurm2");
  process_spec show_job;
  show_job.argv = {"scontrol", "show", "job", sub.job.copies[0].lrms_id};
  show_job.env = {{"SLURM_CONF", conf2}};
  show_job.timeout = std::chrono::seconds(30);
  auto out = run_process(show_job);
  ASSERT_TRUE(out && out->ok()) << (out ? out->err : to_string(out.err()));
  EXPECT_NE(out->out.find("Features=ib "), std::string::npos) << out->out;
  EXPECT_NE(out->out.find("MinMemoryCPU=500M"), std::string::npos) << out->out;
  auto done = until(sub.job.id, [](const auto& x) { return x.state == grid_job_state::completed; });
  EXPECT_EQ(done.state, grid_job_state::completed);
  auto more = r;
  more.mem_per_cpu = 1500;  // 2000 MB hold one CPU at 1500
  auto refused = ask<msg::grid_job_reply>(manager, more);
  EXPECT_FALSE(refused.error.ok());
  EXPECT_NE(refused.error.message.find("slurm2: has 1 CPUs with ib with 1500 MiB each, the job "
                                       "needs 2"),
            std::string::npos)
      << refused.error.message;
  EXPECT_NE(refused.error.message.find("slurm1: offers no feature ib"), std::string::npos)
      << refused.error.message;
  EXPECT_NE(refused.error.message.find("sge: offers no feature ib"), std::string::npos)
      << refused.error.message;
}

}  // namespace
}  // namespace arbroker
