#include "remote_clusters.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string_view>

#include "arbroker/actors/broker_scope.hpp"

namespace arbroker::detail {

namespace {

// The agent's caller "<broker>:<user>" (broker_scope.hpp) taken apart.
broker_scope::caller caller_of(std::string_view scoped_user) {
  return broker_scope::split(scoped_user).value_or(broker_scope::caller{"", scoped_user});
}

bool visible_to(const reservation_row& row, std::string_view scoped_user) {
  return broker_scope::may_see(caller_of(scoped_user), row.txn, row.owner);
}

}  // namespace

result<std::unique_ptr<remote::agent_server>> serve_agent(
    caf::actor_system& sys, const node_config& cfg, std::vector<remote::agent_served_cluster> local,
    remote_event_fn on_event, history_reader* history) {
  const auto& a = *cfg.agent;
  remote::agent_server_config ac;
  ac.name = a.name.empty() ? cfg.name : a.name;
  auto ep = parse_endpoint(a.listen);
  if (!ep) return error{ep.err().code, "agent.listen: " + ep.err().message};
  boost::system::error_code ec;
  ac.endpoint = {boost::asio::ip::make_address(ep->first, ec), ep->second};
  if (ec)
    return fail(errc::invalid_parameter, "agent.listen: '" + ep->first + "' is not an IP address");
  if (!a.certificate.empty()) {
    auto tls = api::make_server_tls({a.certificate, a.private_key, a.broker_ca});
    if (!tls) return error{tls.err().code, "agent: " + tls.err().message};
    ac.tls = *tls;
  }
  ac.brokers = a.brokers;
  ac.admin_brokers = a.admin_brokers;
  ac.opening = std::chrono::seconds(a.opening);
  ac.silence = std::chrono::seconds(a.silence);
  ac.on_event = std::move(on_event);
  if (history)
    ac.finished = [history](const std::string& id, const std::string& scoped_user,
                            std::function<void(std::optional<msg::reservation_info>)> done) {
      history->finished(id, "", [scoped_user, done](result<std::optional<reservation_row>> row) {
        if (row && *row && visible_to(**row, scoped_user)) return done(info_of(**row));
        done(std::nullopt);
      });
    };
  if (history)
    ac.history_page = [history](const std::string& cluster, const msg::list_request& scoped,
                                std::function<void(msg::list_reply)> done) {
      auto req = scoped;
      req.user = std::string(caller_of(scoped.user).rest);  // by owner there, by broker below
      history->page(req, cluster, [scoped_user = scoped.user, done](auto page) {
        msg::list_reply out;
        if (!page) {
          out.error = msg::to_wire(page.err());
          return done(std::move(out));
        }
        // Other brokers' rows make the page shorter, never wrong: the cursor is where the
        // store's page ended.
        for (const auto& row : page->first)
          if (visible_to(row, scoped_user)) out.reservations.push_back(info_of(row));
        out.next = std::move(page->second);
        done(std::move(out));
      });
    };
  return remote::agent_server::start(sys, std::move(ac), std::move(local));
}

result<remote_links> reach_agents(
    caf::actor_system& sys, const node_config& cfg, remote_event_fn on_event,
    std::function<void(const msg::cluster_info&, const cluster_service_actor&)> on_cluster,
    std::function<status()> may_change) {
  std::map<std::string, remote::remote_agent_config> by_address;
  std::vector<std::string> order;  // the clusters, as configured
  for (const auto& c : cfg.clusters) {
    if (c.kind != cluster_kind::remote) continue;
    order.push_back(c.info.name);
    auto& rc = by_address[c.agent];
    if (rc.address.empty()) {
      rc.address = c.agent;
      rc.agent_name = c.agent_name;
    } else if (rc.agent_name != c.agent_name) {
      return fail(errc::invalid_parameter, "the clusters of agent " + c.agent +
                                               " give two names for it ('" + rc.agent_name +
                                               "', '" + c.agent_name + "')");
    }
    rc.clusters.push_back(c.info.name);
  }
  remote_links out;
  if (by_address.empty()) return out;
  const auto& r = cfg.remote;
  api::tls_context tls;
  if (!r.certificate.empty()) {
    auto t = api::make_client_tls({r.agent_ca, r.certificate, r.private_key});
    if (!t) return error{t.err().code, "remote: " + t.err().message};
    tls = *t;
  }
  const auto ms = [](double s) { return std::chrono::milliseconds(static_cast<long>(s * 1000)); };
  std::map<std::string, cluster_service_actor> proxies;
  for (auto& [address, rc] : by_address) {
    rc.broker_name = cfg.name;
    rc.tls = tls;
    rc.call_timeout = ms(r.call_timeout);
    rc.heartbeat = ms(r.heartbeat);
    rc.silence = ms(r.silence);
    rc.on_event = on_event;
    rc.on_cluster = on_cluster;
    rc.may_change = may_change;
    auto a = remote::remote_agent::start(sys, rc);
    if (!a) return a.err();
    for (const auto& name : rc.clusters)
      proxies[name] = (*a)->cluster(name);
    out.agents.push_back(std::move(*a));
  }
  // The node starts with its directory whole when its agents answer: it waits for their
  // first word (welcome or failure), 5 s at most for all of them (they connect at once).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (const auto& a : out.agents)
    (void)a->wait_settled(std::max(std::chrono::milliseconds(0),
                                   std::chrono::duration_cast<std::chrono::milliseconds>(
                                       until - std::chrono::steady_clock::now())));
  for (const auto& name : order)
    out.proxies.emplace_back(name, proxies[name]);
  return out;
}

}  // namespace arbroker::detail
