#pragma once

// What arbd exports at /metrics: API requests by operation and outcome with latencies, and
// per cluster the holds, reserved CPUs and the hold/commit/abort/expiry/cancel counts that
// the cluster services report in their status (polled, so a scrape never waits for the
// engine). Names follow metrics/README.md.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/metrics/registry.hpp"

namespace arbroker {

class node;
struct grid_job_counters;

class node_metrics {
 public:
  explicit node_metrics(metrics::registry& reg);

  /// One API request answered: its operation label, errc name or "ok", and latency.
  void answered(const std::string& operation, const std::string& outcome, double seconds);
  /// The API server's own counts (cumulative refused handshakes, open connections).
  void server_counts(std::size_t open_connections, std::size_t handshakes_refused);

  /// Applies one round of cluster statuses (cumulative counters become increments).
  void update(const std::vector<msg::cluster_status>& statuses);

  /// Applies the grid-job manager's counters (cumulative counters become increments).
  void update(const grid_job_counters& g);

  /// Polls `n` every `period` on a thread of its own until stop() (or destruction).
  void start_polling(node& n, std::chrono::seconds period, std::function<void()> also = {});
  void stop();
  ~node_metrics();

 private:
  metrics::registry& reg_;
  metrics::family<metrics::counter> requests_;
  metrics::family<metrics::histogram> latency_;
  metrics::counter* auth_failures_;
  metrics::gauge* connections_;
  std::size_t refused_seen_ = 0;
  metrics::family<metrics::gauge> holds_;
  metrics::family<metrics::gauge> reserved_;
  metrics::family<metrics::gauge> undeleted_;
  metrics::family<metrics::gauge> committed_;
  metrics::family<metrics::gauge> cpus_;
  metrics::family<metrics::counter> created_;
  metrics::family<metrics::counter> commits_;
  metrics::family<metrics::counter> aborts_;
  metrics::family<metrics::counter> expiries_;
  metrics::family<metrics::counter> cancels_;
  metrics::family<metrics::counter> moves_;
  metrics::family<metrics::counter> overruns_;
  std::map<std::string, msg::cluster_status> last_;  // per cluster, for increments
  metrics::family<metrics::gauge> grid_jobs_;
  metrics::family<metrics::counter> grid_events_;
  std::map<std::string, std::int64_t> grid_seen_;  // per event, for increments

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace arbroker
