#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace arbroker {

/// The join of a fan-out: `n` answers awaited, in any order, a lost one counted when its loss
/// is noticed; the n-th runs `done`, once. Copies share one count, so each reply handler keeps
/// one by value and the count lives as long as an answer may still come. With n = 0 `done`
/// runs at once: there is nothing to wait for. Not thread-safe: one actor's handlers only.
class fan_in {
 public:
  fan_in(std::size_t n, std::function<void()> done);
  /// One answer (or its loss) came; after the n-th, done has run. More than n do nothing.
  void arrived() const;
  /// Answers still awaited.
  std::size_t left() const noexcept { return s_->left; }

 private:
  struct shared {
    std::size_t left;
    std::function<void()> done;
  };
  std::shared_ptr<shared> s_;
};

}  // namespace arbroker
