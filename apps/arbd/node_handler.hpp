#pragma once

// The engine behind the network API: turns each validated, authenticated API request into
// a call on the node and its reply into a response, and counts it for /metrics.

#include "arbroker/api/handler.hpp"
#include "node_metrics.hpp"

namespace arbroker {

class node;

class node_handler final : public api::request_handler {
 public:
  node_handler(node& n, node_metrics* metrics) : node_(n), metrics_(metrics) {}
  void handle(const api::caller& who, api::request req,
              std::function<void(api::response)> done) override;
  result<std::shared_ptr<watch_handle>> watch(const api::caller& who, const msg::watch_request& r,
                                              watch_sink sink) override;

 private:
  node& node_;
  node_metrics* metrics_;  // may be null
};

/// What `status` shows a caller of one cluster: an admin everything; a user their own
/// reservations and jobs in full, others' reservations and running jobs as anonymous busy
/// blocks (start, end, CPUs, state; no id, owner, account, cost), nothing else of others'
/// (another's id looks exactly like a missing one, as in list and show). The counts stay
/// the cluster's.
void keep_what_caller_sees(msg::cluster_status& s, const api::caller& who);

/// The metrics label of a request: its operation, elastic ones by mode (reserve, hold,
/// whatif).
std::string operation_label(const api::request_body& body);

}  // namespace arbroker
