#pragma once

// A cluster service on a simulated LRMS (64 CPUs unless a test says otherwise), on a clock
// the test moves by hand, with an in-memory journal: for the tests of what a service does
// with its reservations and their jobs, at once and over time.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "c1_config.hpp"
#include "memory_journal.hpp"

namespace arbroker::testing {

/// What simulated_service::make builds.
struct service_setup {
  cluster_service_config config = plain_c1();
  int bunch = 1;          ///< the simulated LRMS reserves CPUs in bunches of this many
  bool journaled = true;  ///< with the fixture's journal
  /// Puts the simulated LRMS behind a test double (none: the service drives it directly).
  std::function<std::unique_ptr<lrms>(std::unique_ptr<simulated_lrms>)> wrap = {};
};

/// A wrap that puts the LRMS behind a new `Double` (a delegating_lrms) and points `out` at it.
template <class Double>
auto wrapped_in(Double*& out) {
  return [&out](std::unique_ptr<simulated_lrms> inner) -> std::unique_ptr<lrms> {
    auto l = std::make_unique<Double>(std::move(inner));
    out = l.get();
    return l;
  };
}

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

  /// A new service on a new simulated LRMS of the configuration's name and CPUs, with the
  /// fixture's journal (when `journaled`), on the fixture's clock.
  void make(service_setup setup) {
    auto& cfg = setup.config;
    auto l = simulated_lrms::create(
        {cfg.info.name, cfg.info.cpus, {setup.bunch, {}}, [this] { return now; }});
    ASSERT_TRUE(l) << to_string(l.err());
    lrms = l->get();
    if (setup.journaled) cfg.journal = journal;
    std::unique_ptr<arbroker::lrms> backend;
    if (setup.wrap)
      backend = setup.wrap(std::move(*l));
    else
      backend = std::move(*l);
    auto s = cluster_service::create(std::move(cfg), std::move(backend));
    ASSERT_TRUE(s) << to_string(s.err());
    svc = std::move(*s);
  }

  /// A new plain_c1 service with the same journal; `tweak` sets the rest.
  void make(const std::function<void(cluster_service_config&)>& tweak = {}) {
    service_setup setup;
    setup.config.journal = journal;
    if (tweak) tweak(setup.config);
    setup.journaled = false;  // set above, where tweak may change it
    make(std::move(setup));
  }

  /// alice's hold of np CPUs over [start, start + len), expiring in a minute.
  msg::prepare_reply hold(timestamp start, duration len, int np) {
    return svc->prepare({.txn = "t" + std::to_string(++txns),
                         .owner = "alice",
                         .start = start,
                         .end = start + len,
                         .np = np,
                         .expiry = now + 60},
                        now);
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
