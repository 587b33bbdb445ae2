#pragma once

#include <string>
#include <vector>

#include "arbroker/core/cost.hpp"
#include "arbroker/core/earliest_start.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/esr_load.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/slot_generation.hpp"
#include "arbroker/core/success_rate.hpp"

namespace arbroker::demo {

/// One simulated cluster of the demonstration: what the GIS knows of it, its price list and
/// the local workload its batch system reports.
struct demo_cluster {
  site_description site;
  cost_model cost;
  cluster_workload workload;
};

/// How the probe phase samples and rates candidates.
struct demo_probe {
  probe_limits limits;
  esr_method method = esr_method::load;
  double threshold = 0.85;
  duration static_h = 18000;
  load_params load;
};

/// A whole demonstration: the time it is, one elastic request, and the grid.
struct demo_config {
  timestamp now = 0;
  elastic_request request;
  preferences prefs;
  demo_probe probe;
  std::vector<demo_cluster> clusters;
};

/// Reads a demonstration from a TOML file; errors name the file and the offending key.
result<demo_config> load_demo_config(const std::string& path);

}  // namespace arbroker::demo
