#include "arbroker/core/speedup.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include "round_up.hpp"

namespace arbroker {
namespace {

double amdahl_speedup(const amdahl_model& m, double n) {
  return 1.0 / (m.seq + (1.0 - m.seq) / n);
}

// The five branches of eq. 3, in the paper's order.
double downey_speedup(const downey_model& m, double n) {
  const double a = m.a;
  const double s = m.sigma;
  if (s <= 1.0) {
    if (n <= a) return a * n / (a + s / 2.0 * (n - 1.0));
    if (n <= 2.0 * a - 1.0) return a * n / (s * (a - 0.5) + n * (1.0 - s / 2.0));
    return a;
  }
  if (n <= a + a * s - s) return a * n * (s + 1.0) / (s * (n + a - 1.0) + a);
  return a;
}

double table_speedup(const table_model& m, double n) {
  const auto& p = m.points;
  if (n <= p.front().n) return p.front().speedup * n / p.front().n;
  if (n >= p.back().n) return p.back().speedup;
  for (std::size_t i = 1; i < p.size(); ++i) {
    if (n <= p[i].n) {
      const double w = (n - p[i - 1].n) / static_cast<double>(p[i].n - p[i - 1].n);
      return p[i - 1].speedup + w * (p[i].speedup - p[i - 1].speedup);
    }
  }
  return p.back().speedup;  // unreachable: n < p.back().n was handled by the loop
}

result<double> parse_double(std::string_view text, std::string_view what) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
    return fail(errc::invalid_speedup_model,
                "cannot read " + std::string(what) + " from '" + std::string(text) + "'");
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    auto next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string_view::npos ? s.npos : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

}  // namespace

result<speedup_model> speedup_model::amdahl(double seq) {
  if (!(seq >= 0.0 && seq <= 1.0))  // also rejects NaN
    return fail(errc::invalid_speedup_model,
                "amdahl: sequential fraction " + std::to_string(seq) + " is outside [0, 1]");
  return speedup_model{amdahl_model{seq}};
}

result<speedup_model> speedup_model::downey(double a, double sigma) {
  if (!(a >= 1.0) || !std::isfinite(a))
    return fail(errc::invalid_speedup_model,
                "downey: average parallelism A = " + std::to_string(a) + " must be >= 1");
  if (!(sigma >= 0.0) || !std::isfinite(sigma))
    return fail(errc::invalid_speedup_model,
                "downey: variance sigma = " + std::to_string(sigma) + " must be >= 0");
  return speedup_model{downey_model{a, sigma}};
}

result<speedup_model> speedup_model::table(std::vector<table_model::point> points) {
  if (points.empty()) return fail(errc::invalid_speedup_model, "table: no reference points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.n < 1)
      return fail(errc::invalid_speedup_model,
                  "table: processor count " + std::to_string(p.n) + " must be >= 1");
    if (!(p.speedup > 0.0) || !std::isfinite(p.speedup))
      return fail(errc::invalid_speedup_model,
                  "table: speedup at n=" + std::to_string(p.n) + " must be a positive number");
    if (i > 0 && p.n <= points[i - 1].n)
      return fail(errc::invalid_speedup_model,
                  "table: processor counts must be strictly increasing (" +
                      std::to_string(points[i - 1].n) + " then " + std::to_string(p.n) + ")");
  }
  return speedup_model{table_model{std::move(points)}};
}

result<speedup_model> speedup_model::parse(std::string_view spec) {
  auto parts = split(spec, ':');
  const auto kind = parts.front();
  if (kind == "amdahl" && parts.size() == 2) {
    auto seq = parse_double(parts[1], "amdahl sequential fraction");
    if (!seq) return seq.err();
    return amdahl(*seq);
  }
  if (kind == "downey" && parts.size() == 3) {
    auto a = parse_double(parts[1], "downey A");
    if (!a) return a.err();
    auto sigma = parse_double(parts[2], "downey sigma");
    if (!sigma) return sigma.err();
    return downey(*a, *sigma);
  }
  if (kind == "table" && parts.size() == 2) {
    std::vector<table_model::point> points;
    for (auto item : split(parts[1], ',')) {
      auto kv = split(item, '=');
      if (kv.size() != 2)
        return fail(errc::invalid_speedup_model,
                    "table: expected n=speedup, got '" + std::string(item) + "'");
      auto n = parse_double(kv[0], "table processor count");
      if (!n) return n.err();
      if (*n != std::floor(*n) || *n < 1 || *n > 1e9)
        return fail(errc::invalid_speedup_model, "table: processor count '" + std::string(kv[0]) +
                                                     "' is not a whole number >= 1");
      auto s = parse_double(kv[1], "table speedup");
      if (!s) return s.err();
      points.push_back({static_cast<int>(*n), *s});
    }
    return table(std::move(points));
  }
  return fail(errc::invalid_speedup_model,
              "unknown speedup model '" + std::string(spec) +
                  "' (expected amdahl:SEQ, downey:A:SIGMA or table:N=S,...)");
}

double speedup_model::speedup(int n) const {
  const double x = n;
  return std::visit(
      [x](const auto& m) -> double {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, amdahl_model>) return amdahl_speedup(m, x);
        if constexpr (std::is_same_v<T, downey_model>) return downey_speedup(m, x);
        if constexpr (std::is_same_v<T, table_model>) return table_speedup(m, x);
      },
      model_);
}

std::string speedup_model::to_string() const {
  std::ostringstream out;
  out.precision(17);
  std::visit(
      [&out](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, amdahl_model>) out << "amdahl:" << m.seq;
        if constexpr (std::is_same_v<T, downey_model>) out << "downey:" << m.a << ':' << m.sigma;
        if constexpr (std::is_same_v<T, table_model>) {
          out << "table:";
          for (std::size_t i = 0; i < m.points.size(); ++i)
            out << (i ? "," : "") << m.points[i].n << '=' << m.points[i].speedup;
        }
      },
      model_);
  return out.str();
}

result<duration> adapt_duration(const speedup_model& sp, duration dur_ref, int np_ref, int n) {
  if (dur_ref <= 0)
    return fail(errc::invalid_duration,
                "reference duration " + std::to_string(dur_ref) + " s must be positive");
  if (np_ref < 1 || n < 1)
    return fail(errc::invalid_processor_range,
                "processor counts must be >= 1 (np_ref=" + std::to_string(np_ref) +
                    ", n=" + std::to_string(n) + ")");
  return checked_round_up(static_cast<double>(dur_ref) * sp.speedup(np_ref) / sp.speedup(n),
                          "adapted duration");
}

result<duration> scale_duration_to_site(duration dur_ref, double pp_ref, double pp_site) {
  if (dur_ref <= 0)
    return fail(errc::invalid_duration,
                "reference duration " + std::to_string(dur_ref) + " s must be positive");
  if (!(pp_ref > 0.0) || !std::isfinite(pp_ref) || !(pp_site > 0.0) || !std::isfinite(pp_site))
    return fail(errc::invalid_parameter,
                "processor powers must be positive (pp_ref=" + std::to_string(pp_ref) +
                    ", pp_site=" + std::to_string(pp_site) + ")");
  return checked_round_up(static_cast<double>(dur_ref) * pp_ref / pp_site, "site duration");
}

}  // namespace arbroker
