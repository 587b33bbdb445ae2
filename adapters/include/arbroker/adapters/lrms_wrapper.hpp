#pragma once

// An lrms that passes every call to another it owns, for a wrapper that changes a few of them
// (as LevelDB's EnvWrapper): fenced_lrms guards the changes, owned_lrms counts its own.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbroker/adapters/lrms.hpp"

namespace arbroker {

class lrms_wrapper : public lrms {
 public:
  explicit lrms_wrapper(std::unique_ptr<lrms> inner) : inner_(std::move(inner)) {}

  std::string_view kind() const noexcept override { return inner_->kind(); }
  result<lrms_snapshot> snapshot() override { return inner_->snapshot(); }
  result<lrms_snapshot> jobs_snapshot() override { return inner_->jobs_snapshot(); }
  snapshot_rest begin_snapshot() override { return inner_->begin_snapshot(); }
  std::optional<std::uint64_t> jobs_version() override { return inner_->jobs_version(); }
  std::optional<std::uint64_t> reservations_version() override {
    return inner_->reservations_version();
  }
  result<std::vector<node_group>> node_groups() override { return inner_->node_groups(); }
  result<lrms_job_state> job_status(const std::string& id) override {
    return inner_->job_status(id);
  }
  result<std::string> create_reservation(const reservation_spec& spec) override {
    return inner_->create_reservation(spec);
  }
  status delete_reservation(const std::string& id) override {
    return inner_->delete_reservation(id);
  }
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override {
    return inner_->modify_reservation(id, new_terms);
  }
  status extend_reservation(const std::string& id, timestamp new_end) override {
    return inner_->extend_reservation(id, new_end);
  }
  result<std::string> submit_job(const job_spec& spec) override { return inner_->submit_job(spec); }
  status cancel_job(const std::string& id) override { return inner_->cancel_job(id); }

 protected:
  lrms& inner() noexcept { return *inner_; }

 private:
  std::unique_ptr<lrms> inner_;
};

}  // namespace arbroker
