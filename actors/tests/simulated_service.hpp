#pragma once

// A cluster service on a simulated LRMS of 64 CPUs, on a clock the test moves by hand, with
// an in-memory journal: for the tests of what a service does to its committed reservations
// over time (laxity moves, overruns).

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "memory_journal.hpp"

namespace arbroker::testing {

struct simulated_service : ::testing::Test {
  timestamp now = 1'000'000;
  simulated_lrms* lrms = nullptr;  // owned by the service
  std::unique_ptr<cluster_service> svc;
  std::shared_ptr<memory_journal> journal = std::make_shared<memory_journal>();
  int txns = 0;

  // Whatever a test did, the service's books still agree with themselves.
  void TearDown() override {
    if (svc) {
      EXPECT_EQ(svc->ledger_violation(), "");
    }
  }

  /// A new service "c1" (refresh 0, LJP off, the same journal); `tweak` sets the rest.
  void make(const std::function<void(cluster_service_config&)>& tweak = {}) {
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, [this] { return now; }});
    ASSERT_TRUE(l);
    lrms = l->get();
    cluster_service_config cfg;
    cfg.info.name = "c1";
    cfg.info.cpus = 64;
    cfg.refresh = 0;
    cfg.ljp = ljp_policy::off;
    cfg.journal = journal;
    if (tweak) tweak(cfg);
    auto s = cluster_service::create(std::move(cfg), std::move(*l));
    ASSERT_TRUE(s) << to_string(s.err());
    svc = std::move(*s);
  }

  /// alice's committed reservation of np CPUs over [start, start + len), movable within
  /// [earliest, deadline] when deadline > 0, asking for local-jobs-preferred.
  msg::prepare_reply reserve(timestamp start, duration len, int np, timestamp earliest = 0,
                             timestamp deadline = 0) {
    return svc->prepare({.txn = "t" + std::to_string(++txns),
                         .owner = "alice",
                         .start = start,
                         .end = start + len,
                         .np = np,
                         .expiry = now + 60,
                         .local_jobs_preferred = true,
                         .commit_at_once = true,
                         .earliest = earliest,
                         .deadline = deadline},
                        now);
  }

  /// The reservation as a client sees it: from the service, or once the service has
  /// forgotten it (it ended), from the journal's history, as the node answers.
  msg::reservation_info info(const std::string& id) {
    auto q = svc->query({"alice", id}, now);
    if (q.error.ok()) return q.info;
    auto it = journal->rows.find(id);
    if (it == journal->rows.end() || it->second.finished == 0) return q.info;
    const auto& r = it->second;
    msg::reservation_info out;
    out.id = r.id;
    out.cluster = r.cluster;
    out.owner = r.owner;
    out.start = r.start;
    out.end = r.end;
    out.np = r.np;
    out.state = r.state;
    out.cost = r.cost;
    out.finished = r.finished;
    return out;
  }

  /// The LRMS's copy of a reservation (by arbroker's name for it).
  std::optional<lrms_reservation> in_lrms(const std::string& id) {
    const std::string name = "arb-" + id.substr(id.find('/') + 1);
    auto snap = lrms->snapshot();
    if (!snap) return std::nullopt;
    for (const auto& r : snap->reservations)
      if (r.name == name) return r;
    return std::nullopt;
  }
};

}  // namespace arbroker::testing
