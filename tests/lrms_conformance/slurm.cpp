// The conformance suite against the live Slurm instance the ctest fixture starts (arbtest:
// 8 CPUs on two nodes, scripts/slurm/start.sh; adapters/slurm.cmake).
#include "arbroker/adapters/slurm_lrms.hpp"
#include "conformance.hpp"

namespace arbroker::conformance {
namespace {

lrms_under_test slurm() {
  lrms_under_test t;
  t.name = "slurm";
  t.cpus = 8;
  t.make = [] {
    slurm_options o;
    o.conf = ARB_SLURM_RUN_DIR "/arbtest/slurm.conf";
    o.prefix = "arbc-";
    o.job_dir = ARB_SLURM_RUN_DIR "/arbtest/jobs";
    return std::unique_ptr<lrms>(std::make_unique<slurm_lrms>(o));
  };
  t.differs.delete_in_use_refused = true;
  return t;
}

INSTANTIATE_TEST_SUITE_P(lrms, lrms_conformance, ::testing::Values(slurm()), name_of);

}  // namespace
}  // namespace arbroker::conformance
