// Full reads of the LRMS made aside (lrms_view.hpp, "Reads aside"): begun by the owner, run on
// another thread, ended by the owner with what changed meanwhile; and a cluster service's actor
// that goes on answering while one is under way.

#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <atomic>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/lrms_view.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "delegating_lrms.hpp"

namespace arbroker {
namespace {

// A simulated LRMS whose full reads can be made to fail, and whose reads aside can be held
// in their second step until the test lets them go.
class gated_lrms final : public testing::delegating_lrms {
 public:
  using delegating_lrms::delegating_lrms;

  std::atomic<bool> down{false};  ///< full reads answer unreachable
  int snapshots = 0;              ///< inline full reads
  /// Set: the rest of a read aside waits for `release` (and tells `entered` it is waiting).
  std::shared_ptr<std::promise<void>> entered, release;

  result<lrms_snapshot> snapshot() override {
    ++snapshots;
    if (down) return fail(errc::unreachable, "the LRMS is down");
    return inner().snapshot();
  }
  snapshot_rest begin_snapshot() override {
    auto rest = inner().begin_snapshot();
    return [rest = std::move(rest), this, entered = entered, release = release] {
      if (release) {
        entered->set_value();
        release->get_future().wait();
      }
      if (down) return result<lrms_snapshot>(fail(errc::unreachable, "the LRMS is down"));
      return rest();
    };
  }
};

struct read_aside_test : ::testing::Test {
  timestamp now = 1'000'000;
  std::unique_ptr<gated_lrms> backend;

  void SetUp() override {
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, [this] { return now; }});
    ASSERT_TRUE(l);
    backend = std::make_unique<gated_lrms>(std::shared_ptr<simulated_lrms>(std::move(*l)));
  }

  static lrms_view make(bool aside) {
    cluster_policy p;
    p.refresh = 10;
    p.full_refresh = 60;
    auto v = lrms_view::create({"c1", 64, p});
    EXPECT_TRUE(v) << to_string(v.err());
    if (aside) v->allow_reads_aside();
    return std::move(*v);
  }

  // Reserves in the LRMS as the service does (and keeps it in the view, unless `outsider`).
  std::string reserve(lrms_view* v, timestamp start, duration length, int np) {
    auto id = backend->create_reservation({"r", "alice", start, length, np});
    if (!id) return {};  // busy: the LRMS refused it
    if (v) v->put(*id, {start, start + length, np}, now);
    return *id;
  }

  // What a view made by an inline full read now holds: its workload and free CPUs.
  static std::vector<reservation_span> spans(const lrms_view& v, timestamp t) {
    return v.capacity().workload(t).reservations;
  }
  lrms_view read_inline() {
    auto fresh = make(false);
    EXPECT_TRUE(fresh.refresh(*backend, now, true));
    return fresh;
  }
};

TEST_F(read_aside_test, TheOwnerBeginsThePeriodicFullReadRefreshOnlyReadsTheJobs) {
  auto v = make(true);
  const timestamp t0 = now;
  EXPECT_EQ(v.begin_read_aside(*backend, now), nullptr) << "nothing read yet: inline first";
  ASSERT_TRUE(v.refresh(*backend, now));
  EXPECT_EQ(backend->snapshots, 1);
  now = t0 + 59;
  EXPECT_EQ(v.begin_read_aside(*backend, now), nullptr) << "not due yet";
  now = t0 + 60;
  ASSERT_TRUE(v.refresh(*backend, now));
  EXPECT_EQ(backend->snapshots, 1) << "due, but the owner's to make aside";
  auto read = v.begin_read_aside(*backend, now);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(v.begin_read_aside(*backend, now), nullptr) << "one under way already";
  read->run();
  v.end_read_aside(*read, now);
  EXPECT_NE(read->take_dropped(), nullptr) << "the old view is handed over to be dropped";
  now = t0 + 119;
  EXPECT_EQ(v.begin_read_aside(*backend, now), nullptr) << "counted from the read aside";
  now = t0 + 120;
  EXPECT_NE(v.begin_read_aside(*backend, now), nullptr);
  EXPECT_EQ(backend->snapshots, 1);
}

TEST_F(read_aside_test, WithoutAllowingItTheFullReadStaysInline) {
  auto v = make(false);
  ASSERT_TRUE(v.refresh(*backend, now));
  now += 60;
  EXPECT_EQ(v.begin_read_aside(*backend, now), nullptr);
  ASSERT_TRUE(v.refresh(*backend, now));
  EXPECT_EQ(backend->snapshots, 2);
}

// Whatever the owner does while the read is aside (reserves, changes, ends, reads the jobs),
// the view it ends with is the view an inline read would make at the end; and what only the
// LRMS knew before the read began is in it.
TEST_F(read_aside_test, TheNewViewIsWhatAnInlineReadWouldMakeWhateverChangedMeanwhile) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    SetUp();
    auto v = make(true);
    ASSERT_TRUE(v.refresh(*backend, now));
    std::vector<std::string> mine;
    auto some_span = [&](int& np) {
      np = 1 + static_cast<int>(rng() % 16);
      return now + 60 + static_cast<timestamp>(rng() % 20'000);
    };
    auto act = [&](bool outsider) {
      int np = 0;
      const timestamp start = some_span(np);
      switch (rng() % 4) {
        case 0:
        case 1:
          if (auto id = reserve(outsider ? nullptr : &v, start, 600 + rng() % 3600, np);
              !id.empty() && !outsider)
            mine.push_back(id);
          break;
        case 2:
          if (!mine.empty()) {  // ended by the owner
            const auto i = rng() % mine.size();
            ASSERT_TRUE(backend->delete_reservation(mine[i]));
            v.erase(mine[i]);
            mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(i));
          }
          break;
        default:  // a local job, seen at the next read of the jobs
          (void)backend->inner().submit_local_job({"l", "bob", np, 1800, std::nullopt, "", ""},
                                                  900);
      }
    };
    for (int i = 0; i < 30; ++i)
      act(i % 3 == 0);  // a third by someone else: in the LRMS only
    now += 60;
    auto read = v.begin_read_aside(*backend, now);
    ASSERT_NE(read, nullptr);
    const bool jobs_meanwhile = round % 2 == 0;
    std::vector<running_job> seen;
    for (int i = 0; i < 20; ++i) {
      act(false);
      if (jobs_meanwhile && i == 10) {
        now += 10;
        ASSERT_TRUE(v.refresh(*backend, now));  // the jobs read again while the read is aside
        seen = v.capacity().running();
      }
    }
    read->run();
    v.end_read_aside(*read, now);
    ASSERT_FALSE(v.capacity().wrong());
    if (jobs_meanwhile) {  // not the read's jobs: the owner's, which are newer
      EXPECT_EQ(v.capacity().running(), seen) << "round " << round;
    }
    now += 10;  // the jobs read again, as an inline read reads them now
    ASSERT_TRUE(v.refresh(*backend, now));
    auto fresh = read_inline();
    EXPECT_EQ(spans(v, now), spans(fresh, now)) << "round " << round;
    for (timestamp t = now; t < now + 24 * 3600; t += 300)
      ASSERT_EQ(v.profile().free_at(t), fresh.profile().free_at(t))
          << "round " << round << ", " << t - now << " s from now";
  }
}

TEST_F(read_aside_test, AnInlineReadMadeMeanwhileIsNewerAndTheReadAsideIsDropped) {
  auto v = make(true);
  ASSERT_TRUE(v.refresh(*backend, now));
  now += 60;
  auto read = v.begin_read_aside(*backend, now);  // lists the LRMS as it is now
  ASSERT_NE(read, nullptr);
  (void)reserve(nullptr, now + 100, 600, 64);  // someone else takes every CPU
  v.wrong();                                   // the LRMS refused something: read it all now
  ASSERT_TRUE(v.refresh(*backend, now));
  ASSERT_EQ(v.profile().free_at(now + 200), 0);
  read->run();
  v.end_read_aside(*read, now);
  EXPECT_EQ(v.profile().free_at(now + 200), 0) << "the older listing replaced the newer";
  auto dropped = read->take_dropped();  // what it built, to be freed off the owner's thread
  ASSERT_NE(dropped, nullptr);
  EXPECT_EQ(dropped->profile().free_at(now + 200), 64);
}

TEST_F(read_aside_test, AFailedReadAsideMakesTheNextRefreshReadInlineAndAnswerTheError) {
  auto v = make(true);
  ASSERT_TRUE(v.refresh(*backend, now));
  now += 60;
  auto read = v.begin_read_aside(*backend, now);
  ASSERT_NE(read, nullptr);
  backend->down = true;
  read->run();
  v.end_read_aside(*read, now);
  auto refreshed = v.refresh(*backend, now);
  ASSERT_FALSE(refreshed);
  EXPECT_EQ(refreshed.err().code, errc::unreachable);
  backend->down = false;
  EXPECT_TRUE(v.refresh(*backend, now));
  EXPECT_EQ(backend->snapshots, 3);  // the first, the failed one, this one
}

struct engine_config : caf::actor_system_config {
  engine_config() { configure_engine(*this); }
};

// The actor answers prepares while its full read is held in the other thread (made inline,
// no read would begin aside, and the test fails saying so).
TEST_F(read_aside_test, TheServiceAnswersWhileItsFullReadIsUnderWay) {
  std::atomic<timestamp> clock{now};
  auto l = simulated_lrms::create({"c1", 64, {1, {}}, [&clock] { return clock.load(); }});
  ASSERT_TRUE(l);
  auto gated = std::make_unique<gated_lrms>(std::shared_ptr<simulated_lrms>(std::move(*l)));
  auto* gate = gated.get();
  cluster_service_config c;
  c.info.name = "c1";
  c.info.cpus = 64;
  c.refresh = 1;
  c.full_refresh = 30;
  auto svc = cluster_service::create(std::move(c), std::move(gated));
  ASSERT_TRUE(svc) << to_string(svc.err());
  {
    engine_config cfg;
    caf::actor_system sys{cfg};
    auto service = spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                                         [&clock] { return clock.load(); });
    caf::scoped_actor self{sys};
    int txn = 0;
    auto prepare = [&](timestamp start, int np) {
      msg::prepare_request p;
      p.txn = "t" + std::to_string(++txn);
      p.owner = "alice";
      p.start = start;
      p.end = start + 600;
      p.np = np;
      p.expiry = clock + 60;
      p.commit_at_once = true;
      msg::prepare_reply out;
      self->request(service, std::chrono::seconds(60),
                    msg::call_tag{static_cast<std::uint64_t>(txn)}, p)
          .receive([&](msg::call_tag, const msg::prepare_reply& r) { out = r; },
                   [&](const caf::error& e) {
                     out.error = msg::to_wire(fail(errc::timeout, sys.render(e)));
                   });
      return out;
    };
    const timestamp t0 = clock;
    ASSERT_TRUE(prepare(t0 + 3600, 1).error.ok());  // the first read, inline
    gate->entered = std::make_shared<std::promise<void>>();
    gate->release = std::make_shared<std::promise<void>>();
    auto entered = gate->entered->get_future();
    clock = t0 + 30;
    ASSERT_TRUE(prepare(t0 + 3600, 1).error.ok());  // due now: begun after this one
    ASSERT_EQ(entered.wait_for(std::chrono::seconds(60)), std::future_status::ready)
        << "no read aside began";
    for (int i = 0; i < 5; ++i) {
      auto r = prepare(t0 + 10'000 + i * 1000, 1);
      EXPECT_TRUE(r.error.ok()) << r.error.message;
    }
    gate->release->set_value();
    EXPECT_TRUE(prepare(t0 + 20'000, 1).error.ok());
    // Shutting down waits for the worker: it must have handed the read over and quit.
    self->send_exit(service, caf::exit_reason::user_shutdown);
  }
}

}  // namespace
}  // namespace arbroker
