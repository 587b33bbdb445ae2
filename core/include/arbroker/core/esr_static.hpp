#pragma once

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// The paper's choice of h (Sec. 4.2): a book-ahead time of 9 h 30 gives esr ~0.85.
inline constexpr duration default_esr_static_h = 18000;

/// Method "static" of the estimated success rate (paper 000, Sec. 3.2.3):
///
///   esr_S(d) = 1 - exp(-d / h),   d = start - ct (the book-ahead time)
///
/// Requests booked further ahead are more likely to be granted; h sets how fast the curve
/// rises. A candidate that starts now or in the past (d <= 0) gets 0. Fails if h <= 0.
result<double> esr_static(duration book_ahead, duration h = default_esr_static_h);

}  // namespace arbroker
