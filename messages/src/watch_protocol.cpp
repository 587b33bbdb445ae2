#include "arbroker/messages/watch_protocol.hpp"

#include <algorithm>

namespace arbroker::msg {

status check(const watch_request& r) {
  if (r.since < -1)
    return fail(errc::invalid_parameter,
                "since: " + std::to_string(r.since) +
                    " is no event id (-1: from now on; 0: every event kept; n: after event n)");
  if (r.kinds.size() > 16)
    return fail(errc::invalid_parameter,
                "kinds: at most 16 (" + std::to_string(r.kinds.size()) + " given)");
  for (std::size_t i = 0; i < r.kinds.size(); ++i) {
    const auto& k = r.kinds[i];
    const bool known =
        k == "reservation" || k == "grid_job" ||
        std::find(watch_event_kinds.begin(), watch_event_kinds.end(), k) != watch_event_kinds.end();
    if (!known) {
      std::string all = "reservation, grid_job";
      for (auto n : watch_event_kinds)
        all += ", " + std::string(n);
      return fail(errc::invalid_parameter, "kinds[" + std::to_string(i) + "]: '" + k.substr(0, 64) +
                                               "' is no kind of event (one of " + all + ")");
    }
  }
  return {};
}

}  // namespace arbroker::msg
