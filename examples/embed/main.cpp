// arb-embed: a broker node inside another program, no network. It starts a node on a
// simulated grid (the same default grid as a bare `arbd`, or a node TOML file given as the
// first argument), asks for one elastic reservation through the C++ API, and prints what
// it got. Exit code 0 when something was reserved, 1 otherwise.

#include <chrono>
#include <cstdio>

#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time_format.hpp"
#include "arbroker/node/node.hpp"

int main(int argc, char** argv) {
  auto cfg = argc > 1 ? arbroker::load_node_config(argv[1])
                      : arbroker::result<arbroker::node_config>(arbroker::default_node_config());
  if (!cfg) {
    std::fprintf(stderr, "arb-embed: %s\n", arbroker::to_string(cfg.err()).c_str());
    return 1;
  }
  cfg->data_dir.clear();  // keep nothing on disk: this is a one-shot program
  auto node = arbroker::node::start(std::move(*cfg));
  if (!node) {
    std::fprintf(stderr, "arb-embed: %s\n", arbroker::to_string(node.err()).c_str());
    return 1;
  }

  // 4 to 32 CPUs within the next 6 hours; 2 h on 8 CPUs of power 1000; Amdahl 1% serial.
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
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
  req.prefer = *arbroker::parse_preferences("end,cost");

  const auto reply = (*node)->elastic(req);  // blocks until the broker answers
  if (!reply.error.ok()) {
    std::fprintf(stderr, "arb-embed: not reserved: %s\n", reply.error.message.c_str());
    return 1;
  }
  const auto& r = reply.reservation;
  std::printf("reserved %d CPUs on %s from %s to %s (id %s, cost %.2f)\n", r.np, r.cluster.c_str(),
              arbroker::format_time(r.start).c_str(), arbroker::format_time(r.end).c_str(),
              r.id.c_str(), r.cost);
  return 0;
}
