#pragma once
// PNG plots through gnuplot (Debian package gnuplot-nox): each plot is a .gp script written
// beside its CSV, so it can be re-run or edited by hand.

#include <filesystem>
#include <string>

#include "arbroker/core/error.hpp"
#include "arbroker/simulator/driver.hpp"

namespace arbroker::simapp {

/// The first lines of every PNG script: a 900 x 600 PNG named name.png from CSV input.
inline std::string png_script_head(const std::string& name) {
  return "set terminal pngcairo noenhanced size 900,600\nset datafile separator ','\n"
         "set output '" +
         name + ".png'\n";
}

/// Writes `script` to dir/name.gp and, when `run`, runs gnuplot on it in `dir`.
/// errc::not_found when gnuplot is not installed; lrms_failure when it fails.
status gnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& script,
               bool run);

/// The Gantt chart of cluster `cluster` over [from, to): every job and reservation that
/// overlaps it, laid out on CPU rows (lowest free rows first, as the cluster never holds
/// more than its CPUs). Writes dir/gantt.csv (x0,x1,y0,y1,kind,id; hours since `origin`)
/// and the script for dir/gantt.png.
status gantt_chart(const std::filesystem::path& dir, const sim::sim_output& run, int cluster,
                   int cpus, timestamp origin, timestamp from, timestamp to,
                   const std::string& title, bool plot);

}  // namespace arbroker::simapp
