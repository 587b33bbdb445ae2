#include "plots.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <queue>
#include <set>
#include <sstream>
#include <vector>

namespace arbroker::simapp {

status gnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& script,
               bool run) {
  std::ofstream(dir / (name + ".gp")) << script;
  if (!run) return {};
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    return fail(errc::not_found, "gnuplot is not installed (Debian package gnuplot-nox)");
  std::string cmd = "cd '" + dir.string() + "' && gnuplot '" + name + ".gp'";
  if (std::system(cmd.c_str()) != 0)
    return fail(errc::lrms_failure, "gnuplot failed on " + (dir / (name + ".gp")).string());
  return {};
}

namespace {

struct item {
  timestamp start, end;
  int np;
  int kind;  // 1 job, 2 reservation
  std::int64_t id;
};

}  // namespace

status gantt_chart(const std::filesystem::path& dir, const sim::sim_output& run, int cluster,
                   int cpus, timestamp origin, timestamp from, timestamp to,
                   const std::string& title, bool plot) {
  std::vector<item> items;
  for (const auto& j : run.jobs)
    if (j.cluster == cluster && j.start >= 0 && j.end > j.start)
      items.push_back({j.start, j.end, j.np, 1, j.id});
  for (const auto& r : run.requests)
    if (r.cluster == cluster)
      items.push_back(
          {r.reply.reservation.start, r.reply.reservation.end, r.reply.reservation.np, 2, r.id});
  std::sort(items.begin(), items.end(), [](const item& a, const item& b) {
    return std::tie(a.start, a.kind, a.id) < std::tie(b.start, b.kind, b.id);
  });
  // Lay items out on CPU rows over the whole run (ends before starts at one instant).
  std::set<int> free_rows;
  for (int c = 0; c < cpus; ++c)
    free_rows.insert(c);
  using ending = std::pair<timestamp, std::size_t>;
  std::priority_queue<ending, std::vector<ending>, std::greater<>> running;
  std::vector<std::vector<int>> rows(items.size());
  std::ostringstream csv;
  csv << "x0,x1,y0,y1,kind,id\n";
  auto hours = [origin](timestamp t) { return static_cast<double>(t - origin) / 3600.0; };
  for (std::size_t i = 0; i < items.size(); ++i) {
    while (!running.empty() && running.top().first <= items[i].start) {
      for (int r : rows[running.top().second])
        free_rows.insert(r);
      running.pop();
    }
    if (static_cast<int>(free_rows.size()) < items[i].np)
      return fail(errc::invalid_parameter, "gantt: more CPUs in use than the cluster has at " +
                                               std::to_string(items[i].start));
    for (int k = 0; k < items[i].np; ++k) {
      rows[i].push_back(*free_rows.begin());
      free_rows.erase(free_rows.begin());
    }
    running.push({items[i].end, i});
    if (items[i].end <= from || items[i].start >= to) continue;
    // One rectangle per run of consecutive rows.
    const auto& rs = rows[i];
    std::size_t a = 0;
    while (a < rs.size()) {
      std::size_t b = a;
      while (b + 1 < rs.size() && rs[b + 1] == rs[b] + 1)
        ++b;
      csv << hours(std::max(items[i].start, from)) << ',' << hours(std::min(items[i].end, to))
          << ',' << rs[a] << ',' << rs[b] + 1 << ',' << items[i].kind << ',' << items[i].id << '\n';
      a = b + 1;
    }
  }
  std::ofstream(dir / "gantt.csv") << csv.str();
  std::ostringstream gp;
  gp << "set terminal pngcairo noenhanced size 1400,700\nset output 'gantt.png'\n"
     << "set datafile separator ','\nset datafile columnheaders\nset title '" << title << "'\n"
     << "set xlabel 'hours since the first submit'\nset ylabel 'CPU'\n"
     << "set xrange [" << hours(from) << ':' << hours(to) << "]\nset yrange [0:" << cpus
     << "]\nset key outside top center horizontal\n"
     << "set style fill solid 0.6 border lc rgb '#333333'\n"
     << "plot 'gantt.csv' using (($1+$2)/2):($5==1?($3+$4)/2:1/0):(($2-$1)/2):"
        "(($4-$3)/2) with boxxyerror lc rgb '#4477aa' title 'local jobs', \\\n"
     << "     '' using (($1+$2)/2):($5==2?($3+$4)/2:1/0):(($2-$1)/2):(($4-$3)/2) "
        "with boxxyerror lc rgb '#cc3311' title 'reservations'\n";
  return gnuplot(dir, "gantt", gp.str(), plot);
}

}  // namespace arbroker::simapp
