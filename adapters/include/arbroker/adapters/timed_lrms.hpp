#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>

#include "arbroker/adapters/lrms.hpp"

namespace arbroker {

/// The calls of the lrms interface, for whoever measures them.
enum class lrms_call {
  snapshot,
  create_reservation,
  delete_reservation,
  modify_reservation,
  extend_reservation,
  submit_job,
  cancel_job,
  job_status,
  jobs_snapshot,
};
inline constexpr std::size_t lrms_call_count = 9;
/// "snapshot", "create_reservation", ...: the names metrics and logs use.
std::string_view to_string(lrms_call c) noexcept;

/// Told of every call: which, how long it took, and whether it succeeded. Called on the
/// caller's thread, after the call: keep it short and thread-safe.
using lrms_call_observer = std::function<void(lrms_call, std::chrono::nanoseconds, bool ok)>;

/// An lrms that forwards every call to `inner` and reports it to `observer`. It owns
/// `inner`; kind() is inner's.
class timed_lrms final : public lrms {
 public:
  timed_lrms(std::unique_ptr<lrms> inner, lrms_call_observer observer);

  std::string_view kind() const noexcept override { return inner_->kind(); }
  result<lrms_snapshot> snapshot() override;
  result<lrms_snapshot> jobs_snapshot() override;
  /// Reported as one snapshot call, when the rest is done (on the thread that does it): the
  /// time of both steps, not the wait between them.
  snapshot_rest begin_snapshot() override;
  /// Forwarded untimed: no call to the batch system.
  std::optional<std::uint64_t> jobs_version() override { return inner_->jobs_version(); }
  std::optional<std::uint64_t> reservations_version() override {
    return inner_->reservations_version();
  }
  result<std::string> create_reservation(const reservation_spec& spec) override;
  status delete_reservation(const std::string& id) override;
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override;
  status extend_reservation(const std::string& id, timestamp new_end) override;
  result<std::string> submit_job(const job_spec& spec) override;
  status cancel_job(const std::string& id) override;
  result<lrms_job_state> job_status(const std::string& id) override;
  /// Forwarded untimed: read once, when the node starts.
  result<std::vector<node_group>> node_groups() override { return inner_->node_groups(); }

 private:
  template <class F>
  auto timed(lrms_call c, F&& f);

  std::unique_ptr<lrms> inner_;
  lrms_call_observer observer_;
};

}  // namespace arbroker
