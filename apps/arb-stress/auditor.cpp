#include "auditor.hpp"

#include <algorithm>

#include "stress_types.hpp"

namespace arbroker::stress {

caf::behavior auditor_actor(caf::stateful_actor<auditor_state>* self,
                            std::vector<cluster_service_actor> services, int interval_ms,
                            grid_jobs_actor grid, std::set<std::string> users) {
  self->state.services = std::move(services);
  self->state.interval_ms = interval_ms;
  self->state.grid = std::move(grid);
  self->state.users = std::move(users);
  auto note = [self](std::vector<std::string> v) {
    auto& st = self->state;
    st.violations += static_cast<long long>(v.size());
    for (auto& x : v)
      if (st.examples.size() < 20) st.examples.push_back(std::move(x));
  };
  auto next_round = [self] {
    auto& st = self->state;
    const auto took = std::chrono::steady_clock::now() - st.round_start;
    const auto pause = std::max<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(st.interval_ms), 3 * took);
    self->delayed_send(self, pause, audit_atom::value);
  };
  // Every status is in: the grid look (after the statuses, so that a copy the LRMS has is
  // known to the manager by the time it lists its jobs, unless that is a transient).
  auto statuses_done = [=] {
    auto& st = self->state;
    if (--st.pending > 0) return;
    if (!st.grid) return next_round();
    self->request(st.grid, caf::infinite, msg::grid_list_request{"", "", ""})
        .then(
            [=](const msg::grid_list_reply& l) {
              auto& s = self->state;
              ++s.grid_looks;
              note(s.watch.look(grid_suspects(l.jobs, s.statuses, s.users)));
              next_round();
            },
            [=](caf::error& e) {
              note({"the grid-job manager did not list: " + self->system().render(e)});
              next_round();
            });
  };
  auto ask_statuses = [=] {
    auto& st = self->state;
    st.statuses.clear();
    st.pending = static_cast<int>(st.services.size());
    for (const auto& s : st.services)
      self->request(s, caf::infinite, msg::cluster_status_request{})
          .then(
              [=](msg::cluster_status& cs) {
                note(capacity_violations(cs));
                note(hold_violations(cs, self->state.tick));
                note(ljp_violations(cs));
                self->state.statuses.push_back(std::move(cs));
                statuses_done();
              },
              [=](caf::error& e) {
                note({"a cluster did not answer: " + self->system().render(e)});
                statuses_done();
              });
  };
  return {
      [=](audit_atom) {
        auto& st = self->state;
        if (st.services.empty()) return;
        ++st.audits;
        st.round_start = std::chrono::steady_clock::now();
        if (!st.grid) return ask_statuses();
        // A settled job-state round first: what it finds wrong it corrects before the look.
        self->request(st.grid, caf::infinite, poll_atom::value)
            .then([=](std::int32_t) { ask_statuses(); },
                  [=](caf::error& e) {
                    note({"the grid-job manager did not poll: " + self->system().render(e)});
                    ask_statuses();
                  });
      },
      [=](stop_atom) {
        auto& st = self->state;
        self->quit();
        return caf::make_message(st.audits, st.grid_looks, st.violations, st.examples);
      },
  };
}

}  // namespace arbroker::stress
