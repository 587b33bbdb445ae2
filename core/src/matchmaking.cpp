#include "arbroker/core/matchmaking.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "arbroker/core/laxity.hpp"

namespace arbroker {
namespace {

constexpr std::array<std::pair<std::string_view, match_policy>, 9> policy_table{{
    {"ran", match_policy::ran},
    {"ff", match_policy::ff},
    {"nf", match_policy::nf},
    {"imct", match_policy::imct},
    {"minu", match_policy::minu},
    {"maxu", match_policy::maxu},
    {"mli", match_policy::mli},
    {"sed", match_policy::sed},
    {"ttd", match_policy::ttd},
}};

// Indices of the core functions' name-ordered rankings, mapped back to the window.
template <class Ranked>
std::vector<std::size_t> by_name(const std::vector<Ranked>& ranked,
                                 const std::map<std::string, std::size_t>& index) {
  std::vector<std::size_t> order;
  order.reserve(ranked.size());
  for (const auto& r : ranked)
    order.push_back(index.at(r.name));
  return order;
}

}  // namespace

result<match_policy> parse_match_policy(std::string_view name) {
  for (const auto& [n, p] : policy_table)
    if (n == name) return p;
  return fail(errc::invalid_parameter, "unknown matchmaking policy '" + std::string(name) +
                                           "'; valid: " + std::string(match_policy_names));
}

std::string_view to_string(match_policy p) noexcept {
  for (const auto& [n, q] : policy_table)
    if (q == p) return n;
  return "?";
}

result<std::vector<std::size_t>> match_order(std::span<const match_report> reports,
                                             match_policy policy, const sed_application& app,
                                             std::string_view next_fit, std::mt19937_64& rng) {
  std::vector<std::size_t> fit;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (!index.emplace(reports[i].name, i).second)
      return fail(errc::invalid_parameter,
                  "cluster '" + reports[i].name + "' appears twice in the selection window");
    if (reports[i].meets_qos) fit.push_back(i);
  }
  if (fit.empty())
    return fail(errc::infeasible, "none of the " + std::to_string(reports.size()) +
                                      " clusters can meet the job's window");
  auto stable_by = [&](auto key) {
    std::stable_sort(fit.begin(), fit.end(), [&](std::size_t a, std::size_t b) {
      return key(reports[a]) < key(reports[b]);
    });
    return fit;
  };
  switch (policy) {
    case match_policy::ran:
      // Fisher-Yates with the raw engine output: the same seed gives the same order on every
      // standard library (std::shuffle's use of the engine is unspecified).
      for (std::size_t i = fit.size(); i > 1; --i)
        std::swap(fit[i - 1], fit[rng() % i]);
      return fit;
    case match_policy::ff:
      return fit;
    case match_policy::nf: {
      auto last = index.find(std::string(next_fit));
      if (last == index.end()) return fit;
      auto first = std::upper_bound(fit.begin(), fit.end(), last->second);
      std::rotate(fit.begin(), first, fit.end());
      return fit;
    }
    case match_policy::imct:
      return stable_by([](const match_report& r) { return r.completion; });
    case match_policy::minu:
      return stable_by([](const match_report& r) { return r.utilization; });
    case match_policy::maxu:
      return stable_by([](const match_report& r) { return -r.utilization; });
    case match_policy::mli: {
      std::vector<mli_option> options;
      for (auto i : fit)
        options.push_back(
            {true, reports[i].zeta, reports[i].completion, reports[i].relative_speed});
      std::vector<std::size_t> order;
      while (order.size() < fit.size()) {
        auto best = choose_min_laxity_impact(options);
        if (!best) return best.err();
        order.push_back(fit[*best]);
        options[*best].meets_qos = false;  // chosen: the next round picks among the rest
      }
      return order;
    }
    case match_policy::sed: {
      std::vector<sed_machine> machines;
      for (auto i : fit) {
        machines.push_back(reports[i].machine);
        machines.back().name = reports[i].name;
      }
      auto ranked = rank_by_expected_delay(app, machines);
      if (!ranked) return ranked.err();
      return by_name(*ranked, index);
    }
    case match_policy::ttd: {
      std::vector<ttd_candidate> clusters;
      for (auto i : fit)
        clusters.push_back({reports[i].name, reports[i].ttd});
      auto ranked = rank_by_time_to_delivery(clusters);
      if (!ranked) return ranked.err();
      return by_name(*ranked, index);
    }
  }
  return fail(errc::invalid_parameter, "unknown matchmaking policy");
}

}  // namespace arbroker
