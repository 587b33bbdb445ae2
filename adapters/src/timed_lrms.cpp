#include "arbroker/adapters/timed_lrms.hpp"

namespace arbroker {

std::string_view to_string(lrms_call c) noexcept {
  static constexpr std::array<std::string_view, lrms_call_count> names{
      "snapshot",           "create_reservation", "delete_reservation",
      "modify_reservation", "extend_reservation", "submit_job",
      "cancel_job",         "job_status",         "jobs_snapshot"};
  const auto i = static_cast<std::size_t>(c);
  return i < names.size() ? names[i] : "unknown";
}

timed_lrms::timed_lrms(std::unique_ptr<lrms> inner, lrms_call_observer observer)
    : inner_(std::move(inner)), observer_(std::move(observer)) {}

template <class F>
auto timed_lrms::timed(lrms_call c, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = f();
  observer_(c, std::chrono::steady_clock::now() - t0, r.has_value());
  return r;
}

result<lrms_snapshot> timed_lrms::snapshot() {
  return timed(lrms_call::snapshot, [&] { return inner_->snapshot(); });
}
result<lrms_snapshot> timed_lrms::jobs_snapshot() {
  return timed(lrms_call::jobs_snapshot, [&] { return inner_->jobs_snapshot(); });
}
lrms::snapshot_rest timed_lrms::begin_snapshot() {
  const auto t0 = std::chrono::steady_clock::now();
  auto rest = inner_->begin_snapshot();
  const auto begun = std::chrono::steady_clock::now() - t0;
  return [rest = std::move(rest), begun, observer = observer_] {
    const auto t1 = std::chrono::steady_clock::now();
    auto r = rest();
    observer(lrms_call::snapshot, begun + (std::chrono::steady_clock::now() - t1), r.has_value());
    return r;
  };
}
result<std::string> timed_lrms::create_reservation(const reservation_spec& spec) {
  return timed(lrms_call::create_reservation, [&] { return inner_->create_reservation(spec); });
}
status timed_lrms::delete_reservation(const std::string& id) {
  return timed(lrms_call::delete_reservation, [&] { return inner_->delete_reservation(id); });
}
result<std::string> timed_lrms::modify_reservation(const std::string& id,
                                                   const reservation_spec& new_terms) {
  return timed(lrms_call::modify_reservation,
               [&] { return inner_->modify_reservation(id, new_terms); });
}
status timed_lrms::extend_reservation(const std::string& id, timestamp new_end) {
  return timed(lrms_call::extend_reservation,
               [&] { return inner_->extend_reservation(id, new_end); });
}
result<std::string> timed_lrms::submit_job(const job_spec& spec) {
  return timed(lrms_call::submit_job, [&] { return inner_->submit_job(spec); });
}
status timed_lrms::cancel_job(const std::string& id) {
  return timed(lrms_call::cancel_job, [&] { return inner_->cancel_job(id); });
}
result<lrms_job_state> timed_lrms::job_status(const std::string& id) {
  return timed(lrms_call::job_status, [&] { return inner_->job_status(id); });
}

}  // namespace arbroker
