#pragma once

// The fixture of the cluster service's own tests (no actors).

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "c1_config.hpp"

namespace arbroker::testing {

// A 64-CPU cluster reserving in bunches of 8, on a clock the test moves by hand.
struct cluster_service_fixture : ::testing::Test {
  timestamp now = 1'000'000;
  simulated_lrms* lrms = nullptr;  // owned by the service
  std::unique_ptr<cluster_service> svc;

  void SetUp() override { make(); }

  // Whatever a test did, the service's books still agree with themselves.
  void TearDown() override {
    if (svc) {
      EXPECT_EQ(svc->ledger_violation(), "");
    }
  }

  void make(duration refresh = 0, std::shared_ptr<reservation_journal> journal = nullptr,
            ljp_policy ljp = ljp_policy::enforce, ljp_method check = ljp_method::ese,
            std::function<void(const reservation_row&)> on_change = nullptr) {
    auto l = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
    ASSERT_TRUE(l) << to_string(l.err());
    lrms = l->get();
    auto cfg = testing::c1_config();
    cfg.refresh = refresh;  // 0: every call sees the LRMS as it is
    cfg.journal = std::move(journal);
    cfg.ljp = ljp;
    cfg.ljp_check = check;
    cfg.on_change = std::move(on_change);
    auto s = cluster_service::create(std::move(cfg), std::move(*l));
    ASSERT_TRUE(s) << to_string(s.err());
    svc = std::move(*s);
  }

  // 8 to 32 CPUs for an hour on 8 of this cluster's CPUs, adapted as the broker adapts it.
  msg::probe_request probe_req(timestamp est, timestamp let,
                               speedup_model sp = *speedup_model::amdahl(0)) {
    msg::probe_request p;
    p.user = "alice";
    elastic_request job{"alice", est, let, 8, 32, 3600, 1000, 8, std::move(sp), {}};
    auto site = adapt_to_site(job, {"c1", 64, 1000, {8, {}}});
    if (site) p.site = *site;
    p.site.est = est;  // kept for a request that adapt_to_site refuses (a bad window)
    p.site.let = let;
    p.slotting = {4, 600};
    return p;
  }

  msg::prepare_request hold(std::string txn, timestamp start, duration len, int np,
                            std::string owner = "alice") {
    return {std::move(txn), std::move(owner), start, start + len, np, now + 60, true, false};
  }

  std::size_t lrms_reservations() { return lrms->snapshot()->reservations.size(); }
};

}  // namespace arbroker::testing
