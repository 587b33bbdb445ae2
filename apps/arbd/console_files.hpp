#pragma once

// The web console's files (web/console/), compiled into arbd by cmake/EmbedFiles.cmake so
// that the daemon serves them wherever it is installed (docs/console.md).

#include <span>
#include <string_view>

namespace arbroker {

struct embedded_file {
  std::string_view path;  ///< "/console/app.js"
  std::string_view content_type;
  std::string_view body;
};

/// Every file of the console, by its path on the HTTP port.
std::span<const embedded_file> console_files();

}  // namespace arbroker
