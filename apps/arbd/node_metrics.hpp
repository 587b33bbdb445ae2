#pragma once

// What arbd exports at /metrics: API requests by operation and outcome with latencies, and
// per cluster the holds, reserved CPUs and the hold/commit/abort/expiry/cancel counts that
// the cluster services report in their status (polled, so a scrape never waits for the
// engine), the LRMS calls' latency per cluster and call, build_info and the process.
// Names follow metrics/README.md. Everything is registered in a prometheus-cpp registry.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/api/handler.hpp"
#include "arbroker/messages/cluster_protocol.hpp"

namespace arbroker {

class node;
struct grid_job_counters;

class node_metrics {
 public:
  /// Registers the node's families in `reg`, with arb_build_info{version=...} = 1.
  node_metrics(prometheus::Registry& reg, const std::string& version);

  /// An observer for the LRMS of `cluster` (node_hooks::lrms_observer): one histogram per
  /// call, arb_lrms_call_duration_seconds, and arb_lrms_call_failures_total.
  lrms_call_observer lrms_observer(const std::string& cluster);

  /// One API request answered: the front end it came through, its operation label, errc
  /// name or "ok", and latency.
  void answered(api::front_end via, const std::string& operation, const std::string& outcome,
                double seconds);
  /// A request for new reservations (elastic, co-reservation) given to broker instance
  /// `instance` ("" = none serves its user: refused).
  void routed(const std::string& instance, const std::string& operation);
  /// The API server's own counts (cumulative refused handshakes, open connections).
  void server_counts(std::size_t open_connections, std::size_t handshakes_refused);
  /// Watches under way (docs/watch.md).
  void watchers(std::size_t n);
  /// Several nodes on one store (issue 36): the epoch of the store's lease as this node last
  /// saw it, and whether this node serves under it.
  void lease(std::uint64_t epoch, bool serving);
  /// A renewal of this node's lease that did not reach the database.
  void lease_renewal_failed();

  /// Applies one round of cluster statuses (cumulative counters become increments).
  void update(const std::vector<msg::cluster_status>& statuses);

  /// Applies the grid-job manager's counters (cumulative counters become increments).
  void update(const grid_job_counters& g);

  /// Polls `n` every `period` on a thread of its own until stop() (or destruction).
  void start_polling(node& n, std::chrono::seconds period, std::function<void()> also = {});
  void stop();
  ~node_metrics();

 private:
  using counters = prometheus::Family<prometheus::Counter>;
  using gauges = prometheus::Family<prometheus::Gauge>;
  using histograms = prometheus::Family<prometheus::Histogram>;
  counters& requests_;
  histograms& latency_;
  std::mutex answered_mu_;
  /// The metrics of each label set, looked up before Family::Add; per front end (by its
  /// number), so that a request builds no label strings once its metrics exist.
  std::map<std::pair<std::string, std::string>, prometheus::Counter*> answered_count_[2];
  std::map<std::string, prometheus::Histogram*, std::less<>> answered_latency_[2];
  counters& routed_;
  prometheus::Counter& auth_failures_;
  prometheus::Gauge& connections_;
  prometheus::Gauge& watchers_;
  prometheus::Gauge& lease_epoch_;
  prometheus::Gauge& lease_serving_;
  prometheus::Counter& lease_renewal_failures_;
  std::size_t refused_seen_ = 0;
  gauges& holds_;
  gauges& reserved_;
  gauges& undeleted_;
  gauges& committed_;
  gauges& cpus_;
  counters& created_;
  counters& commits_;
  counters& aborts_;
  counters& expiries_;
  counters& cancels_;
  counters& moves_;
  counters& overruns_;
  histograms& lrms_latency_;
  counters& lrms_failures_;
  std::map<std::string, msg::cluster_status> last_;  // per cluster, for increments
  gauges& grid_jobs_;
  counters& grid_events_;
  std::map<std::string, std::int64_t> grid_seen_;  // per event, for increments

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace arbroker
