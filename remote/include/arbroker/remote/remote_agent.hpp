#pragma once

// The broker's side of the agent protocol (agent_protocol.hpp): one connection to one agent,
// and for each cluster this node uses there a proxy actor with the cluster service's own
// interface (cluster_service_actor), so that the GIS, the broker and its coordinators cannot
// tell a remote cluster from a local one.
//
// Failure semantics (remote/README.md): the connection is made, and remade after any loss,
// in the background with exponential backoff; a call made while it is down, or lost with it,
// is answered at once with an `unreachable` error reply of its own type, except the second
// phase of a transaction (commit, abort, release), which waits for the link and goes out
// again, in order, until `settle_timeout` (a commit decision reaches its part, and so does a
// compensation's release); any other call without an answer within `call_timeout` (an agent
// stopped or partitioned away) gets a `timeout` reply, so a caller never hangs. Every call the
// agent may still execute late is idempotent at the service (prepare per txn, commit/abort/release
// per txn). Heartbeats find a dead peer within `silence` even when nothing is asked. A node
// that may no longer change its batch systems (`may_change`: a leader whose lease was not
// renewed) sends no new change.
//
// Ownership: the object owns its io thread, its connection and its proxies (they end with
// it). Handles given out stay valid across reconnections: the same proxy carries on.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "arbroker/actors/protocols.hpp"
#include "arbroker/api/tls.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker::remote {

struct remote_agent_config {
  std::string address;      ///< "host:port" of the agent
  std::string agent_name;   ///< its certificate's common name must be this (with TLS)
  std::string broker_name;  ///< this node's name (its own certificate's common name)
  /// api::make_client_tls with this node's certificate and key, and the agents' CA. Null:
  /// plain text (the caller allows it on loopback only).
  api::tls_context tls;
  std::vector<std::string> clusters;              ///< the clusters of the agent this node uses
  std::chrono::milliseconds opening{5000};        ///< connect + TLS + hello/welcome
  std::chrono::milliseconds heartbeat{1000};      ///< a ping when nothing was sent this long
  std::chrono::milliseconds silence{4000};        ///< no word this long: the link is dead
  std::chrono::milliseconds call_timeout{10000};  ///< a call's answer comes by then, or timeout
  /// Commit, abort and release wait for the link (and go out again) this long at most.
  std::chrono::milliseconds settle_timeout{600000};
  std::chrono::milliseconds backoff_min{100}, backoff_max{5000};
  std::size_t max_frame = std::size_t{16} << 20;
  /// Whether this node may still change the batch systems (node_hooks::lrms_may_change: its
  /// lease). A call that would change something at the agent (a prepare, a client's change
  /// to a reservation, a job submitted or cancelled) is answered with its error instead of
  /// sent, as fenced_lrms answers for a local LRMS. The second phase of a transaction goes
  /// out: it carries a decision the next leader completes the same way. Null: always.
  std::function<status()> may_change;
  /// After each welcome, for every cluster of `clusters` the agent serves: its description
  /// and its proxy (register it with the GIS). On the connection's thread.
  std::function<void(const msg::cluster_info&, const cluster_service_actor&)> on_cluster;
  /// Connections made, refused and lost, in words (for the log). On the connection's thread.
  std::function<void(const std::string&)> on_event;
};

class remote_agent {
 public:
  /// invalid_parameter for an address that is not host:port, or plain text off loopback.
  static result<std::unique_ptr<remote_agent>> start(caf::actor_system& sys,
                                                     remote_agent_config config);
  ~remote_agent();
  remote_agent(const remote_agent&) = delete;
  remote_agent& operator=(const remote_agent&) = delete;

  /// The proxy of cluster `name` (one of config.clusters; null otherwise).
  cluster_service_actor cluster(const std::string& name) const;
  /// Whether the link is up (welcomed) now.
  bool connected() const;
  /// Waits until the link is up, at most `limit`; true when it is.
  bool wait_connected(std::chrono::milliseconds limit) const;
  /// Waits until the link is down, at most `limit`; true when it is.
  bool wait_disconnected(std::chrono::milliseconds limit) const;
  /// Waits until the link is up or an attempt (or a link) has failed, at most `limit`; true
  /// when either happened (a node starting waits so for its agents' first word).
  bool wait_settled(std::chrono::milliseconds limit) const;
  /// Why the last attempt or the last link failed ("" if none did).
  std::string last_error() const;

  class impl;

 private:
  explicit remote_agent(std::shared_ptr<impl> p);
  std::shared_ptr<impl> impl_;
};

}  // namespace arbroker::remote
