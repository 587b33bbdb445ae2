#pragma once

// The behaviour every LRMS adapter owes the engine (issue 34, item 4): the same cases run
// against the simulated LRMS, Slurm and Grid Engine. A new adapter instantiates the suite
// with its own `lrms_under_test` and is done when every case passes. Where the real systems
// differ, the difference is a named field of `lrms_differences`, never an `if` on the kind.
// See README.md beside this file.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "arbroker/adapters/lrms.hpp"

namespace arbroker::conformance {

/// What the batch systems do differently at the interface, each asserted by the suite.
struct lrms_differences {
  /// Deleting a reservation that a running job is bound to: false, the reservation goes and
  /// the job with it (Grid Engine's qrdel, the simulated LRMS); true, refused with `in_use`
  /// and nothing changes.
  bool delete_in_use_refused = false;
};

/// One LRMS the suite runs against. `make` gives a fresh adapter on the same cluster (the
/// cluster outlives it); the cluster has `cpus` CPUs, is idle when a case starts, and lets
/// `owner` own reservations and run jobs.
struct lrms_under_test {
  std::string name;
  std::function<std::unique_ptr<lrms>()> make;
  int cpus = 0;
  std::string owner = "root";
  lrms_differences differs = {};
  /// How long a job may take to be dispatched into a started reservation (a real scheduler
  /// runs every second or so).
  std::chrono::seconds dispatch_limit{60};
};

class lrms_conformance : public ::testing::TestWithParam<lrms_under_test> {
 protected:
  void SetUp() override;
  void TearDown() override;  // cancels the case's jobs, deletes its reservations

  /// Creates a reservation, remembered for the clean-up.
  result<std::string> reserve(timestamp start, duration length, int np);
  /// Submits a job (a sleep), remembered for the clean-up.
  result<std::string> submit(int np, duration walltime, std::optional<std::string> in = {});
  /// Polls `done` until it holds or the dispatch limit passes (an LRMS tells no one when a
  /// job changes state: its state is asked again every 200 ms). True when it held.
  bool eventually(const std::function<bool()>& done);
  /// Polls job_status until it is `want` (or the dispatch limit passes).
  bool becomes(const std::string& job, lrms_job_state want);

  const lrms_under_test& under_test() const { return GetParam(); }
  std::unique_ptr<lrms> l;
  std::vector<std::string> reservations, jobs;
};

/// Gives each instantiation's cases readable names ("slurm", "gridengine", ...).
std::string name_of(const ::testing::TestParamInfo<lrms_under_test>& info);
/// How gtest prints the parameter: its name (not its bytes).
void PrintTo(const lrms_under_test& t, std::ostream* os);

}  // namespace arbroker::conformance
