#pragma once

// A valid body of every operation, for round trips and as the base that validation tests
// break one field at a time.

#include "arbroker/api/protocol.hpp"

namespace arbroker::api::testing {

inline msg::elastic_request valid_elastic() {
  msg::elastic_request r;
  r.user = "alice";
  r.est = 1'800'000'000;
  r.let = r.est + 12 * 3600;
  r.np_min = 4;
  r.np_max = 32;
  r.dur_ref = 7200;
  r.pp_ref = 1500;
  r.np_ref = 8;
  r.speedup.kind = msg::speedup_kind::amdahl;
  r.speedup.p1 = 0.01;
  r.clusters = {"a", "b"};
  return r;
}

inline msg::coreservation_request valid_coreserve() {
  msg::coreservation_request r;
  r.user = "alice";
  r.est = 1'800'000'000;
  r.let = r.est + 3600 * 6;
  msg::coreservation_component c;
  c.np_min = 2;
  c.np_max = 8;
  c.dur_ref = 600;
  c.pp_ref = 1000;
  c.np_ref = 2;
  r.components = {c, c};
  return r;
}

inline std::vector<request_body> valid_bodies() {
  return {valid_elastic(),
          valid_coreserve(),
          estimate_request{"alice", 8, 3600, {"a"}, 1'000'000, 1'090'000},
          msg::commit_request{"alice", "a/1", {{"job", 2, 60, "hostname"}}},
          msg::modify_request{"alice", "a/1", 1'800'000'000, 1'800'003'600, 4, true},
          msg::cancel_request{"alice", "a/1"},
          msg::query_request{"alice", "a/1"},
          msg::list_request{"alice", true, 50, "1800000000:a/7"},
          msg::bind_job_request{"alice", "a/1", "job", 4, 600, "sleep 1"},
          cluster_list_request{},
          status_request{{"a"}},
          msg::watch_request{"alice", 17, {"reservation", "grid_job.migrated"}}};
}

}  // namespace arbroker::api::testing
