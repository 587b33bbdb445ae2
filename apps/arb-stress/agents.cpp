#include "agents.hpp"

#include <map>
#include <mutex>

namespace arbroker::stress {

result<agent_spec> parse_agent_spec(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return fail(errc::invalid_parameter,
                "--agent wants host:port=cluster[,cluster...], not '" + text + "'");
  agent_spec s;
  s.address = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  for (std::size_t from = 0; from <= rest.size();) {
    const auto comma = std::min(rest.find(',', from), rest.size());
    if (comma == from) return fail(errc::invalid_parameter, "--agent: an empty cluster name");
    s.clusters.push_back(rest.substr(from, comma - from));
    from = comma + 1;
  }
  return s;
}

result<reached_agents> reach_agents(caf::actor_system& sys, const std::vector<agent_spec>& specs,
                                    const std::string& name, std::chrono::milliseconds limit) {
  // What each agent said of its clusters, from the links' threads.
  struct described {
    std::mutex m;
    std::map<std::string, msg::cluster_info> infos;
  };
  auto seen = std::make_shared<described>();
  reached_agents out;
  for (const auto& s : specs) {
    remote::remote_agent_config c;
    c.address = s.address;
    c.broker_name = name;
    c.clusters = s.clusters;
    c.call_timeout = std::chrono::seconds(60);  // a saturated agent is slow, not gone
    c.on_cluster = [seen](const msg::cluster_info& info, const cluster_service_actor&) {
      std::lock_guard<std::mutex> g(seen->m);
      seen->infos[info.name] = info;
    };
    auto a = remote::remote_agent::start(sys, std::move(c));
    if (!a) return a.err();
    out.links.push_back(std::move(*a));
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Settled: welcomed, or refused (a refusal is final here: say why at once).
    if (!out.links[i]->wait_settled(std::max(left, std::chrono::milliseconds(0))) ||
        !out.links[i]->connected())
      return fail(errc::unreachable,
                  "agent " + specs[i].address + ": " + out.links[i]->last_error());
    std::lock_guard<std::mutex> g(seen->m);
    for (const auto& n : specs[i].clusters) {
      auto it = seen->infos.find(n);
      if (it == seen->infos.end())
        return fail(errc::not_found,
                    "agent " + specs[i].address + " serves no cluster '" + n + "'");
      out.clusters.emplace_back(it->second, out.links[i]->cluster(n));
    }
  }
  return out;
}

}  // namespace arbroker::stress
