#include "arbroker/core/esr_static.hpp"

#include <cmath>
#include <string>

namespace arbroker {

result<double> esr_static(duration book_ahead, duration h) {
  if (h <= 0)
    return fail(errc::invalid_duration, "esr static: h must be > 0 s, got " + std::to_string(h));
  if (book_ahead <= 0) return 0.0;
  // -expm1(-x) == 1 - exp(-x), without cancellation for short book-ahead times.
  return -std::expm1(-static_cast<double>(book_ahead) / static_cast<double>(h));
}

}  // namespace arbroker
