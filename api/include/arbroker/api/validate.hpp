#pragma once

// Validation of every field of every request body at the network edge: texts, lists and
// numbers within bounds that protect the node, each error naming its field
// ("elastic.np_min: ..."). Pure functions; they change nothing. What the engine makes of a
// request (a speedup model, preferences that name no attribute twice, a known policy) is
// checked once, where it enters the engine: msg::check() (checked_requests.hpp).

#include <cstddef>
#include <cstdint>

#include "arbroker/api/handler.hpp"
#include "arbroker/api/protocol.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/messages/checked_requests.hpp"

namespace arbroker::api {

/// Bounds on request fields; values outside them are refused as nonsense.
namespace bounds {
inline constexpr std::size_t max_name = 64;              ///< user, cluster, os, feature, policy
inline constexpr std::size_t max_id = 128;               ///< reservation ids, txn, job name
inline constexpr std::size_t max_text = 4096;            ///< job command
inline constexpr std::size_t max_list = 256;             ///< clusters, features
inline constexpr std::size_t max_speedup_points = 1024;  ///< speedup table
inline constexpr std::int32_t max_np = 1'000'000;
inline constexpr std::int32_t max_tsn = 1000;
inline constexpr std::int32_t max_attempts = 1000;
inline constexpr std::size_t max_benchmarks = 64;       ///< of a grid job
inline constexpr std::size_t max_files = 1024;          ///< input files of a grid job
inline constexpr std::size_t max_commit_jobs = 64;      ///< jobs committed with a hold
inline constexpr std::size_t max_request_jobs = 100;    ///< grid jobs of one grid_submit_many
inline constexpr std::int32_t max_history_page = 1000;  ///< finished reservations per list page
/// parts of a co-allocation: a co-reservation's components
inline constexpr std::size_t max_coallocation_parts = msg::max_coreservation_components;
inline constexpr std::int64_t max_bytes = std::int64_t{1} << 50;  ///< one file: 1 PiB
/// 10 years: the longest window, duration or offset a request may name.
inline constexpr duration max_span = 10 * 366 * seconds_per_day;
/// Latest time a request may name (year ~2400), far below time_infinity.
inline constexpr timestamp max_time = 13'500'000'000;
inline constexpr duration max_hold = 7 * seconds_per_day;
}  // namespace bounds

status validate(const msg::elastic_request& r);
status validate(const msg::coreservation_request& r);
status validate(const estimate_request& r);
status validate(const msg::commit_request& r);
status validate(const msg::modify_request& r);
status validate(const msg::cancel_request& r);
status validate(const msg::query_request& r);
status validate(const msg::list_request& r);
status validate(const msg::bind_job_request& r);
status validate(const msg::bound_job_query_request& r);
status validate(const msg::bound_job_cancel_request& r);
status validate(const cluster_list_request& r);
status validate(const status_request& r);
status validate(const msg::grid_submit_request& r);
status validate(const msg::grid_submit_many_request& r);
status validate(const msg::grid_query_request& r);
status validate(const msg::grid_cancel_request& r);
status validate(const msg::grid_list_request& r);
status validate(const msg::coallocate_request& r);
status validate(const msg::watch_request& r);
status validate(const request_body& body);

/// Well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool valid_utf8(std::string_view s) noexcept;

/// A user or token name: 1..max_name characters from [A-Za-z0-9._@-].
bool valid_user_name(std::string_view name) noexcept;

/// What a field left at 0 means where 0 cannot mean itself: an elastic request's or a
/// co-reservation's `est` (1970) is `now`, the time the request arrived (so an HTTP body may
/// leave it out, as a client means "from now").
void fill_defaults(request_body& body, std::int64_t now);

/// Makes the body act for the authenticated caller. An empty `user` becomes the caller's;
/// a different user is permission_denied unless the caller is an admin (who may act for
/// anyone, list every user's reservations with an empty user, and reach any grid job with
/// an empty user). Bodies without a user
/// field are left alone.
status apply_caller(const caller& who, request_body& body);

}  // namespace arbroker::api
