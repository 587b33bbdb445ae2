#include "log_file.hpp"

namespace arbroker {

reopenable_file_sink::reopenable_file_sink(const std::string& path) {
  file_.open(path, false);
}

void reopenable_file_sink::reopen() {
  std::lock_guard lock(mutex_);
  file_.reopen(false);
}

void reopenable_file_sink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t formatted;
  formatter_->format(msg, formatted);
  file_.write(formatted);
}

void reopenable_file_sink::flush_() {
  file_.flush();
}

}  // namespace arbroker
