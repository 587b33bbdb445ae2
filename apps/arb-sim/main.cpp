// arb-sim: runs the experiments of configs/experiments/ on the discrete-event simulator.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "arb_version.hpp"
#include "config.hpp"
#include "runner.hpp"

#ifndef ARB_TRACES_DIR
#define ARB_TRACES_DIR "traces"  // the build defines the repository's traces/
#endif

namespace {

// What made an output directory: the build, the command line and the config, verbatim, so
// that a figure can be traced back and run again (diff -r of two runs can skip this file).
void write_provenance(const std::filesystem::path& dir, const std::string& command,
                      const std::string& config_file, const std::vector<std::string>& overrides,
                      const std::string& admission, const arbroker::simapp::run_options& opt) {
  std::string set = overrides.empty() ? "none" : "";
  for (const auto& o : overrides)
    set += (set.empty() ? "" : " ") + ("--set " + o);
  std::ifstream in(config_file);
  std::ostringstream config;
  config << in.rdbuf();
  std::ofstream out(dir / "provenance.txt");
  out << "arb-sim, arbroker " << ARB_VERSION << "\n"
      << "command: " << command << "\n"
      << "working directory: " << std::filesystem::current_path().string() << "\n"
      << "traces: " << opt.traces_dir.string() << "\n"
      << "config: " << config_file << "\n"
      << "overrides: " << set << "  (applied over the file below)"
      << "\n"
      << "admission: " << admission << "  (the clusters' rule, defaults included)\n"
      << "--- " << config_file << " ---\n"
      << config.str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace arbroker;
  CLI::App app{"arb-sim: reproduces the papers' experiments on the simulated grid"};
  app.set_version_flag("--version", std::string("arb-sim, arbroker ") + ARB_VERSION);
  std::string command;  // as typed, for provenance.txt
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  std::vector<std::string> configs;
  simapp::run_options opt;
  std::string out_dir = "sim-out";
  std::string traces =
      std::getenv("ARB_TRACES_DIR") ? std::getenv("ARB_TRACES_DIR") : ARB_TRACES_DIR;
  std::vector<std::string> overrides;
  bool no_plots = false;
  bool progress = isatty(2) != 0;
  app.add_option("config", configs, "experiment files (configs/experiments/*.toml)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--out", out_dir, "output directory (one folder per experiment)");
  app.add_option("--traces", traces, "directory of the SWF traces (env ARB_TRACES_DIR)");
  app.add_option("-j,--threads", opt.threads, "runs in parallel (does not change the output)")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--set", overrides,
                 "KEY=VALUE: replace a key of every config before it is read (dotted, a TOML "
                 "value or a bare word: --set grid.ljp=off --set 'requests.par=[1]')");
  app.add_flag("--no-plots", no_plots, "write the gnuplot scripts but do not run gnuplot");
  app.add_flag("--strict", opt.strict,
               "refuse a trace with a bad record (default: skip such records and print their "
               "counts by reason)");
  app.add_flag("--progress,!--no-progress", progress,
               "progress bar with ETA on stderr (default: when stderr is a terminal)");
  CLI11_PARSE(app, argc, argv);
  opt.out_dir = out_dir;
  opt.traces_dir = traces;
  opt.plots = !no_plots;
  opt.progress = progress;

  for (const auto& file : configs) {
    auto cfg = simapp::load_experiment(file, overrides);
    if (!cfg) {
      std::cerr << "arb-sim: " << cfg.err().message << '\n';
      return 2;
    }
    auto ok = cfg->kind == "paper000"   ? simapp::run_paper000(cfg->paper000, opt)
              : cfg->kind == "paper001" ? simapp::run_paper001(cfg->paper001, opt)
              : cfg->kind == "paper002" ? simapp::run_paper002(cfg->paper002, opt)
              : cfg->kind == "paper004" ? simapp::run_paper004(cfg->paper004, opt)
              : cfg->kind == "grid5"    ? simapp::run_grid5(cfg->grid5, opt)
                                        : simapp::run_replay(cfg->replay, opt);
    if (!ok) {
      std::cerr << "arb-sim: " << file << ": " << ok.err().message << '\n';
      return 1;
    }
    write_provenance(opt.out_dir / cfg->name, command, file, overrides, simapp::admission_of(*cfg),
                     opt);
  }
  return 0;
}
