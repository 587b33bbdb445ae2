#pragma once

// The broker's state (internal; tests look at its pools).

#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/deadline_timer.hpp"
#include "arbroker/actors/gis.hpp"

namespace arbroker {

class broker_state {
 public:
  using self_pointer = broker_impl_actor::stateful_pointer<broker_state>;
  static inline const char* name = "arb.broker";

  explicit broker_state(self_pointer self) : self_(self) {}

  broker_impl_actor::behavior_type make_behavior(broker_config cfg);

  // -- the coordinators, each replaced when it dies ------------------------------------------
  std::vector<elastic_coordinator_actor> elastic_workers;
  elastic_coordinator_actor matchmaker;
  std::vector<coreservation_coordinator_actor> coreservation_workers;

 private:
  /// A request a coordinator still owes its client an answer for.
  struct in_flight {
    std::variant<elastic_coordinator_actor, coreservation_coordinator_actor> coordinator;
    timestamp deadline;
    caf::response_promise client;
    /// Answers the client with errc::internal when the coordinator died first
    /// (docs/architecture.md, "CAF 0.17 constraints", 6), in the reply type it expects.
    void (*fail)(caf::response_promise& client, std::string why);
  };

  template <class Reply, class Coordinator, class Request>
  caf::typed_response_promise<Reply> hand_off(const Coordinator& to, Request req);
  template <class Reply>
  void on_answer(msg::request_no no, Reply reply);
  void on_deadline();
  void arm(std::optional<timestamp> t);
  void on_down(const caf::down_msg& dm);
  void spawn_coordinators();

  template <class Reply, class Request>
  caf::result<Reply> route(Request req);
  caf::typed_response_promise<msg::list_reply> list_all(msg::list_request req);
  /// The co-allocation step (coallocation.cpp).
  caf::typed_response_promise<msg::coallocate_reply> coallocate(msg::coallocate_request req);

  self_pointer self_;
  broker_config cfg_;
  std::uint64_t next_request_ = 1;
  std::size_t next_elastic_ = 0;
  std::size_t next_coreservation_ = 0;
  std::unordered_map<msg::request_no, in_flight> in_flight_;
  deadline_timer<msg::request_no> deadlines_;
  directory_view directory_;  ///< the GIS's clusters, kept current by its pushes
};

}  // namespace arbroker
