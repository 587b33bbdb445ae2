// Which events a reservation's new row records, from the row it replaces.
#include "arbroker/core/time_format.hpp"
#include "arbroker/store/events.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {
namespace {

event_row event_of(const reservation_row& r, const char* kind, timestamp at, std::string what) {
  return {0,       at,    kind, r.id,           r.owner, r.cluster, std::string(to_string(r.state)),
          r.start, r.end, r.np, std::move(what)};
}

std::string terms(const reservation_row& r) {
  return std::to_string(r.np) + " CPUs " + format_time(r.start) + " to " + format_time(r.end);
}

}  // namespace

std::vector<event_row> reservation_events(const std::optional<reservation_row>& before,
                                          const reservation_row& after, timestamp at) {
  std::vector<event_row> out;
  if (!before) {
    out.push_back(event_of(
        after, "reservation.created", at,
        (after.state == reservation_state::accepted ? "held: " : "made: ") + terms(after)));
  } else if (before->finished == 0 &&
             (before->start != after.start || before->end != after.end || before->np != after.np)) {
    const bool same_length = after.end - after.start == before->end - before->start;
    const char* kind = before->np != after.np                        ? "reservation.modified"
                       : before->start != after.start && same_length ? "reservation.moved"
                       : before->start == after.start && after.end > before->end
                           ? "reservation.extended"
                           : "reservation.modified";
    out.push_back(event_of(after, kind, at, "was " + terms(*before) + ", now " + terms(after)));
  }
  // A hold committed, or a reservation made committed at once (commit_at_once): either way a
  // watcher sees it created, then committed.
  const bool was_uncommitted = !before || before->state == reservation_state::accepted;
  if (was_uncommitted && after.state == reservation_state::committed && after.finished == 0)
    out.push_back(event_of(after, "reservation.committed", at, "committed: " + terms(after)));
  if (after.finished != 0 && (!before || before->finished == 0))
    out.push_back(
        event_of(after, "reservation.ended", at,
                 std::string(to_string(after.state)) + " at " + format_time(after.finished)));
  return out;
}

}  // namespace arbroker
