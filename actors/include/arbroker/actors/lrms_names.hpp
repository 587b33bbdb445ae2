#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "arbroker/core/error.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// The names a cluster service gives its reservations in its LRMS, "<prefix><n>" for the
/// service's serial n, and the lease on them that the journal's claim (store's lrms_claim)
/// keeps: every n given is below a lease made durable before the LRMS saw the name, so after
/// a crash a name at or above the lease was made by someone else under the same prefix
/// (another node, or this node before its store was lost). The lease grows in blocks, so the
/// journal is written once per `lease_block` ids. The service acts on what this says
/// (cluster_service.cpp's lease, cluster_recovery.cpp); tested alone in lrms_names_test.cpp.
///
/// Invariant: lease() only grows, and is 0 until the first lease_for() is written (leased()).
class lrms_names {
 public:
  static constexpr std::uint64_t lease_block = 1024;

  explicit lrms_names(std::string prefix) : prefix_(std::move(prefix)) {}

  const std::string& prefix() const noexcept { return prefix_; }
  /// The LRMS name of serial n.
  std::string name_of(std::uint64_t n) const { return prefix_ + std::to_string(n); }
  /// The serial in a name under the prefix, or 0: not a name this service gives (it starts at 1).
  std::uint64_t number_in_name(std::string_view lrms_name) const;
  /// The number a string of decimal digits spells, or 0 if it is not one.
  static std::uint64_t number_in(std::string_view digits);

  std::uint64_t lease() const noexcept { return lease_; }
  /// The lease to make durable before serial n is given, or nothing: the present one covers n.
  std::optional<std::uint64_t> lease_for(std::uint64_t n) const;
  /// The journal holds `upto` (durably): serials below it may be given.
  void leased(std::uint64_t upto);

  /// At a restart, which names under the prefix the service may have given: those below the
  /// returned lease. The journal's claim says (its prefix must be ours: with another one the
  /// node would lose its reservations, refused naming the prefix to set); a store without a
  /// claim but with rows (`last_serial` > 0: from before claims) counts every name as ours,
  /// as then; a new store none.
  result<std::uint64_t> lease_at_restart(const std::optional<lrms_claim>& claim,
                                         std::uint64_t last_serial) const;

  /// What recovery does with a reservation the LRMS has and no journal row accounts for.
  enum class unclaimed {
    not_ours,  ///< not a name under the prefix: left alone
    orphan,    ///< ours (below the lease), made just before a crash: deleted
    foreign,   ///< at or above the lease: someone else's (refused, or adopted on request)
  };
  /// The verdict on `lrms_name` under the restart's `lease`, and its serial (0 if not ours).
  std::pair<unclaimed, std::uint64_t> classify(std::string_view lrms_name,
                                               std::uint64_t lease) const;

 private:
  std::string prefix_;
  std::uint64_t lease_ = 0;
};

}  // namespace arbroker
