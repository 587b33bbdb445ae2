#pragma once

// What a mistyped command or option may have meant, for arb's usage errors: the first
// unknown subcommand (nested ones included) or long option in argv and the closest known
// name, by edit distance.

#include <CLI/CLI.hpp>

#include <string>

namespace arbroker::cli {

/// "unknown command 'reserv'; did you mean 'reserve'?", "unknown option '--nq'; did you
/// mean '--np'?", or "" when argv names nothing unknown. Values of global options that take
/// one are skipped.
std::string typo_hint(CLI::App& app, int argc, const char* const* argv);

}  // namespace arbroker::cli
