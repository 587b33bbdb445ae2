#include "remote_config.hpp"

#include <set>

#include "arbroker/actors/broker_scope.hpp"

namespace arbroker::detail {

using namespace reading;

result<cluster_entry> read_remote_cluster(const toml::table& t, const std::string& path) {
  ARB_TRY(only_known_keys(t, path, {"name", "kind", "agent", "agent_name"}));
  cluster_entry c;
  c.kind = cluster_kind::remote;
  std::string kind = "remote";
  ARB_TRY(optional(t, path, "kind", kind, as_text));
  if (kind != "remote")
    return bad(path + ".kind", "a cluster with an agent is remote (its agent says what it is)");
  auto name = config::text(at(t, path, "name"));
  if (!name) return name.err();
  c.info.name = *name;
  ARB_TRY(optional(t, path, "agent", c.agent, as_text));
  ARB_TRY(optional(t, path, "agent_name", c.agent_name, as_text));
  return c;
}

status read_agent(const toml::table& root, node_config& cfg) {
  if (!root.contains("agent")) return {};
  auto* t = root["agent"].as_table();
  if (!t) return bad("agent", "expected a table");
  ARB_TRY(only_known_keys(*t, "agent",
                          {"listen", "name", "certificate", "private_key", "broker_ca", "brokers",
                           "admin_brokers", "allow_plaintext", "opening", "silence"}));
  agent_entry a;
  auto listen = config::text(at(*t, "agent", "listen"));
  if (!listen) return listen.err();
  a.listen = *listen;
  ARB_TRY(optional(*t, "agent", "name", a.name, as_text));
  ARB_TRY(optional(*t, "agent", "certificate", a.certificate, as_text));
  ARB_TRY(optional(*t, "agent", "private_key", a.private_key, as_text));
  ARB_TRY(optional(*t, "agent", "broker_ca", a.broker_ca, as_text));
  ARB_TRY(optional(*t, "agent", "allow_plaintext", a.allow_plaintext, as_bool));
  ARB_TRY(optional(*t, "agent", "opening", a.opening, as_span));
  ARB_TRY(optional(*t, "agent", "silence", a.silence, as_span));
  auto brokers = strings(*t, "agent", "brokers");
  if (!brokers) return brokers.err();
  a.brokers = std::move(*brokers);
  auto admins = strings(*t, "agent", "admin_brokers");
  if (!admins) return admins.err();
  a.admin_brokers = std::move(*admins);
  cfg.agent = std::move(a);
  return {};
}

status read_remote(const toml::table& root, node_config& cfg) {
  if (!root.contains("remote")) return {};
  auto* t = root["remote"].as_table();
  if (!t) return bad("remote", "expected a table");
  ARB_TRY(only_known_keys(*t, "remote",
                          {"certificate", "private_key", "agent_ca", "allow_plaintext",
                           "call_timeout", "heartbeat", "silence"}));
  auto& r = cfg.remote;
  ARB_TRY(optional(*t, "remote", "certificate", r.certificate, as_text));
  ARB_TRY(optional(*t, "remote", "private_key", r.private_key, as_text));
  ARB_TRY(optional(*t, "remote", "agent_ca", r.agent_ca, as_text));
  ARB_TRY(optional(*t, "remote", "allow_plaintext", r.allow_plaintext, as_bool));
  ARB_TRY(optional(*t, "remote", "call_timeout", r.call_timeout, as_number));
  ARB_TRY(optional(*t, "remote", "heartbeat", r.heartbeat, as_number));
  ARB_TRY(optional(*t, "remote", "silence", r.silence, as_number));
  return {};
}

status validate_remote(const node_config& cfg) {
  bool any_remote = false;
  for (std::size_t i = 0; i < cfg.clusters.size(); ++i) {
    const auto& c = cfg.clusters[i];
    if (c.kind != cluster_kind::remote) continue;
    any_remote = true;
    const std::string p = "cluster[" + std::to_string(i) + "]";
    auto ep = parse_endpoint(c.agent, false);
    if (!ep) return bad(p + ".agent", ep.err().message);
    if (c.agent_name.empty() && !cfg.remote.allow_plaintext)
      return bad(p + ".agent_name", "the agent's certificate name is needed to check it");
  }
  const auto& r = cfg.remote;
  if (any_remote && !r.allow_plaintext &&
      (r.certificate.empty() || r.private_key.empty() || r.agent_ca.empty()))
    return bad("remote",
               "clusters with an agent need certificate, private_key and agent_ca "
               "(or allow_plaintext, to loopback agents only)");
  for (auto [key, v] : {std::pair{"call_timeout", r.call_timeout},
                        std::pair{"heartbeat", r.heartbeat}, std::pair{"silence", r.silence}})
    if (!(v > 0) || v > 86400) return bad(std::string("remote.") + key, "must be in (0, 86400] s");
  if (r.silence <= r.heartbeat)
    return bad("remote.silence", "must be longer than remote.heartbeat");
  if (!cfg.agent) return {};
  const auto& a = *cfg.agent;
  auto ep = parse_endpoint(a.listen, true);
  if (!ep) return bad("agent.listen", ep.err().message);
  if (!a.allow_plaintext && (a.certificate.empty() || a.private_key.empty() || a.broker_ca.empty()))
    return bad("agent",
               "needs certificate, private_key and broker_ca (or allow_plaintext, on "
               "loopback only)");
  if (a.brokers.empty() && a.admin_brokers.empty())
    return bad("agent.brokers", "name the brokers it serves");
  for (const auto& [key, names] : {std::pair{"agent.brokers", &a.brokers},
                                   std::pair{"agent.admin_brokers", &a.admin_brokers}}) {
    std::set<std::string> seen;
    for (const auto& b : *names) {
      if (!broker_scope::valid_broker_name(b))
        return bad(key, "'" + b + "' cannot name a broker (1-64 letters, digits, '.', '_', '-')");
      if (!seen.insert(b).second) return bad(key, "'" + b + "' is listed twice");
    }
  }
  if (a.opening < 1 || a.silence < 1) return bad("agent", "opening and silence must be >= 1 s");
  return {};
}

}  // namespace arbroker::detail
