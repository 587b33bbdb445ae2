#pragma once

// An lrms whose changes (reservations made, deleted, modified, extended; jobs submitted,
// cancelled) are allowed only while `may_change` says so; reads always pass. A node of several
// on one store (issue 36) changes its batch systems only while it holds the store's lease: one
// paused past its lease and continued must not touch them in the moment before it steps down,
// when another node already serves them.

#include <functional>
#include <memory>

#include "arbroker/adapters/lrms_wrapper.hpp"

namespace arbroker {

class fenced_lrms final : public lrms_wrapper {
 public:
  /// Owns `inner`; `may_change` (thread-safe, quick) is asked before every change, and its
  /// error is the call's answer when it refuses.
  fenced_lrms(std::unique_ptr<lrms> inner, std::function<status()> may_change)
      : lrms_wrapper(std::move(inner)), may_change_(std::move(may_change)) {}

  result<std::string> create_reservation(const reservation_spec& spec) override {
    return fenced([&] { return inner().create_reservation(spec); });
  }
  status delete_reservation(const std::string& id) override {
    return fenced([&] { return inner().delete_reservation(id); });
  }
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override {
    return fenced([&] { return inner().modify_reservation(id, new_terms); });
  }
  status extend_reservation(const std::string& id, timestamp new_end) override {
    return fenced([&] { return inner().extend_reservation(id, new_end); });
  }
  result<std::string> submit_job(const job_spec& spec) override {
    return fenced([&] { return inner().submit_job(spec); });
  }
  status cancel_job(const std::string& id) override {
    return fenced([&] { return inner().cancel_job(id); });
  }

 private:
  /// `change()` when may_change_ allows it, else its refusal.
  template <class F>
  auto fenced(F&& change) -> decltype(change()) {
    if (auto ok = may_change_(); !ok) return ok.err();
    return change();
  }

  std::function<status()> may_change_;
};

}  // namespace arbroker
