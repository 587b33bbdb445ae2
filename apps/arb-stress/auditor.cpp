#include "auditor.hpp"

#include <algorithm>

#include "arbroker/messages/cluster_protocol.hpp"
#include "audit.hpp"
#include "stress_types.hpp"

namespace arbroker::stress {

caf::behavior auditor_actor(caf::stateful_actor<auditor_state>* self,
                            std::vector<cluster_service_actor> services, int interval_ms) {
  self->state.services = std::move(services);
  self->state.interval_ms = interval_ms;
  auto note = [self](std::vector<std::string> v) {
    auto& st = self->state;
    st.violations += static_cast<long long>(v.size());
    for (auto& x : v)
      if (st.examples.size() < 20) st.examples.push_back(std::move(x));
  };
  auto round_done = [self] {
    auto& st = self->state;
    if (--st.pending > 0) return;
    const auto took = std::chrono::steady_clock::now() - st.round_start;
    const auto pause = std::max<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(st.interval_ms), 3 * took);
    self->delayed_send(self, pause, audit_atom::value);
  };
  return {
      [=](audit_atom) {
        auto& st = self->state;
        if (st.services.empty()) return;
        ++st.audits;
        st.pending = static_cast<int>(st.services.size());
        st.round_start = std::chrono::steady_clock::now();
        for (const auto& s : st.services)
          self->request(s, caf::infinite, msg::cluster_status_request{})
              .then(
                  [=](const msg::cluster_status& cs) {
                    note(capacity_violations(cs));
                    note(hold_violations(cs, self->state.tick));
                    note(ljp_violations(cs));
                    round_done();
                  },
                  [=](caf::error& e) {
                    note({"a cluster did not answer: " + self->system().render(e)});
                    round_done();
                  });
      },
      [=](stop_atom) {
        auto& st = self->state;
        self->quit();
        return caf::make_message(st.audits, st.violations, st.examples);
      },
  };
}

}  // namespace arbroker::stress
