#pragma once

// The clusters the service tests use: c1_config, "c1", 64 CPUs of power 1000 reserved in
// bunches of 8, a view refreshed on every call, 1.0 per CPU-hour; plain_c1, the same name
// and CPUs with nothing else set but LJP off.

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

/// "c1", 64 CPUs, the view read on every call, LJP off.
inline cluster_service_config plain_c1() {
  cluster_service_config cfg;
  cfg.info.name = "c1";
  cfg.info.cpus = 64;
  cfg.refresh = 0;
  cfg.ljp = ljp_policy::off;
  return cfg;
}

}  // namespace arbroker::testing
