#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "arbroker/core/speedup.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "stress_types.hpp"

namespace arbroker::stress {
namespace {

// A planned request always passes the check; one that does not is a bug in the plan.
template <class T>
T checked(result<T> r) {
  if (!r) {
    std::fprintf(stderr, "arb-stress: a planned request fails its check: %s\n",
                 r.err().message.c_str());
    std::abort();
  }
  return std::move(*r);
}

}  // namespace

const char* to_string(op_kind k) {
  switch (k) {
    case op_kind::reserve:
      return "reserve";
    case op_kind::hold:
      return "hold";
    case op_kind::coreserve:
      return "coreserve";
    case op_kind::cancel:
      return "cancel";
    case op_kind::modify:
      return "modify";
    case op_kind::whatif:
      return "whatif";
    case op_kind::grid_flood:
      return "gridflood";
    case op_kind::grid_adaptive:
      return "gridadapt";
    case op_kind::grid_reserve:
      return "gridreserve";
  }
  return "?";
}

std::vector<planned_op> plan_client(const stress_options& o, int client, timestamp now,
                                    const std::vector<std::string>& clusters) {
  std::mt19937_64 rng(o.seed * 1'000'003 + static_cast<std::uint64_t>(client));
  auto uni = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(rng);
  };
  const int weights[op_kinds] = {o.mix.reserve,    o.mix.hold,          o.mix.coreserve,
                                 o.mix.cancel,     o.mix.modify,        o.mix.whatif,
                                 o.mix.grid_flood, o.mix.grid_adaptive, o.mix.grid_reserve};
  std::discrete_distribution<int> pick(std::begin(weights), std::end(weights));
  const auto linear = msg::to_spec(*speedup_model::amdahl(0.0));
  const std::string user = "user" + std::to_string(client % 997);

  std::vector<planned_op> ops;
  ops.reserve(static_cast<std::size_t>(o.requests_per_client));
  for (int i = 0; i < o.requests_per_client; ++i) {
    planned_op op;
    op.kind = static_cast<op_kind>(pick(rng));
    // Narrow windows a little way ahead: many requests want the same few hours.
    const duration dur = 60 * uni(30, 120);
    const timestamp est = now + 60 * uni(10, std::max(11, 60 * o.spread_hours));
    const timestamp let = est + dur * uni(1, 3);
    if (op.kind == op_kind::grid_flood || op.kind == op_kind::grid_adaptive ||
        op.kind == op_kind::grid_reserve) {
      auto& g = op.grid;
      g.user = user;
      g.name = "stress";
      g.np = static_cast<std::int32_t>(uni(1, o.np_max));
      g.walltime = dur;
      g.strategy = op.kind == op_kind::grid_flood      ? grid_strategy::flood
                   : op.kind == op_kind::grid_adaptive ? grid_strategy::adaptive
                                                       : grid_strategy::reserve;
      g.width = 3;
      ops.push_back(std::move(op));
      continue;
    }
    if (op.kind == op_kind::coreserve) {
      auto& c = op.coreservation;
      c.user = user;
      c.est = est;
      c.let = let + dur;
      c.tss_gap = 300;
      c.max_attempts = 4;
      std::vector<std::string> pool(
          clusters.begin(),
          clusters.begin() + std::min<std::size_t>(clusters.size(), static_cast<std::size_t>(
                                                                        o.coreservation_clusters)));
      for (int p = 0; p < o.coreservation_parts; ++p) {
        msg::coreservation_component comp;
        comp.np_min = comp.np_max =
            o.bunch * static_cast<int>(uni(1, std::max(1, o.np_max / o.bunch)));
        comp.np_min = std::max(comp.np_min, o.np_min);
        comp.np_max = comp.np_min;
        comp.dur_ref = dur;
        comp.pp_ref = 1500;
        comp.np_ref = comp.np_min;
        comp.speedup = linear;
        comp.clusters = pool;
        c.components.push_back(std::move(comp));
      }
    } else {
      auto& e = op.elastic;
      e.user = user;
      e.est = est;
      e.let = let;
      e.np_min = o.np_min;
      e.np_max = o.np_max;
      e.dur_ref = dur;
      e.pp_ref = 1500;
      e.np_ref = o.np_min;
      e.speedup = linear;
      e.prefer = msg::default_preferences();
      e.policy = o.policy;
      e.tsn_max = o.tsn_max;
      e.tss_gap = 300;
      e.mode = op.kind == op_kind::hold     ? msg::request_mode::hold
               : op.kind == op_kind::whatif ? msg::request_mode::whatif
                                            : msg::request_mode::reserve;
      if (op.kind == op_kind::hold) e.hold_seconds = o.hold_seconds;
      std::uniform_real_distribution<double> share(0, 1);
      if (o.hot_clusters > 0 && share(rng) < o.hot_share)
        for (int h = 0; h < o.hot_clusters && h < static_cast<int>(clusters.size()); ++h)
          e.clusters.push_back(clusters[static_cast<std::size_t>(h)]);
      op.commit_hold = uni(0, 1) == 1;
    }
    if (op.kind == op_kind::coreserve)
      op.checked_coreservation = checked(msg::check(op.coreservation));
    else
      op.checked_elastic = checked(msg::check(op.elastic));
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace arbroker::stress
