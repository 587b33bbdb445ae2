#include "lease_holder.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>

#if ARB_HAVE_POSTGRESQL
#include "arbroker/store/postgresql_lease.hpp"
#endif
#include "arbroker/store/store.hpp"
#include "audit_log.hpp"

namespace arbroker {

using clock_type = std::chrono::steady_clock;

namespace {

std::int64_t ns_of(clock_type::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

#if ARB_HAVE_POSTGRESQL

namespace {

/// Waits a quarter of a second (a standby's pace: a lease that ran out is taken within it)
/// unless one of `stop` comes first: true when it did (TERM or INT).
bool stop_within_a_moment(const sigset_t& stop) {
  const timespec quarter{0, 250'000'000};
  siginfo_t info;
  const int sig = sigtimedwait(&stop, &info, &quarter);
  return sig == SIGTERM || sig == SIGINT;
}

}  // namespace

result<std::optional<std::unique_ptr<lease_holder>>> lease_holder::acquire(const node_config& cfg,
                                                                           const addresses& where,
                                                                           const sigset_t& stop,
                                                                           api::serving_role& role,
                                                                           node_metrics* metrics) {
  using none = std::optional<std::unique_ptr<lease_holder>>;
  std::string told;  // what was last logged
  auto tell = [&](const std::string& now_told, bool warn) {
    if (now_told == told) return;
    told = now_told;
    if (warn)
      spdlog::warn("event=standby_waiting why={} store={}", log_quoted(now_told),
                   redact_uri(cfg.store));
    else
      spdlog::info("event=standby serving={} store={}", now_told, redact_uri(cfg.store));
  };
  // A database that cannot be reached (yet, or for a while) is waited for, as a standby.
  std::unique_ptr<postgresql_lease> lease;
  for (;;) {
    if (!lease) {
      auto c = postgresql_lease::connect(cfg.store, cfg.name, {where.api, where.http},
                                         std::chrono::seconds(cfg.lease));
      if (c) {
        lease = std::move(*c);
      } else {
        role.standby(std::nullopt);
        tell(c.err().message, true);
        if (stop_within_a_moment(stop)) return none();
        continue;
      }
    }
    auto taken = lease->try_take();
    if (taken && *taken) {
      std::shared_ptr<postgresql_lease> held = std::move(lease);
      if (metrics) metrics->lease(**taken, true);
      return none(std::unique_ptr<lease_holder>(new lease_holder([held] { return held->renew(); },
                                                                 [held] { return held->release(); },
                                                                 **taken, cfg.lease, metrics)));
    }
    auto who =
        taken ? lease->current() : result<std::optional<postgresql_lease::holder>>(taken.err());
    if (!who) {
      role.standby(std::nullopt);
      tell(who.err().message, true);
      lease.reset();  // its session may be gone: a new one next time
    } else if (*who) {
      const auto& h = **who;
      role.standby(api::leader_info{h.node, h.address, h.http_address, h.epoch});
      if (metrics) metrics->lease(h.epoch, false);
      tell(h.node + " at " + h.address + " (epoch " + std::to_string(h.epoch) + ")", false);
    } else {
      role.standby(std::nullopt);
      tell("nobody", false);
    }
    if (stop_within_a_moment(stop)) return none();
  }
}

#else

result<std::optional<std::unique_ptr<lease_holder>>> lease_holder::acquire(
    const node_config&, const addresses&, const sigset_t&, api::serving_role&, node_metrics*) {
  return fail(errc::invalid_parameter, std::string("node.lease: ") + no_postgresql);
}

#endif

lease_holder::lease_holder(std::function<result<bool>()> renew, std::function<status()> release,
                           std::uint64_t epoch, duration term, node_metrics* metrics)
    : renew_(std::move(renew)),
      release_(std::move(release)),
      epoch_(epoch),
      term_(term),
      metrics_(metrics),
      renewed_(clock_type::now()),
      renewed_ns_(ns_of(renewed_)) {}

lease_holder::~lease_holder() {
  stop();
}

void lease_holder::stop() {
  {
    std::lock_guard lock{mu_};
    stopping_ = true;
  }
  wake_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  if (watcher_.joinable()) watcher_.join();
}

void lease_holder::release() {
  stop();
  if (auto ok = release_(); !ok)
    spdlog::warn("event=lease_not_released epoch={} why={}", epoch_, ok.err().message);
  else
    spdlog::info("event=lease_released epoch={}", epoch_);
}

status lease_holder::may_change() const {
  const auto since = std::chrono::nanoseconds(ns_of(clock_type::now()) - renewed_ns_.load());
  if (since < std::chrono::milliseconds(term_ * 1000 * 2 / 3)) return {};
  return fail(errc::unreachable, "this node's lease of epoch " + std::to_string(epoch_) +
                                     " was not renewed for two thirds of its term: it changes "
                                     "no batch system any more");
}

void lease_holder::keep(std::function<void(const std::string&)> lost) {
  lost_ = std::move(lost);
  renewed_ = clock_type::now();
  renewed_ns_ = ns_of(renewed_);
  renewer_ = std::thread([this] { renew_loop(); });
  watcher_ = std::thread([this] { watch_loop(); });
}

void lease_holder::give_up(const std::string& why) {
  {
    std::lock_guard lock{mu_};
    if (gave_up_ || stopping_) return;
    gave_up_ = true;
  }
  lost_(why);
}

void lease_holder::renew_loop() {
  const auto every = std::chrono::milliseconds(term_ * 1000 / 3);
  std::unique_lock lock{mu_};
  while (!wake_.wait_for(lock, every, [&] { return stopping_ || gave_up_; })) {
    lock.unlock();
    auto ok = renew_();  // may block while the database is away: the watcher decides
    lock.lock();
    if (ok && *ok) {
      renewed_ = clock_type::now();
      renewed_ns_ = ns_of(renewed_);
    } else if (ok) {
      lock.unlock();
      give_up("the lease of epoch " + std::to_string(epoch_) + " was taken over");
      return;
    } else {
      if (metrics_) metrics_->lease_renewal_failed();
      spdlog::warn("event=lease_not_renewed epoch={} why={}", epoch_, ok.err().message);
    }
  }
}

void lease_holder::watch_loop() {
  // Another node may take the lease a term after the last renewal: this one stops well before.
  const auto limit = std::chrono::milliseconds(term_ * 1000 * 2 / 3);
  std::unique_lock lock{mu_};
  while (!wake_.wait_for(lock, std::chrono::milliseconds(200),
                         [&] { return stopping_ || gave_up_; })) {
    if (clock_type::now() - renewed_ > limit) {
      lock.unlock();
      give_up("the lease of epoch " + std::to_string(epoch_) + " was not renewed for " +
              std::to_string(term_ * 2 / 3) + " s");
      return;
    }
  }
}

}  // namespace arbroker
