// The conformance suite against the live Grid Engine cell the ctest fixture starts (8 slots,
// scripts/gridengine/start.sh; adapters/gridengine.cmake).
#include "arbroker/adapters/gridengine_lrms.hpp"
#include "conformance.hpp"

namespace arbroker::conformance {
namespace {

lrms_under_test gridengine() {
  lrms_under_test t;
  t.name = "gridengine";
  t.cpus = 8;
  t.make = [] {
    gridengine_config c;
    c.name_prefix = "arbc-";
    return std::unique_ptr<lrms>(std::make_unique<gridengine_lrms>(c));
  };
  t.differs.delete_in_use_refused = false;
  return t;
}

INSTANTIATE_TEST_SUITE_P(lrms, lrms_conformance, ::testing::Values(gridengine()), name_of);

}  // namespace
}  // namespace arbroker::conformance
