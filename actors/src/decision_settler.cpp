#include "arbroker/actors/decision_settler.hpp"

#include "arbroker/actors/fan_in.hpp"
#include "service_calls.hpp"

namespace arbroker {
namespace {

// The names a part of `txn` may have at a cluster (reservation_attempt::part_txn).
std::vector<std::string> part_names(const std::string& txn, int max_parts) {
  std::vector<std::string> out{txn};
  for (int i = 0; i < max_parts; ++i)
    out.push_back(txn + "#" + std::to_string(i));
  return out;
}

// One decision at a time: its commits, then (if a part was lost) its releases.
struct settler_state {
  decision_settler_config cfg;
  std::size_t next = 0;  // the decision being settled
  bool lost = false;     // a part refused its commit
  service_calls<msg::ack_reply> calls;
};

void settle_next(caf::stateful_actor<settler_state>* self);

template <class Request>
void ask_everyone(caf::stateful_actor<settler_state>* self, std::function<void()> when_done) {
  auto& st = self->state;
  const auto names = part_names(st.cfg.decisions[st.next], st.cfg.max_parts);
  const fan_in join(st.cfg.clusters.size() * names.size(), std::move(when_done));
  for (const auto& [cluster, service] : st.cfg.clusters)
    for (const auto& name : names)
      st.calls.template call<msg::ack_reply>(
          self, service, Request{name}, [self, join](msg::ack_reply* r) {
            // No reply: the cluster's service is gone, nothing to undo. not_found: no part of
            // it there. Anything else: a part that cannot commit.
            if constexpr (std::is_same_v<Request, msg::commit_txn_request>)
              if (r && !r->error.ok() && r->error.err() != errc::not_found) self->state.lost = true;
            join.arrived();
          });
}

void finish_current(caf::stateful_actor<settler_state>* self, bool whole) {
  auto& st = self->state;
  const auto& txn = st.cfg.decisions[st.next];
  if (st.cfg.journal) (void)st.cfg.journal->forget_commit(txn);
  if (st.cfg.on_settled) st.cfg.on_settled(txn, whole);
  ++st.next;
  settle_next(self);
}

void settle_next(caf::stateful_actor<settler_state>* self) {
  auto& st = self->state;
  if (st.next >= st.cfg.decisions.size() || st.cfg.clusters.empty()) {
    while (st.next < st.cfg.decisions.size()) {  // no cluster at all: nothing to complete
      if (st.cfg.journal) (void)st.cfg.journal->forget_commit(st.cfg.decisions[st.next]);
      ++st.next;
    }
    self->quit();
    return;
  }
  st.lost = false;
  ask_everyone<msg::commit_txn_request>(self, [self] {
    if (!self->state.lost) return finish_current(self, true);
    ask_everyone<msg::release_txn_request>(self, [self] { finish_current(self, false); });
  });
}

caf::behavior settler(caf::stateful_actor<settler_state>* self, decision_settler_config cfg) {
  self->state.cfg = std::move(cfg);
  self->set_down_handler([self](caf::down_msg& dm) { self->state.calls.lost(dm.source); });
  settle_next(self);
  // It asks, it is not asked: answers only.
  return {[self](msg::call_tag t, msg::ack_reply& r) { self->state.calls.complete(t, r); }};
}

}  // namespace

caf::actor spawn_decision_settler(caf::actor_system& sys, decision_settler_config cfg) {
  return sys.spawn(settler, std::move(cfg));
}

}  // namespace arbroker
