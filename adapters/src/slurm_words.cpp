// What Slurm's numbers and texts mean to the adapter (declared in slurm_lrms.hpp): its error
// numbers as arbroker's codes, a pending job's dependency text as the ids it waits for, and
// why the plan of the queue only approximates a pending job. Pure functions of what libslurm
// reports, tested without a controller (tests/slurm_lrms_test.cpp).

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/adapters/slurm_lrms.hpp"
#include "slurm_api.hpp"

namespace arbroker {

std::vector<std::string> slurm_dependency_ids(std::string_view dependency) {
  std::vector<std::string> ids;
  std::size_t at = 0;
  while (at < dependency.size()) {
    auto end = dependency.find_first_of(",?", at);
    if (end == std::string_view::npos) end = dependency.size();
    std::string_view item = dependency.substr(at, end - at);  // "afterok:13:14(unfulfilled)"
    at = end + 1;
    const auto paren = item.find('(');
    if (paren != std::string_view::npos && item.substr(paren) != "(unfulfilled)") continue;
    item = item.substr(0, paren);
    for (auto colon = item.find(':'); colon != std::string_view::npos;) {
      const auto next = item.find(':', colon + 1);
      std::string_view id = item.substr(
          colon + 1, next == std::string_view::npos ? std::string_view::npos : next - colon - 1);
      id = id.substr(0, id.find_first_of("+_"));  // "12+30" (a delay), "12_*" (an array)
      if (!id.empty() && id.find_first_not_of("0123456789") == std::string_view::npos)
        ids.emplace_back(id);
      colon = next;
    }
  }
  return ids;
}

std::string slurm_approximation(const slurm_pending_facts& f) {
  std::string why;
  const auto add = [&why](std::string_view reason) {
    why += (why.empty() ? "" : "; ") + std::string(reason);
  };
  // Held jobs have priority 0 and so come last in the plan; when released they get one back.
  if (f.held) add("held (scontrol hold): planned as if released now, after the other jobs");
  const auto in_list = [](std::string_view list, std::string_view name) {
    for (std::size_t at = 0; at <= list.size();) {
      const auto end = std::min(list.find(',', at), list.size());
      if (list.substr(at, end - at) == name) return true;
      at = end + 1;
    }
    return false;
  };
  if (!f.partitions.empty() && !in_list(f.partitions, f.cluster_partition))
    add("in partition " + std::string(f.partitions) + ": counted against " +
        std::string(f.cluster_partition) + "'s CPUs");
  if (!f.req_nodes.empty())
    add("asks for nodes " + std::string(f.req_nodes) + ": planned on any CPU");
  if (f.dependency.find("singleton") != std::string_view::npos)
    add("dependency singleton: planned without it");
  if (f.dependency.find('?') != std::string_view::npos)
    add("dependency with alternatives (?): planned after all of them");
  return why;
}

errc slurm_errc(int code) noexcept {
  switch (code) {
    case ESLURM_NODES_BUSY:
    case ESLURM_RESERVATION_OVERLAP:
      return errc::busy;
    case ESLURM_INVALID_TIME_VALUE:
      return errc::invalid_window;
    case ESLURM_USER_ID_MISSING:
    case ESLURM_ACCESS_DENIED:
    case ESLURM_RESERVATION_ACCESS:
    case ESLURM_INVALID_ACCOUNT:
      return errc::permission_denied;
    case ESLURM_RESERVATION_INVALID:
    case ESLURM_INVALID_JOB_ID:
      return errc::not_found;
    case ESLURM_RESERVATION_BUSY:
      return errc::in_use;
    case ESLURM_INVALID_CORE_CNT:
    case ESLURM_INVALID_NODE_COUNT:
    case ESLURM_INVALID_TRES:
    case ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE:
      return errc::invalid_processor_range;
    case ESLURM_INVALID_TIME_LIMIT:
      return errc::invalid_duration;
    case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
    case SLURM_COMMUNICATIONS_SEND_ERROR:
    case SLURM_COMMUNICATIONS_SHUTDOWN_ERROR:
    case SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR:
    case SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR:
    case SLURMCTLD_COMMUNICATIONS_SEND_ERROR:
    case SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR:
    case ECONNREFUSED:
    case ECONNRESET:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case EPIPE:
      return errc::unreachable;
    case SLURM_COMMUNICATIONS_RECEIVE_ERROR:
    case SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR:
    case SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT:
    case ETIMEDOUT:
      return errc::timeout;
    default:
      return errc::lrms_failure;
  }
}

}  // namespace arbroker
