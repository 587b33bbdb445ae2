#pragma once

// The agent's side of the agent protocol (agent_protocol.hpp): serves this process's cluster
// services to broker nodes in other processes. Each connection must complete TLS with a
// client certificate the configured CA signed, whose common name is one of `brokers` (an
// agent's certificate, or any other, is refused), then a hello of the same protocol version
// and interface fingerprint, all within the opening deadline; it is closed after `silence`
// without a word (brokers send heartbeats). Calls go to the named cluster's service through
// one actor per connection; the answers go back as they come, in any order.
//
// Ownership: the server owns its io thread and its connections; the cluster services are the
// caller's (the server holds handles). Destroying the server closes every connection.

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "arbroker/actors/protocols.hpp"
#include "arbroker/api/tls.hpp"
#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker::remote {

struct agent_server_config {
  std::string name = "arb-agent";  ///< the agent's name (its certificate's common name)
  boost::asio::ip::tcp::endpoint endpoint{boost::asio::ip::make_address("127.0.0.1"), 0};
  /// api::make_server_tls with client_ca set (mutual TLS). Null: plain text, which the
  /// caller allows on loopback only (check_agent_transport).
  api::tls_context tls;
  /// The brokers it serves: their certificates' common names (with plain text, the names
  /// their hellos give). Nobody else gets past the opening.
  std::vector<std::string> brokers;
  /// Brokers that may act on every broker's reservations and jobs (an operators' broker);
  /// served as if listed in `brokers` too. The others reach only what they made.
  std::vector<std::string> admin_brokers;
  std::chrono::milliseconds opening{5000};   ///< TLS handshake + hello
  std::chrono::milliseconds silence{10000};  ///< a broker that says nothing this long is cut
  std::size_t max_connections = 256;
  std::size_t max_frame = std::size_t{16} << 20;
  /// A reservation the cluster services no longer hold (finished: the agent's store has it),
  /// for a query that found nothing: the id and the caller's scoped user (broker_scope.hpp:
  /// "<broker>:<user>", or ":<user>" for an admin broker); `done` gets what a query would
  /// answer, or nothing when there is none that caller may see. On any thread; null: queries
  /// answer from the services alone.
  std::function<void(const std::string& id, const std::string& scoped_user,
                     std::function<void(std::optional<msg::reservation_info>)> done)>
      finished;
  /// A page of `cluster`'s finished reservations from the agent's store, for a list with
  /// history (its user scoped as above, its cursor and limit as the broker node's history
  /// pages); `done` gets the page. On any thread; null: such a list answers from the services.
  std::function<void(const std::string& cluster, const msg::list_request& scoped,
                     std::function<void(msg::list_reply)> done)>
      history_page;
  /// Connections opened, refused and lost, in words (for the log); on the server's thread.
  std::function<void(const std::string&)> on_event;
};

struct agent_served_cluster {
  msg::cluster_info info;
  cluster_service_actor service;
};

struct agent_server_counters {
  std::size_t connections_open = 0;
  std::size_t refused = 0;  ///< openings that failed (TLS, identity, version, deadline)
  std::size_t calls = 0;
};

class agent_server {
 public:
  /// Binds and listens (invalid_parameter/unreachable naming the address when it cannot;
  /// invalid_parameter for a broker name that broker_scope.hpp cannot carry).
  static result<std::unique_ptr<agent_server>> start(caf::actor_system& sys,
                                                     agent_server_config config,
                                                     std::vector<agent_served_cluster> clusters);
  ~agent_server();
  agent_server(const agent_server&) = delete;
  agent_server& operator=(const agent_server&) = delete;

  boost::asio::ip::tcp::endpoint local_endpoint() const;
  agent_server_counters counters() const;

  class impl;

 private:
  explicit agent_server(std::shared_ptr<impl> p);
  std::shared_ptr<impl> impl_;
};

}  // namespace arbroker::remote
