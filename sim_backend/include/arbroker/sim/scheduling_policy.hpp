#pragma once

#include <optional>
#include <string_view>

namespace arbroker {

/// How a simulated cluster starts its unbound batch jobs. All three honour reservations:
/// a job starts only if its walltime ends before reserved capacity is needed.
enum class scheduling_policy {
  /// Strict first come, first served: the queue head blocks everything behind it.
  fcfs,
  /// EASY backfilling (Lifka 1995): the head gets a reservation at its earliest start;
  /// a later job may start now if it does not delay that reservation.
  easy,
  /// Conservative backfilling (Mu'alem and Feitelson 2001): every queued job holds a planned
  /// start; a job may start early only where it delays no earlier job's plan.
  conservative,
};

/// "fcfs", "easy", "conservative".
std::string_view to_string(scheduling_policy p) noexcept;

/// The policy named by to_string(), or nothing for any other text.
std::optional<scheduling_policy> parse_scheduling_policy(std::string_view text) noexcept;

}  // namespace arbroker
