#pragma once

// An lrms as its one owner sees it (a cluster service): reservations_version() counts only the
// changes to the reservations that were not made through this object, so that the owner, who
// keeps what its own calls did, knows when something else changed them (lrms_view.hpp reads
// the reservations again only then). Every call is passed on.

#include <memory>
#include <optional>
#include <string>

#include "arbroker/adapters/lrms_wrapper.hpp"

namespace arbroker {

class owned_lrms final : public lrms_wrapper {
 public:
  explicit owned_lrms(std::unique_ptr<lrms> inner) : lrms_wrapper(std::move(inner)) {}

  /// The inner LRMS's count less the changes made through this object; nothing when it has
  /// none.
  std::optional<std::uint64_t> reservations_version() override {
    const auto all = inner().reservations_version();
    if (!all) return std::nullopt;
    return *all - own_;
  }

  result<std::string> create_reservation(const reservation_spec& spec) override {
    return counted([&] { return inner().create_reservation(spec); });
  }
  status delete_reservation(const std::string& id) override {
    return counted([&] { return inner().delete_reservation(id); });
  }
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override {
    return counted([&] { return inner().modify_reservation(id, new_terms); });
  }
  status extend_reservation(const std::string& id, timestamp new_end) override {
    return counted([&] { return inner().extend_reservation(id, new_end); });
  }

 private:
  /// `change()`, its changes counted as this object's (one owner, one thread: nothing else
  /// changes the LRMS during the call).
  template <class F>
  auto counted(F&& change) -> decltype(change()) {
    const auto before = inner().reservations_version();
    auto out = change();
    if (const auto after = inner().reservations_version(); before && after)
      own_ += *after - *before;
    return out;
  }

  std::uint64_t own_ = 0;  ///< changes made through this object
};

}  // namespace arbroker
