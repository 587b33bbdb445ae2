// arb-demo: one elastic reservation request processed by the reservation core, step by step
// as in paper 000, Sec. 2.2 (GIS, probe, filter, rank, reserve), on simulated clusters read
// from a TOML file. It shows the core at work before the actor engine exists around it.

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

#include "arbroker/core/esr_static.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/core/time_format.hpp"
#include "demo_config.hpp"

namespace arbroker::demo {
namespace {

// What a simulated cluster knows while the demonstration runs.
struct cluster_state {
  const demo_cluster* config;
  workload_plan plan;  // its availability, local jobs planned first (LJP)
  timestamp t_wkl;     // the admission bound of Sec. 3.3.2
};

std::string clock(timestamp t, timestamp now) {
  return format_time(t).substr(11, 5) + (t - now >= seconds_per_day ? "+1d" : "");
}

int run(const demo_config& cfg, std::size_t show) {
  const auto& req = cfg.request;
  fmt::print("Request of {}: window {} .. {}, np {}-{}, {} on {} CPUs of power {}, speedup {}\n",
             req.user, format_time(req.est), format_time(req.let), req.np_min, req.np_max,
             format_duration(req.dur_ref), req.np_ref, req.pp_ref, req.sp.to_string());
  fmt::print("Preferences {}; esr method {} with threshold {}\n\n", to_string(cfg.prefs),
             to_string(cfg.probe.method), cfg.probe.threshold);

  // Probe phase: adapt the request to every site, generate and rate candidates.
  std::vector<cluster_state> clusters;
  std::vector<candidate> all;
  std::size_t generated = 0;
  for (const auto& c : cfg.clusters) {
    auto plan = plan_workload(c.workload, cfg.now, ese_policy::local_jobs_preferred);
    if (!plan) {
      spdlog::error("cluster {}: {}", c.site.name, to_string(plan.err()));
      return 2;
    }
    auto twkl = t_wkl(cfg.now, c.site.cpus, c.workload.running, c.workload.queued,
                      c.workload.reservations, cfg.probe.load);
    if (!twkl) {
      spdlog::error("cluster {}: {}", c.site.name, to_string(twkl.err()));
      return 2;
    }
    clusters.push_back({&c, std::move(*plan), *twkl});
    auto adapted = adapt_to_site(req, c.site);
    if (!adapted) {
      fmt::print("{:>8}: not a candidate: {}\n", c.site.name, adapted.err().message);
      continue;
    }
    auto cands = generate_candidates(c.site.name, *adapted, cfg.probe.limits);
    if (!cands) {
      fmt::print("{:>8}: not a candidate: {}\n", c.site.name, cands.err().message);
      continue;
    }
    for (auto& cand : *cands) {
      auto cost = c.cost.cost(cand.start, cand.end, cand.np, req.user);
      if (!cost) {
        spdlog::error("cluster {}: {}", c.site.name, to_string(cost.err()));
        return 2;
      }
      cand.props.cost = *cost;
      if (cfg.probe.method == esr_method::static_) {
        cand.props.esr = *esr_static(cand.start - cfg.now, cfg.probe.static_h);
      } else {
        cand.props.esr = esr_load(cand.start, *twkl);
      }
    }
    const auto& smallest = adapted->shapes.front();
    fmt::print("{:>8}: {} CPUs, np {}-{} ({} on {} there), T_wkl {}, {} candidates\n", c.site.name,
               c.site.cpus, smallest.np, adapted->shapes.back().np, format_duration(smallest.dur),
               smallest.np, clock(*twkl, cfg.now), cands->size());
    generated += cands->size();
    all.insert(all.end(), cands->begin(), cands->end());
  }

  auto kept = filter_by_esr(std::move(all), cfg.probe.threshold);
  if (!kept) {
    spdlog::error("{}", to_string(kept.err()));
    return 2;
  }
  auto order = preference_order(*kept, cfg.prefs);
  if (!order) {
    spdlog::error("{}", to_string(order.err()));
    return 2;
  }
  fmt::print("\n{} candidates probed, {} left after esr >= {}; best first:\n", generated,
             kept->size(), cfg.probe.threshold);
  fmt::print("  {:>3} {:>8} {:>11} {:>11} {:>4} {:>9} {:>5}\n", "#", "cluster", "start", "end",
             "np", "cost", "esr");
  for (std::size_t i = 0; i < std::min(show, order->size()); ++i) {
    const auto& c = (*kept)[(*order)[i]];
    fmt::print("  {:>3} {:>8} {:>11} {:>11} {:>4} {:>9.2f} {:>5.2f}\n", i + 1, c.site,
               clock(c.start, cfg.now), clock(c.end, cfg.now), c.np, *c.props.cost, *c.props.esr);
  }

  // Reserve phase: depth-first through the ranking until one succeeds (Sec. 3.3.2).
  int rejected_by_crs = 0;
  int rejected_by_scheduler = 0;
  for (std::size_t i : *order) {
    const auto& c = (*kept)[i];
    auto it = std::find_if(clusters.begin(), clusters.end(),
                           [&](const cluster_state& s) { return s.config->site.name == c.site; });
    if (c.start < it->t_wkl) {  // would bypass waiting local jobs
      ++rejected_by_crs;
      continue;
    }
    if (auto ok = it->plan.profile.add(c.start, c.end, c.np); !ok) {
      ++rejected_by_scheduler;
      continue;
    }
    fmt::print(
        "\nReserved {} CPUs on {} from {} to {} for {:.2f} (tries rejected: {} by the cluster "
        "service, {} by the scheduler)\n",
        c.np, c.site, format_time(c.start), format_time(c.end), *c.props.cost, rejected_by_crs,
        rejected_by_scheduler);
    return 0;
  }
  fmt::print(
      "\nNo candidate could be reserved ({} rejected by the cluster service, {} by the "
      "scheduler)\n",
      rejected_by_crs, rejected_by_scheduler);
  return 1;
}

}  // namespace
}  // namespace arbroker::demo

int main(int argc, char** argv) {
  CLI::App app{"arb-demo: the reservation core on a bundled example"};
  std::string config = "configs/examples/demo.toml";
  std::size_t show = 10;
  app.add_option("-c,--config", config, "demonstration file (TOML)")->check(CLI::ExistingFile);
  app.add_option("-n,--show", show, "how many ranked candidates to list");
  CLI11_PARSE(app, argc, argv);
  auto cfg = arbroker::demo::load_demo_config(config);
  if (!cfg) {
    spdlog::error("{}: {}", config, cfg.err().message);
    return 2;
  }
  return arbroker::demo::run(*cfg, show);
}
