// Jobs that wait for others (`arb submit --after ID[:ok|any]`, issue 35 item 5): a child is
// written and answered at once, pending; when its parents have ended as it asks (completed, or
// any end with :any) it is placed by its strategy like a job placed again; when one ended
// otherwise it fails saying which. Its parents are the same user's jobs, found in memory or,
// ended, in the store.
#include "grid_job_manager_impl.hpp"

namespace arbroker {

grid_job_manager::impl::wait_verdict grid_job_manager::impl::parents_of(
    const msg::grid_submit_request& r, const std::string& owner) {
  std::string waits;
  for (const auto& text : r.after) {
    auto d = parse_dependency(text);
    if (!d) return {wait_state::broken, d.err().message, errc::invalid_parameter};
    std::optional<grid_job_state> state;
    if (const auto* p = find(d->id, owner)) {
      state = p->job.state;
    } else if (cfg_.journal) {
      auto row = cfg_.journal->find_grid_job(d->id);
      if (row && *row && (owner.empty() || (*row)->owner == owner))
        if (auto rec = msg::decode_record((*row)->body)) state = rec->job.state;
    }
    if (!state)
      return {wait_state::broken, "after: no grid job '" + d->id + "' of yours", errc::not_found};
    if (!is_terminal(*state)) {
      waits += (waits.empty() ? "" : ", ") + d->id + (d->any ? " to end" : " to complete");
      continue;
    }
    if (!d->any && *state != grid_job_state::completed)
      return {wait_state::broken,
              "after: " + d->id + " ended " + std::string(to_string(*state)) +
                  ", and this job runs only once it completed (" + d->id +
                  ":any runs it whatever the end)",
              errc::infeasible};
  }
  if (!waits.empty()) return {wait_state::waiting, "waits for " + waits};
  return {};
}

void grid_job_manager::impl::wait_for_parents(msg::grid_submit_request r, reply_fn rp,
                                              const std::string& why) {
  tracked t;
  t.job.id = cfg_.node + "/g" + std::to_string(next_serial_);
  t.job.owner = r.user;
  t.job.spec = spec_of(r, r.walltime);
  t.job.submitted = now();
  t.job.history.push_back({now(), -1, why});
  t.request = std::move(r);
  if (auto saved = persist_job(t); !saved) {
    ++cfg_.counters->refused;
    return rp(msg::error_reply<msg::grid_job_reply>(saved.err()));
  }
  const auto serial = next_serial_++;
  ++cfg_.counters->submitted;
  auto& w = jobs_.emplace(serial, std::move(t)).first->second;
  recount(w);
  waiting_.insert(serial);
  rp({msg::info_of(w.job), {}});
}

void grid_job_manager::impl::wake_children() {
  for (auto serial : std::vector<std::uint64_t>(waiting_.begin(), waiting_.end())) {
    if (!waiting_.contains(serial)) continue;  // settled by a nested call
    auto it = jobs_.find(serial);
    if (it == jobs_.end() || is_terminal(it->second.job.state)) {
      waiting_.erase(serial);  // cancelled while it waited
      continue;
    }
    auto& t = it->second;
    auto v = parents_of(t.request, t.job.owner);
    if (v.state == wait_state::waiting) continue;
    waiting_.erase(serial);
    if (v.state == wait_state::broken) {
      t.job.placement_failed("not run: " + v.why, now());
    } else {
      t.job.history.push_back({now(), -1, "the jobs it waited for ended as asked: placed"});
      t.job.to_place = true;  // written with it, then placed as a job placed again is
    }
    after_change(serial, {});
  }
}

}  // namespace arbroker
