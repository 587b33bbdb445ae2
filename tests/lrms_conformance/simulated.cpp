// The conformance suite against the simulated LRMS, on the wall clock as the live node runs it.
#include <ctime>

#include "arbroker/sim/simulated_lrms.hpp"
#include "conformance.hpp"

namespace arbroker::conformance {
namespace {

lrms_under_test simulated() {
  lrms_under_test t;
  t.name = "simulated";
  t.cpus = 8;
  t.make = [] {
    auto l = simulated_lrms::create(
        {"conformance", 8, {1, {}}, [] { return static_cast<timestamp>(std::time(nullptr)); }});
    return l ? std::unique_ptr<lrms>(std::move(*l)) : nullptr;
  };
  t.differs.delete_in_use_refused = false;
  t.dispatch_limit = std::chrono::seconds(10);
  return t;
}

INSTANTIATE_TEST_SUITE_P(lrms, lrms_conformance, ::testing::Values(simulated()), name_of);

}  // namespace
}  // namespace arbroker::conformance
