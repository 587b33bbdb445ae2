#pragma once

// The build's version and commit, for every executable's --version and start-up log line.
// Only version.cpp sees the generated header, so a new commit recompiles one small file.

namespace arbroker {

/// "0.1.0 (<git describe>)", e.g. "0.1.0 (ebd098d7625c-dirty)".
const char* build_version();

}  // namespace arbroker
