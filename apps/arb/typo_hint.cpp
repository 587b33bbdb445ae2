#include "typo_hint.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

namespace arbroker::cli {
namespace {

// Levenshtein distance, for suggestions (names are short).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The known name closest to `word`, if close enough to be a typo of it.
std::string closest(std::string_view word, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& k : known)
    if (auto d = edit_distance(word, k); d < best_d) {
      best_d = d;
      best = k;
    }
  return best;
}

}  // namespace

// After a parse error: the first unknown subcommand or option in argv, and what it may have
// meant ("" when there is nothing to suggest).
std::string typo_hint(CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> commands, options;
  std::vector<std::string> global_values;  // global options that take a value
  for (const auto* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) {
      options.push_back(n);
      if (o->get_items_expected_max() > 0) global_values.push_back("--" + n);
    }
    for (const auto& n : o->get_snames())
      if (o->get_items_expected_max() > 0) global_values.push_back("-" + n);
  }
  std::map<std::string, std::vector<std::string>> nested_of;  // "job" -> show, cancel
  for (auto* s : app.get_subcommands([](CLI::App*) { return true; })) {
    commands.push_back(s->get_name());
    for (const auto* o : s->get_options())
      for (const auto& n : o->get_lnames())
        options.push_back(n);
    for (auto* nested : s->get_subcommands([](CLI::App*) { return true; })) {
      nested_of[s->get_name()].push_back(nested->get_name());
      for (const auto* o : nested->get_options())
        for (const auto& n : o->get_lnames())
          options.push_back(n);
    }
  }
  bool command_seen = false;
  const std::vector<std::string>* expect_nested = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--")) {
      const auto name = arg.substr(
          2, arg.find('=') == std::string_view::npos ? std::string_view::npos : arg.find('=') - 2);
      if (name.empty() || std::find(options.begin(), options.end(), name) != options.end()) {
        if (!command_seen && std::find(global_values.begin(), global_values.end(),
                                       std::string(arg)) != global_values.end())
          ++i;  // its value
        continue;
      }
      auto near = closest(name, options);
      return "unknown option '--" + std::string(name) + "'" +
             (near.empty() ? "" : "; did you mean '--" + near + "'?");
    }
    if (arg.starts_with("-")) {
      if (!command_seen &&
          std::find(global_values.begin(), global_values.end(), arg) != global_values.end())
        ++i;  // its value
      continue;
    }
    if (expect_nested) {  // the word after "job": show, cancel
      if (std::find(expect_nested->begin(), expect_nested->end(), arg) != expect_nested->end()) {
        expect_nested = nullptr;
        continue;
      }
      auto near = closest(arg, *expect_nested);
      return "unknown command '" + std::string(arg) + "'" +
             (near.empty() ? "" : "; did you mean '" + near + "'?");
    }
    if (command_seen) continue;
    if (std::find(commands.begin(), commands.end(), arg) != commands.end()) {
      command_seen = true;
      if (auto it = nested_of.find(std::string(arg)); it != nested_of.end())
        expect_nested = &it->second;
      continue;
    }
    auto near = closest(arg, commands);
    return "unknown command '" + std::string(arg) + "'" +
           (near.empty() ? "" : "; did you mean '" + near + "'?");
  }
  return {};
}

}  // namespace arbroker::cli
