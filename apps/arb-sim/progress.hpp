#pragma once
// A progress bar with ETA on stderr, redrawn in place, at most a few times per second.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace arbroker::simapp {

class progress_bar {
 public:
  progress_bar(std::string label, std::size_t total, bool enabled)
      : label_(std::move(label)),
        total_(total),
        enabled_(enabled),
        begin_(std::chrono::steady_clock::now()) {}
  ~progress_bar() { finish(); }

  /// Sets the amount done (0..total); thread-safe.
  void update(std::size_t done) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    draw(done, now);
  }

  void finish() {
    if (!enabled_ || finished_) return;
    finished_ = true;
    draw(total_, std::chrono::steady_clock::now());
    std::fputc('\n', stderr);
  }

 private:
  void draw(std::size_t done, std::chrono::steady_clock::time_point now) {
    const double elapsed = std::chrono::duration<double>(now - begin_).count();
    const double frac = total_ ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
    constexpr int width = 30;
    const int filled = static_cast<int>(frac * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    char eta[32] = "--";
    if (done > 0 && done < total_)
      std::snprintf(eta, sizeof eta, "%.0fs", elapsed * (1 - frac) / frac);
    else if (done >= total_)
      std::snprintf(eta, sizeof eta, "0s");
    std::fprintf(stderr, "\r%s [%s] %3.0f%% %zu/%zu  %.1fs elapsed, ETA %s   ", label_.c_str(),
                 bar.c_str(), 100 * frac, done, total_, elapsed, eta);
    std::fflush(stderr);
  }

  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point begin_;
  std::chrono::steady_clock::time_point last_{};
  std::mutex mutex_;
};

}  // namespace arbroker::simapp
