#pragma once

#include <optional>
#include <string_view>

#include "arbroker/core/error.hpp"

namespace arbroker {

/// A site's rule for Local Jobs Preferred (paper 004, Sec. III-B): whether a reservation
/// may postpone the site's queued local jobs, and who may ask it to.
enum class ljp_policy {
  enforce,     ///< every request keeps LJP; only an admin may waive it
  by_default,  ///< LJP unless the request waives it (any user may)
  off,         ///< never checked: reservations may postpone queued jobs
};

/// How a site checks LJP.
enum class ljp_method {
  /// Paper 004, Listing 1: a hold must fit the vacancies of the FIFO plan of the queued
  /// jobs (worst-case walltimes), so no queued job's planned start moves.
  ese,
  /// Paper 000, Sec. 3.3.2: a hold may start at or after T_wkl, the weighted estimate of
  /// when the known workload ends. Weaker: it can postpone a queued job.
  twkl,
};

std::string_view to_string(ljp_policy p) noexcept;
std::string_view to_string(ljp_method m) noexcept;
/// "enforce", "default" or "off".
std::optional<ljp_policy> ljp_policy_from(std::string_view s) noexcept;
/// "ese" or "twkl".
std::optional<ljp_method> ljp_method_from(std::string_view s) noexcept;

/// Whether LJP applies to one request on a site with `policy`: `asked` is the request's
/// local_jobs_preferred, `admin` whether an admin sent it. permission_denied when a
/// non-admin waives LJP where the site enforces it.
result<bool> ljp_applies(ljp_policy policy, bool asked, bool admin);

}  // namespace arbroker
