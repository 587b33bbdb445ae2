#include "tables.hpp"

#include <cmath>
#include <fstream>

#include "format.hpp"

namespace arbroker::simapp {

void write_tables(const std::filesystem::path& dir, const std::string& experiment,
                  const std::vector<md_table>& tables) {
  std::ofstream os(dir / "tables.md");
  os << "# " << experiment << ": the tables of docs/experiments.md\n";
  for (const auto& t : tables) {
    os << "\n<!-- table " << experiment << '/' << t.id << " -->\n" << t.caption << "\n\n|";
    for (const auto& h : t.header)
      os << ' ' << h << " |";
    os << "\n|";
    for (std::size_t i = 0; i < t.header.size(); ++i)
      os << (i == 0 ? "---|" : "---:|");
    os << '\n';
    for (const auto& r : t.rows) {
      os << '|';
      for (const auto& cell : r)
        os << ' ' << cell << " |";
      os << '\n';
    }
  }
}

std::string thousands(double v) {
  const long long n = std::llround(v);
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return n < 0 ? "-" + digits : digits;
}

std::string plus_minus(double mean, double half_width, int decimals) {
  if (decimals < 0) return thousands(mean) + " ± " + thousands(half_width);
  return fmt(mean, decimals) + " ± " + fmt(half_width, decimals);
}

}  // namespace arbroker::simapp
