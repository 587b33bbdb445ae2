#include "version.hpp"

#include "arb_version.hpp"

namespace arbroker {

const char* build_version() {
  return ARB_VERSION;
}

}  // namespace arbroker
