#pragma once

// arbd's log file: appended to, and reopened on SIGHUP so that logrotate (or an operator)
// can move it away and have arbd write a new one under the same name.

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string>

namespace arbroker {

class reopenable_file_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  /// Opens (creates or appends to) `path`; throws spdlog::spdlog_ex when it cannot.
  explicit reopenable_file_sink(const std::string& path);

  /// Closes the file and opens `path` again: a moved-away file is left to whoever moved
  /// it, and the next line goes to a new one. Throws spdlog::spdlog_ex when it cannot.
  void reopen();

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  spdlog::details::file_helper file_;
};

}  // namespace arbroker
