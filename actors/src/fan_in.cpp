#include "arbroker/actors/fan_in.hpp"

#include <utility>

namespace arbroker {

fan_in::fan_in(std::size_t n, std::function<void()> done)
    : s_(std::make_shared<shared>(shared{n, std::move(done)})) {
  if (n == 0) std::exchange(s_->done, {})();
}

void fan_in::arrived() const {
  if (s_->left == 0 || --s_->left > 0) return;
  // Released before it runs: what `done` captured (often this very count) goes with it.
  std::exchange(s_->done, {})();
}

}  // namespace arbroker
