#include "arbroker/api/serving_role.hpp"

namespace arbroker::api {

void serving_role::standby(std::optional<leader_info> leader) {
  std::lock_guard lock{mu_};
  state_ = state::standby;
  leader_ = std::move(leader);
}

void serving_role::starting() {
  std::lock_guard lock{mu_};
  state_ = state::starting;
  leader_.reset();
}

void serving_role::serving() {
  std::lock_guard lock{mu_};
  state_ = state::serving;
  leader_.reset();
}

bool serving_role::is_serving() const {
  std::lock_guard lock{mu_};
  return state_ == state::serving;
}

std::optional<not_served> serving_role::refusal() const {
  std::lock_guard lock{mu_};
  switch (state_) {
    case state::serving:
      return std::nullopt;
    case state::starting:
      return not_served{fail(errc::unreachable, "node " + node_ +
                                                    " is starting: it took the store's lease "
                                                    "and recovers; try again in a moment"),
                        std::nullopt};
    case state::standby:
      break;
  }
  if (!leader_)
    return not_served{fail(errc::not_leader, "node " + node_ +
                                                 " is a standby and no node serves the store "
                                                 "now (a failover is under way): try again"),
                      std::nullopt};
  return not_served{fail(errc::not_leader, "node " + node_ + " is a standby: node " +
                                               leader_->node + " serves, at " + leader_->address +
                                               (leader_->http_address.empty()
                                                    ? std::string()
                                                    : " (HTTP " + leader_->http_address + ")") +
                                               ", epoch " + std::to_string(leader_->epoch)),
                    leader_};
}

}  // namespace arbroker::api
