#include "lease_holder.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>

#if ARB_HAVE_POSTGRESQL
#include "arbroker/store/postgresql_lease.hpp"
#endif
#include "arbroker/store/store.hpp"

namespace arbroker {

using clock_type = std::chrono::steady_clock;

#if ARB_HAVE_POSTGRESQL

result<std::optional<std::unique_ptr<lease_holder>>> lease_holder::acquire(const node_config& cfg,
                                                                           const sigset_t& stop) {
  const auto address = cfg.advertise.empty() ? cfg.listen : cfg.advertise;
  auto lease =
      postgresql_lease::connect(cfg.store, cfg.name, address, std::chrono::seconds(cfg.lease));
  if (!lease) return lease.err();
  std::string told;  // who serves, as last logged
  for (;;) {
    auto taken = (*lease)->try_take();
    if (!taken) return taken.err();
    if (*taken) {
      std::shared_ptr<postgresql_lease> held = std::move(*lease);
      return std::optional<std::unique_ptr<lease_holder>>(std::unique_ptr<lease_holder>(
          new lease_holder([held] { return held->renew(); }, [held] { return held->release(); },
                           **taken, cfg.lease)));
    }
    auto who = (*lease)->current();
    if (!who) return who.err();
    const auto now_told = *who ? (*who)->node + " at " + (*who)->address + " (epoch " +
                                     std::to_string((*who)->epoch) + ")"
                               : std::string("nobody");
    if (now_told != told) {
      spdlog::info("event=standby serving={} store={}", now_told, redact_uri(cfg.store));
      told = now_told;
    }
    // Tries again in a second, unless told to stop meanwhile.
    const timespec second{1, 0};
    siginfo_t info;
    const int sig = sigtimedwait(&stop, &info, &second);
    if (sig == SIGTERM || sig == SIGINT) return std::optional<std::unique_ptr<lease_holder>>();
  }
}

#else

result<std::optional<std::unique_ptr<lease_holder>>> lease_holder::acquire(const node_config&,
                                                                           const sigset_t&) {
  return fail(errc::invalid_parameter, std::string("node.lease: ") + no_postgresql);
}

#endif

lease_holder::lease_holder(std::function<result<bool>()> renew, std::function<status()> release,
                           std::uint64_t epoch, duration term)
    : renew_(std::move(renew)),
      release_(std::move(release)),
      epoch_(epoch),
      term_(term),
      renewed_(clock_type::now()) {}

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

void lease_holder::keep(std::function<void(const std::string&)> lost) {
  lost_ = std::move(lost);
  renewed_ = clock_type::now();
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
    } else if (ok) {
      lock.unlock();
      give_up("the lease of epoch " + std::to_string(epoch_) + " was taken over");
      return;
    } else {
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
