#pragma once

// Calls from one actor to others whose answers it matches to the calls itself, by a tag
// sent along and echoed back (msg::call_tag), instead of CAF requests (docs/architecture.md,
// "CAF 0.17 constraints", 1). A call costs a hash-map insert and erase.
//
// A call is answered exactly once: with the reply, or with nullptr when its callee went
// away first (the owner monitors callees and calls lost()). A reply whose tag is unknown
// (answered already) is dropped.

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caf/actor_addr.hpp>

#include "arbroker/messages/tags.hpp"

namespace arbroker {

/// `Callee` identifies whom a call went to (an actor address in the engine).
template <class Reply, class Callee = caf::actor_addr>
class tagged_calls {
 public:
  using handler = std::function<void(Reply*)>;

  /// Registers a call to `callee`; returns the tag to send along.
  msg::call_tag add(const Callee& callee, handler on_answer) {
    const msg::call_tag tag{next_++};
    calls_.emplace(tag, call{callee, std::move(on_answer)});
    return tag;
  }

  /// The answer to call `tag`, if it is still open.
  void complete(msg::call_tag tag, Reply& reply) {
    auto it = calls_.find(tag);
    if (it == calls_.end()) return;
    handler h = std::move(it->second.on_answer);
    calls_.erase(it);
    h(&reply);
  }

  /// `callee` is gone: every call still open to it is answered with nullptr.
  void lost(const Callee& callee) {
    std::vector<handler> orphans;
    for (auto it = calls_.begin(); it != calls_.end();) {
      if (it->second.callee == callee) {
        orphans.push_back(std::move(it->second.on_answer));
        it = calls_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& h : orphans)
      h(nullptr);
  }

  std::size_t open() const { return calls_.size(); }

 private:
  struct call {
    Callee callee;
    handler on_answer;
  };
  std::uint64_t next_ = 1;
  std::unordered_map<msg::call_tag, call> calls_;
};

}  // namespace arbroker
