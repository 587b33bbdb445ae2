// arb-embed: the arbroker engine inside another program, no network. It starts the grid
// information service, the reservation service of one simulated 64-CPU cluster and the
// broker in this process, asks for one elastic reservation and prints what it got.
// Exit code 0 when something was reserved, 1 otherwise.

#include <caf/all.hpp>

#include <cstdio>
#include <memory>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/actors/crs.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time_format.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace {

struct engine_config : caf::actor_system_config {
  engine_config() { arbroker::configure_engine(*this); }
};

// A simulated cluster behind its reservation service, registered with the GIS.
arbroker::result<caf::actor> add_cluster(caf::actor_system& sys, caf::scoped_actor& self,
                                         const caf::actor& gis, const std::string& name, int cpus) {
  auto lrms = arbroker::simulated_lrms::create({name, cpus, {}, arbroker::wall_clock()});
  if (!lrms) return lrms.err();
  arbroker::cluster_service_config c;
  c.info.name = name;
  c.info.cpus = cpus;
  c.info.pp = 1000;
  auto service = arbroker::cluster_service::create(std::move(c), std::move(*lrms));
  if (!service) return service.err();
  auto info = (*service)->info();
  auto crs = sys.spawn(arbroker::crs_actor,
                       std::shared_ptr<arbroker::cluster_service>(std::move(*service)),
                       arbroker::wall_clock());
  bool registered = false;
  self->request(gis, std::chrono::seconds(10), arbroker::register_atom::value, info, crs)
      .receive([&](arbroker::msg::ack_reply& r) { registered = r.error.ok(); },
               [&](caf::error&) {});
  if (!registered) return arbroker::fail(arbroker::errc::unreachable, "GIS did not register");
  return crs;
}

}  // namespace

int main() {
  engine_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  auto gis = sys.spawn(arbroker::gis_actor);
  auto crs = add_cluster(sys, self, gis, "sim1", 64);
  if (!crs) {
    std::fprintf(stderr, "arb-embed: %s\n", arbroker::to_string(crs.err()).c_str());
    return 1;
  }
  arbroker::broker_config bc;
  bc.gis = gis;
  bc.clock = arbroker::wall_clock();
  auto broker = sys.spawn(arbroker::broker_actor, bc);

  // 4 to 32 CPUs within the next 6 hours; 2 h on 8 CPUs of power 1000; Amdahl 1% serial.
  const auto now = arbroker::wall_clock()();
  arbroker::msg::elastic_request req;
  req.user = "alice";
  req.est = now + 600;
  req.let = now + 6 * 3600;
  req.np_min = 4;
  req.np_max = 32;
  req.dur_ref = 2 * 3600;
  req.pp_ref = 1000;
  req.np_ref = 8;
  req.speedup = arbroker::msg::to_spec(*arbroker::speedup_model::amdahl(0.01));
  req.prefer = "end,cost";

  int exit_code = 1;
  self->request(broker, std::chrono::seconds(60), req)
      .receive(
          [&](arbroker::msg::elastic_reply& r) {
            if (!r.error.ok()) {
              std::printf("not reserved: %s\n", r.error.message.c_str());
              return;
            }
            const auto& res = r.reservation;
            std::printf("reserved %d CPUs on %s from %s to %s (id %s, cost %.2f)\n", res.np,
                        res.cluster.c_str(), arbroker::format_time(res.start).c_str(),
                        arbroker::format_time(res.end).c_str(), res.id.c_str(), res.cost);
            exit_code = 0;
          },
          [&](caf::error& e) { std::printf("no answer: %s\n", sys.render(e).c_str()); });

  // ~actor_system waits for every actor: stop the long-lived ones.
  for (const auto& a : {broker, *crs, gis})
    self->send_exit(a, caf::exit_reason::user_shutdown);
  return exit_code;
}
