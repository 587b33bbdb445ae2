#include "arbroker/simulator/gantt.hpp"

#include <algorithm>
#include <queue>
#include <set>
#include <string>
#include <tuple>

namespace arbroker::sim {
namespace {

struct item {
  timestamp start, end;
  int np;
  gantt_kind kind;
  std::int64_t id;
};

}  // namespace

result<std::vector<gantt_box>> gantt_layout(const sim_output& run, int cluster, int cpus,
                                            timestamp from, timestamp to) {
  std::vector<item> items;
  for (const auto& j : run.jobs)
    if (j.cluster == cluster && j.start >= 0 && j.end > j.start)
      items.push_back({j.start, j.end, j.np, gantt_kind::job, j.id});
  for (const auto& r : run.requests)
    if (r.cluster == cluster && r.ok())
      items.push_back({r.reply.reservation.start, r.reply.reservation.end, r.reply.reservation.np,
                       gantt_kind::reservation, r.id});
  std::sort(items.begin(), items.end(), [](const item& a, const item& b) {
    return std::tie(a.start, a.kind, a.id) < std::tie(b.start, b.kind, b.id);
  });
  std::set<int> free_rows;
  for (int c = 0; c < cpus; ++c)
    free_rows.insert(c);
  using ending = std::pair<timestamp, std::size_t>;
  std::priority_queue<ending, std::vector<ending>, std::greater<>> running;
  std::vector<std::vector<int>> rows(items.size());
  std::vector<gantt_box> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& it = items[i];
    while (!running.empty() && running.top().first <= it.start) {
      for (int r : rows[running.top().second])
        free_rows.insert(r);
      running.pop();
    }
    if (static_cast<int>(free_rows.size()) < it.np)
      return fail(errc::invalid_parameter, "gantt: more than " + std::to_string(cpus) +
                                               " CPUs in use at " + std::to_string(it.start));
    for (int k = 0; k < it.np; ++k) {
      rows[i].push_back(*free_rows.begin());
      free_rows.erase(free_rows.begin());
    }
    running.push({it.end, i});
    if (it.end <= from || it.start >= to) continue;
    const auto& rs = rows[i];  // ascending: taken lowest first
    for (std::size_t a = 0; a < rs.size();) {
      std::size_t b = a;
      while (b + 1 < rs.size() && rs[b + 1] == rs[b] + 1)
        ++b;
      out.push_back(
          {std::max(it.start, from), std::min(it.end, to), rs[a], rs[b] + 1, it.kind, it.id});
      a = b + 1;
    }
  }
  return out;
}

}  // namespace arbroker::sim
