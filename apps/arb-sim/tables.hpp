#pragma once
// The tables of docs/experiments.md, as a run makes them: every experiment writes its tables
// to <out>/<name>/tables.md, each after a marker line `<!-- table <name>/<id> -->`. The docs
// carry the same marker above the table taken from it, and tests/experiments/doc_row.py
// checks a row of the docs against a fresh run's by that marker, row label and column header
// (the docs may leave out rows and columns, or add the paper's beside ours).

#include <filesystem>
#include <string>
#include <vector>

namespace arbroker::simapp {

struct md_table {
  std::string id;       ///< unique within the experiment: "W_R_par1"
  std::string caption;  ///< one line above it, what it shows
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  ///< first cell: the row's label
};

/// Writes the experiment's tables to dir/tables.md (first column left-aligned, the rest right).
void write_tables(const std::filesystem::path& dir, const std::string& experiment,
                  const std::vector<md_table>& tables);

/// "12,345": whole numbers with thousands separators, as the docs print seconds.
std::string thousands(double v);

/// "31.9 ± 3.6" (decimals < 0: whole numbers with thousands separators).
std::string plus_minus(double mean, double half_width, int decimals);

}  // namespace arbroker::simapp
