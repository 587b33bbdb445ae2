#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "arbroker/core/enum_bounds.hpp"

namespace arbroker::msg::testing {

/// An inspector that sets every field of a message to a random value (vectors get 0-3
/// elements, enums one of their values, nested structs are filled recursively), so that a round
/// trip through an encoding compares non-trivial values in every field.
class field_randomizer {
 public:
  using result_type = void;
  explicit field_randomizer(std::uint64_t seed) : rng_(seed) {}

  template <class... Ts>
  void operator()(Ts&... xs) {
    (fill(xs), ...);
  }

 private:
  void fill(std::string& s) {
    s.clear();
    const int n = std::uniform_int_distribution<int>(0, 12)(rng_);
    for (int i = 0; i < n; ++i)
      s += static_cast<char>(std::uniform_int_distribution<int>(1, 255)(rng_));
  }
  void fill(bool& b) { b = std::bernoulli_distribution(0.5)(rng_); }
  void fill(double& d) { d = std::uniform_real_distribution<double>(-1e9, 1e9)(rng_); }
  template <class T>
  void fill(std::vector<T>& v) {
    v.resize(std::uniform_int_distribution<std::size_t>(0, 3)(rng_));
    for (auto& e : v)
      fill(e);
  }
  template <class T>
  void fill(T& x) {
    if constexpr (std::is_enum_v<T>) {
      using U = std::underlying_type_t<T>;
      x = static_cast<T>(std::uniform_int_distribution<int>(
          0, static_cast<int>(static_cast<U>(enum_bounds<T>::last)))(rng_));
    } else if constexpr (std::is_integral_v<T>) {
      x = static_cast<T>(rng_());
    } else {
      inspect(*this, x);
    }
  }
  std::mt19937_64 rng_;
};

template <class T>
T random_message(std::uint64_t seed) {
  T x{};
  field_randomizer r(seed);
  inspect(r, x);
  return x;
}

}  // namespace arbroker::msg::testing
