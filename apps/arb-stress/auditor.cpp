#include "auditor.hpp"

#include "arbroker/messages/cluster_protocol.hpp"
#include "audit.hpp"
#include "stress_types.hpp"

namespace arbroker::stress {

caf::behavior auditor_actor(caf::stateful_actor<auditor_state>* self,
                            std::vector<caf::actor> services, int interval_ms) {
  self->state.services = std::move(services);
  self->state.interval_ms = interval_ms;
  auto note = [self](std::vector<std::string> v) {
    auto& st = self->state;
    st.violations += static_cast<long long>(v.size());
    for (auto& x : v)
      if (st.examples.size() < 20) st.examples.push_back(std::move(x));
  };
  return {
      [=](audit_atom) {
        auto& st = self->state;
        ++st.audits;
        for (const auto& s : st.services)
          self->request(s, caf::infinite, msg::cluster_status_request{})
              .then(
                  [=](const msg::cluster_status& cs) {
                    note(capacity_violations(cs));
                    note(hold_violations(cs, self->state.tick));
                    note(ljp_violations(cs));
                  },
                  [=](caf::error& e) {
                    note({"a cluster did not answer: " + self->system().render(e)});
                  });
        self->delayed_send(self, std::chrono::milliseconds(st.interval_ms), audit_atom::value);
      },
      [=](stop_atom) {
        auto& st = self->state;
        self->quit();
        return caf::make_message(st.audits, st.violations, st.examples);
      },
  };
}

}  // namespace arbroker::stress
