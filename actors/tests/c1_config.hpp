#pragma once

// The cluster most service tests use: "c1", 64 CPUs of power 1000 reserved in bunches of 8,
// a view refreshed on every call, 1.0 per CPU-hour.

#include "arbroker/actors/cluster_service.hpp"

namespace arbroker::testing {

inline cluster_service_config c1_config() {
  cluster_service_config cfg;
  cfg.info.name = "c1";
  cfg.info.cpus = 64;
  cfg.info.pp = 1000;
  cfg.info.bunch = 8;
  cfg.refresh = 0;
  cfg.cost = *cost_model::create(1.0, 3600, {}, 0);
  return cfg;
}

}  // namespace arbroker::testing
