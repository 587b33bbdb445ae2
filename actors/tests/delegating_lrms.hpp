#pragma once

// A test LRMS that passes every call to a simulated one; a test overrides the call it wants
// to fail (deletes that the LRMS refuses, a submit it does not take, ...). Several may share
// one simulated LRMS (several nodes on one batch system).

#include <memory>

#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker::testing {

class delegating_lrms : public lrms {
 public:
  explicit delegating_lrms(std::shared_ptr<simulated_lrms> inner) : inner_(std::move(inner)) {}
  simulated_lrms& inner() { return *inner_; }

  std::string_view kind() const noexcept override { return "simulated"; }
  result<lrms_snapshot> snapshot() override { return inner_->snapshot(); }
  result<lrms_snapshot> jobs_snapshot() override { return inner_->jobs_snapshot(); }
  std::optional<std::uint64_t> jobs_version() override { return inner_->jobs_version(); }
  result<std::string> create_reservation(const reservation_spec& s) override {
    return inner_->create_reservation(s);
  }
  status delete_reservation(const std::string& id) override {
    return inner_->delete_reservation(id);
  }
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& t) override {
    return inner_->modify_reservation(id, t);
  }
  result<std::string> submit_job(const job_spec& s) override { return inner_->submit_job(s); }
  result<std::vector<node_group>> node_groups() override { return inner_->node_groups(); }
  status cancel_job(const std::string& id) override { return inner_->cancel_job(id); }
  result<lrms_job_state> job_status(const std::string& id) override {
    return inner_->job_status(id);
  }

 private:
  std::shared_ptr<simulated_lrms> inner_;
};

}  // namespace arbroker::testing
