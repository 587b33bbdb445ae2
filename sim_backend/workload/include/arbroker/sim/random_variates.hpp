#pragma once

// Random variates for the workload models, built on std::mt19937_64 only.
//
// The C++ standard fixes the output of std::mt19937_64 but not that of the
// std::*_distribution classes (libstdc++ and libc++ differ), so a seeded workload would not
// be the same everywhere. These functions turn raw 64-bit draws into variates with fixed
// algorithms; given the same seed they produce the same numbers wherever the C library's
// log/exp/pow agree (they do on glibc, which the project targets).

#include <cstdint>
#include <random>

namespace arbroker::sim {

using rng_engine = std::mt19937_64;

/// Uniform in [0, 1): the top 53 bits of one draw, scaled.
inline double uniform01(rng_engine& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// Uniform in (0, 1]: safe to take the logarithm of.
inline double uniform01_open_low(rng_engine& rng) {
  return (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
}

/// Uniform integer in [0, n) for n >= 1 (floor of a uniform double; the bias is below 2^-53 * n).
std::uint64_t uniform_index(rng_engine& rng, std::uint64_t n);

/// Exponential with the given mean (> 0), by inversion.
double exponential(rng_engine& rng, double mean);

/// Standard normal, by Marsaglia's polar method (one value per call, the twin is dropped so
/// that the function keeps no state).
double standard_normal(rng_engine& rng);

/// Gamma with shape k > 0 and scale theta > 0 (mean k*theta, variance k*theta^2), by
/// Marsaglia and Tsang (2000); for k < 1 the usual boost Gamma(k+1) * U^(1/k).
double gamma_variate(rng_engine& rng, double shape, double scale);

}  // namespace arbroker::sim
