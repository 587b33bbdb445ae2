#pragma once

// The broker's tests' fixture: the engine with three simulated clusters of different speed
// and price ("slow", "fast", "mid"), and the makings of stand-in services.

#include <string>

#include "engine_fixture.hpp"

namespace arbroker::testing {

inline errc code(const msg::wire_error& e) {
  return e.err();
}

struct broker_test : engine_fixture {
  void SetUp() override {
    add_cluster("slow", 64, 500, 4, 0.5);   // half as fast, cheaper
    add_cluster("fast", 32, 2000, 4, 2.0);  // twice as fast, dearer
    add_cluster("mid", 16, 1000, 4, 1.0);
  }

  // An hour on 8 CPUs (4 to 16) within the four hours from an hour on, held for a minute.
  msg::elastic_request minute_hold() {
    auto r = elastic(3600, 4 * 3600, 4, 16, 3600, 8);
    r.mode = msg::request_mode::hold;
    r.hold_seconds = 60;
    return r;
  }

  // A slot a stand-in service offers, priced 1.
  static msg::slot priced_slot(const std::string& cluster, timestamp start, timestamp end,
                               std::int32_t np) {
    msg::slot sl;
    sl.cluster = cluster;
    sl.start = start;
    sl.end = end;
    sl.np = np;
    sl.cost = 1;
    sl.flags = msg::slot::has_cost;
    return sl;
  }

  // A stand-in's handler of probe batches (how coordinators probe), each probe answered by
  // `one`.
  template <class F>
  static auto probes_by(F one) {
    return [one](msg::call_tag tag, const msg::probe_batch_request& b) {
      msg::probe_batch_reply out;
      for (const auto& p : b.probes)
        out.replies.push_back(one(p));
      return caf::make_message(tag, out);
    };
  }

  // Registers a stand-in service (a test's own actor) as a 16-CPU cluster of power 1000.
  void register_stand_in(const std::string& name, const caf::actor& service, double pp = 1000) {
    msg::cluster_info info;
    info.name = name;
    info.cpus = 16;
    info.pp = pp;
    auto ack = ask<msg::ack_reply>(gis, register_atom::value, info,
                                   caf::actor_cast<cluster_service_actor>(service));
    ASSERT_TRUE(ack.error.ok()) << ack.error.message;
  }
};

}  // namespace arbroker::testing
