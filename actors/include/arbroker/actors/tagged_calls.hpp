#pragma once

// Calls from one actor to others whose answers it matches to the calls itself, by a tag
// sent along and echoed back (internal). CAF 0.17 keeps an actor's awaited responses in a
// flat map searched linearly, with an erase that shifts the rest: an elastic worker with a
// few hundred requests in flight, each probing every cluster, spent a tenth of the engine's
// time there. Here a call costs a hash-map insert and erase.
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

namespace arbroker {

/// `Callee` identifies whom a call went to (an actor address in the engine).
template <class Reply, class Callee = caf::actor_addr>
class tagged_calls {
 public:
  using handler = std::function<void(Reply*)>;

  /// Registers a call to `callee`; returns the tag to send along.
  std::uint64_t add(const Callee& callee, handler on_answer) {
    const std::uint64_t tag = next_++;
    calls_.emplace(tag, call{callee, std::move(on_answer)});
    return tag;
  }

  /// The answer to call `tag`, if it is still open.
  void complete(std::uint64_t tag, Reply& reply) {
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
  std::unordered_map<std::uint64_t, call> calls_;
};

}  // namespace arbroker
