#pragma once

// Floods of refused requests in the audit trail. A client that pipelines requests past the
// server's limits is refused each time (busy): one line per refusal wrote 108,628 lines
// (24 MB) in a second for one client. Per client (front end, user, peer) and outcome, the
// first `burst` refusals of an interval are written line by line; the others are counted
// and written as one summary line once the interval is over. Successful requests,
// reservation changes and refused logins are not touched by it.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "arbroker/api/handler.hpp"

namespace arbroker {

class refusal_flood {
 public:
  using clock = std::chrono::steady_clock;

  /// Whose refusals count together.
  struct client {
    api::front_end via = api::front_end::msgpack;
    std::string user;
    std::string peer;
    std::uint8_t code = 0;  ///< the refusal's errc
    friend auto operator<=>(const client&, const client&) = default;
  };
  /// The refusals of one client in one interval that were not written one by one.
  struct summary {
    client who;
    std::uint64_t suppressed = 0;
    clock::duration span{};  ///< from the interval's first refusal to its last
  };

  refusal_flood(clock::duration interval, std::size_t burst) : interval_(interval), burst_(burst) {}

  /// Whether this refusal gets its own line (else it is counted for the summary).
  bool admit(const client& who, clock::time_point now);

  /// The summaries of the intervals over by `now` (clock::time_point::max(): all of them,
  /// at shutdown), each once; forgets those clients.
  std::vector<summary> due(clock::time_point now);

 private:
  struct window {
    clock::time_point began;
    clock::time_point last;
    std::size_t written = 0;
    std::uint64_t suppressed = 0;
  };
  const clock::duration interval_;
  const std::size_t burst_;
  std::mutex mu_;  // refusals come from every connection's strand
  std::map<client, window> windows_;
};

}  // namespace arbroker
