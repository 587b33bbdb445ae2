// client::connect_any: the node that serves, among several on one store (issue 36).
#include <algorithm>
#include <thread>

#include "arbroker/api/client.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::api {

namespace {

using clock_type = std::chrono::steady_clock;

std::string text_of(const server_address& a) {
  return a.first.find(':') != std::string::npos ? "[" + a.first + "]:" + std::to_string(a.second)
                                                : a.first + ":" + std::to_string(a.second);
}

/// A refusal that another node (or the same one, a moment later) may not give.
bool try_elsewhere(errc code) {
  return code == errc::not_leader || code == errc::unreachable || code == errc::timeout;
}

}  // namespace

result<welcome> client::connect_any(const std::vector<server_address>& servers,
                                    const std::string& user, const std::string& token,
                                    std::chrono::milliseconds wait) {
  if (servers.empty()) return fail(errc::invalid_parameter, "no server to connect to");
  const auto deadline = clock_type::now() + wait;
  // A node paused (SIGSTOP) still accepts connections, and never answers: not waited for long.
  const auto own_timeout = options_.timeout;
  const bool several = servers.size() > 1;
  if (several) options_.timeout = std::min(own_timeout, std::chrono::milliseconds(2000));
  auto pause = std::chrono::milliseconds(100);
  error last{errc::unreachable, ""};
  std::vector<std::string> slow;  // did not answer their hello in time: tried last
  for (;;) {
    std::vector<server_address> order = servers;
    std::stable_partition(order.begin(), order.end(), [&](const server_address& s) {
      return std::find(slow.begin(), slow.end(), text_of(s)) == slow.end();
    });
    std::vector<std::string> tried;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto where = text_of(order[i]);
      if (std::find(tried.begin(), tried.end(), where) != tried.end()) continue;
      tried.push_back(where);
      auto w = greet(order[i].first, order[i].second, user, token);
      if (w && w->error.ok()) {
        options_.timeout = own_timeout;
        return *w;
      }
      last = w ? msg::from_wire(w->error) : w.err();
      if (last.code == errc::timeout && std::find(slow.begin(), slow.end(), where) == slow.end())
        slow.push_back(where);
      if (!try_elsewhere(last.code)) {
        options_.timeout = own_timeout;
        return last;
      }
      if (w && last.code == errc::not_leader && !w->leader.empty())
        if (auto leader = parse_host_port(w->leader))  // next, before the others
          order.insert(order.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(*leader));
    }
    const auto now = clock_type::now();
    if (now >= deadline) break;
    // A failover under way: the next round a bit later (the last one at the deadline).
    std::this_thread::sleep_for(std::min<clock_type::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
  options_.timeout = own_timeout;
  if (!several && wait.count() == 0) return last;  // as connect() would say it
  std::string names;
  for (const auto& s : servers)
    names += (names.empty() ? "" : ", ") + text_of(s);
  return fail(last.code, "no node of " + names + " serves (tried for " +
                             std::to_string(wait.count() / 1000) +
                             " s); the last said: " + last.message);
}

}  // namespace arbroker::api
