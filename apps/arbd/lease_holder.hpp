#pragma once

// Two or more arbd on one PostgreSQL store, one serving (issue 36): the node holds the store's
// lease (store/include/arbroker/store/postgresql_lease.hpp) before it opens the store, waits
// as a standby while another holds it, and once serving renews it every third of its term.
// When it cannot keep it (taken over, or not renewed for two thirds of a term, so that it has
// stopped before another node may take it) it steps down: the host is told once and stops at
// once (arbd exits; its service manager starts it again, as a standby).

#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "arbroker/api/serving_role.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/node/node_config.hpp"
#include "node_metrics.hpp"

namespace arbroker {

class lease_holder {
 public:
  /// Where this node's clients reach it (host:port; http "" when it has no HTTP API).
  struct addresses {
    std::string api, http;
  };
  /// Waits until the lease of cfg.store is this node's: the holder, or nothing when one of
  /// `stop` came first (SIGHUP only logs). Meanwhile it tells `role` (and the log, once per
  /// change) who serves, and waits out a database it cannot reach. `metrics` (kept, may be
  /// null) is told the epoch and whether this node serves.
  static result<std::optional<std::unique_ptr<lease_holder>>> acquire(const node_config& cfg,
                                                                      const addresses& where,
                                                                      const sigset_t& stop,
                                                                      api::serving_role& role,
                                                                      node_metrics* metrics);
  ~lease_holder();
  lease_holder(const lease_holder&) = delete;
  lease_holder& operator=(const lease_holder&) = delete;

  std::uint64_t epoch() const noexcept { return epoch_; }
  /// Stops renewing and gives the lease up, so that a standby takes over at once: after the
  /// node's last write (a stop on purpose).
  void release();
  /// Renews from now on, on threads of its own; `lost(why)` is called once, from one of them,
  /// when the lease cannot be kept.
  void keep(std::function<void(const std::string&)> lost);
  /// Whether the node may still change its batch systems (node_hooks::lrms_may_change): not
  /// once two thirds of a term passed since the last renewal (another node may take over a
  /// term after it), whatever its threads have noticed; thread-safe.
  status may_change() const;

 private:
  /// `renew` renews the lease taken (it owns it): true while it is this node's; `release`
  /// gives it up.
  lease_holder(std::function<result<bool>()> renew, std::function<status()> release,
               std::uint64_t epoch, duration term, node_metrics* metrics);
  /// Ends the renewing threads.
  void stop();
  void renew_loop();
  void watch_loop();
  void give_up(const std::string& why);

  std::function<result<bool>()> renew_;
  std::function<status()> release_;
  const std::uint64_t epoch_;
  const duration term_;
  node_metrics* metrics_;
  std::function<void(const std::string&)> lost_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool gave_up_ = false;
  std::chrono::steady_clock::time_point renewed_;  ///< the last successful renewal
  /// renewed_ for may_change(), without the lock (steady clock, ns since its epoch).
  std::atomic<std::int64_t> renewed_ns_{0};
  std::thread renewer_, watcher_;
};

}  // namespace arbroker
