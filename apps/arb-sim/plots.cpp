#include "plots.hpp"

#include "arbroker/simulator/gantt.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
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

status gantt_chart(const std::filesystem::path& dir, const sim::sim_output& run, int cluster,
                   int cpus, timestamp origin, timestamp from, timestamp to,
                   const std::string& title, bool plot) {
  auto boxes = sim::gantt_layout(run, cluster, cpus, from, to);
  if (!boxes) return boxes.err();
  auto hours = [origin](timestamp t) { return static_cast<double>(t - origin) / 3600.0; };
  std::ostringstream csv;
  csv << "x0,x1,y0,y1,kind,id\n";
  for (const auto& b : *boxes)
    csv << hours(b.start) << ',' << hours(b.end) << ',' << b.row_begin << ',' << b.row_end << ','
        << static_cast<int>(b.kind) << ',' << b.id << '\n';
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
