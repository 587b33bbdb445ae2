// The one way actors call cluster services (service_calls.hpp): every call is answered once,
// by its reply or, when its service goes away first, at once with nullptr, even when the
// service had taken the call and was still working on it.

#include "service_calls.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using prepare_calls = service_calls<msg::prepare_reply, msg::ack_reply>;

// A stand-in service: it answers commits, and takes prepares without answering them (a
// service waiting for its disk) until it is killed.
caf::behavior stuck_on_prepares(caf::event_based_actor*) {
  return {
      [](msg::call_tag, msg::prepare_request&) {},
      [](msg::call_tag t, msg::commit_txn_request& r) {
        msg::ack_reply a;
        if (r.txn == "refused") a.error = msg::wire(errc::not_found, "no such transaction");
        return caf::make_message(t, std::move(a));
      },
  };
}

msg::prepare_request prepare(std::string txn) {
  msg::prepare_request p;
  p.txn = std::move(txn);
  return p;
}

struct caller_state {
  prepare_calls calls;
};

// Calls `service` with a prepare and two commits; writes what each call heard into `seen`.
caf::behavior caller(caf::stateful_actor<caller_state>* self, caf::actor service,
                     std::vector<std::string>* seen) {
  self->set_down_handler([self](caf::down_msg& dm) { self->state.calls.lost(dm.source); });
  const auto target = caf::actor_cast<cluster_service_actor>(service);
  self->state.calls.call<msg::prepare_reply>(
      self, target, prepare("t1"), [seen](msg::prepare_reply* r) {
        seen->push_back(r ? "prepare: answered" : "prepare: gone");
      });
  for (const char* txn : {"t1", "refused"})
    self->state.calls.call<msg::ack_reply>(self, target, msg::commit_txn_request{txn},
                                           [seen, txn](msg::ack_reply* r) {
                                             seen->push_back(std::string("commit ") + txn + ": " +
                                                             (!r              ? "gone"
                                                              : r->error.ok() ? "ok"
                                                                              : r->error.message));
                                           });
  return {
      [self](msg::call_tag t, msg::prepare_reply& r) { self->state.calls.complete(t, r); },
      [self](msg::call_tag t, msg::ack_reply& r) { self->state.calls.complete(t, r); },
  };
}

struct service_calls_test : testing::engine_fixture {};

TEST_F(service_calls_test, ACallTheServiceTookIsAnsweredAtOnceWhenTheServiceDies) {
  std::vector<std::string> seen;
  auto service = sys.spawn(stuck_on_prepares);
  auto me = sys.spawn(caller, service, &seen);
  sched.run();
  // The commits were answered, each by its own reply; the prepare waits.
  EXPECT_EQ(seen,
            (std::vector<std::string>{"commit t1: ok", "commit refused: no such transaction"}));
  self->send_exit(service, caf::exit_reason::kill);
  sched.run();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.back(), "prepare: gone");
  // Nothing else is answered twice or late.
  sched.run();
  EXPECT_EQ(seen.size(), 3u);
  self->send_exit(me, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(service_calls_test, CallsToAServiceAlreadyGoneAreAnsweredAtOnce) {
  std::vector<std::string> seen;
  auto service = sys.spawn(stuck_on_prepares);
  self->send_exit(service, caf::exit_reason::kill);
  sched.run();
  auto me = sys.spawn(caller, service, &seen);
  sched.run();
  std::sort(seen.begin(), seen.end());  // the calls a death answers come in no set order
  EXPECT_EQ(seen,
            (std::vector<std::string>{"commit refused: gone", "commit t1: gone", "prepare: gone"}));
  self->send_exit(me, caf::exit_reason::user_shutdown);
  sched.run();
}

}  // namespace
}  // namespace arbroker
