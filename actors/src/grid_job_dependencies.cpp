// Jobs that wait for others (issue 35 item 5): `arb submit --after ID[:ok|any]`, and several
// jobs in one request whose `after` names each other (`arb submit-dag FILE`). A child is
// written and answered at once, pending; when its parents have ended as it asks (completed,
// or any end with :any) it is placed by its strategy like a job placed again, preferring the
// clusters that hold its parents' declared outputs (they become its input there); when one
// ended otherwise it fails saying which, or is cancelled if it asked so. Its parents are the
// same user's jobs, found in memory or, ended, in the store.
#include <deque>

#include "grid_job_manager_impl.hpp"

namespace arbroker {
namespace {
constexpr std::string_view waits_for = "waits for ";
}  // namespace

grid_job_manager::impl::wait_verdict grid_job_manager::impl::parents_of(
    const msg::grid_submit_request& r, const std::string& owner,
    std::vector<msg::input_file>* outputs) {
  std::string waits;
  std::vector<msg::input_file> held;
  for (const auto& text : r.after) {
    auto d = parse_dependency(text);
    if (!d) return {wait_state::broken, d.err().message, errc::invalid_parameter};
    // In memory, or (ended) in the store: read where it is, not copied.
    const msg::grid_submit_request* request = nullptr;
    const grid_job* job = nullptr;
    std::optional<msg::grid_job_record> stored;
    if (const auto* p = find(d->id, owner)) {
      request = &p->request;
      job = &p->job;
    } else if (cfg_.journal) {
      auto row = cfg_.journal->find_grid_job(d->id);
      if (row && *row && (owner.empty() || (*row)->owner == owner))
        if (auto rec = msg::decode_record((*row)->body)) {
          stored = std::move(*rec);
          request = &stored->request;
          job = &stored->job;
        }
    }
    if (!job)
      return {wait_state::broken, "after: no grid job '" + d->id + "' of yours", errc::not_found};
    const auto state = job->state;
    if (!is_terminal(state)) {
      waits += (waits.empty() ? "" : ", ") + d->id + (d->any ? " to end" : " to complete");
      continue;
    }
    if (!d->any && state != grid_job_state::completed)
      return {wait_state::broken,
              "after: " + d->id + " ended " + std::string(to_string(state)) +
                  ", and this job runs only once it completed (" + d->id +
                  ":any runs it whatever the end)",
              errc::infeasible};
    if (state == grid_job_state::completed && request->output_bytes > 0 && job->winner)
      held.push_back({std::string(msg::cluster_location_prefix) +
                          job->copies[*job->winner].cluster + "/" + d->id,
                      request->output_bytes});
  }
  if (!waits.empty()) return {wait_state::waiting, std::string(waits_for) + waits};
  if (outputs) *outputs = std::move(held);
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

namespace {

// A request's jobs by name, and the siblings each waits for (indices), in an order where
// every job comes after those it waits for; or why the request cannot be taken.
struct job_graph {
  std::vector<std::vector<std::size_t>> parents;  // by job: the siblings it waits for
  std::vector<std::size_t> order;                 // parents first
};

result<job_graph> graph_of(const std::vector<msg::grid_submit_request>& jobs) {
  auto at = [&](std::size_t i) {
    return "jobs[" + std::to_string(i) + "] (" + jobs[i].name + "): ";
  };
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].name.empty())
      return error{errc::invalid_parameter,
                   "jobs[" + std::to_string(i) + "].name: every job of the request needs a name"};
    auto [it, fresh] = by_name.emplace(jobs[i].name, i);
    if (!fresh)
      return error{errc::invalid_parameter,
                   at(i) + "name: jobs[" + std::to_string(it->second) + "] has this name too"};
  }
  job_graph g;
  g.parents.resize(jobs.size());
  std::vector<std::size_t> waiting_for(jobs.size(), 0);
  std::vector<std::vector<std::size_t>> children(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (const auto& text : jobs[i].after) {
      auto d = parse_dependency(text);
      if (!d) return error{errc::invalid_parameter, at(i) + d.err().message};
      auto it = by_name.find(d->id);
      if (it == by_name.end()) continue;  // a job by id, outside the request
      if (it->second == i)
        return error{errc::invalid_parameter, at(i) + "after: a job cannot wait for itself"};
      g.parents[i].push_back(it->second);
      children[it->second].push_back(i);
      ++waiting_for[i];
    }
  std::deque<std::size_t> ready;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (waiting_for[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    const auto i = ready.front();
    ready.pop_front();
    g.order.push_back(i);
    for (auto c : children[i])
      if (--waiting_for[c] == 0) ready.push_back(c);
  }
  if (g.order.size() < jobs.size()) {
    std::string cycle;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (waiting_for[i] > 0) cycle += (cycle.empty() ? "" : ", ") + jobs[i].name;
    return error{errc::invalid_parameter, "jobs: these wait for each other in a cycle: " + cycle};
  }
  return g;
}

}  // namespace

void grid_job_manager::impl::submit_many(msg::grid_submit_many_request r,
                                         grid_job_manager::many_reply_fn rp) {
  auto refuse = [&](const error& e) {
    ++cfg_.counters->refused;
    rp(msg::error_reply<msg::grid_submit_many_reply>(e));
  };
  if (r.jobs.empty()) return refuse({errc::invalid_parameter, "jobs: the request has none"});
  auto graph = graph_of(r.jobs);
  if (!graph) return refuse(graph.err());
  const auto first = next_serial_;
  auto id_of = [&](std::size_t i) { return cfg_.node + "/g" + std::to_string(first + i); };
  // Every job checked (and its names of siblings turned into their ids) before any is written.
  std::vector<std::string> names;  // (each request moves into its job below)
  for (const auto& j : r.jobs)
    names.push_back(j.name);
  std::vector<tracked> made(r.jobs.size());
  std::vector<bool> waits(r.jobs.size(), false);
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    auto& q = r.jobs[i];
    const auto at = "jobs[" + std::to_string(i) + "] (" + q.name + "): ";
    q.user = r.user;
    std::string why;  // what it waits for
    std::vector<std::string> outside;
    for (auto& text : q.after) {
      auto d = parse_dependency(text);  // well-formed: graph_of read it
      const auto& siblings = graph->parents[i];
      auto sib = std::find_if(siblings.begin(), siblings.end(),
                              [&](std::size_t k) { return names[k] == d->id; });
      if (sib == siblings.end()) {
        outside.push_back(text);
        continue;
      }
      text = id_of(*sib) + (d->any ? ":any" : "");
      why += (why.empty() ? "" : ", ") + id_of(*sib) + (d->any ? " to end" : " to complete");
    }
    wait_verdict v;
    if (!outside.empty()) {
      auto alone = q;
      alone.after = outside;
      std::vector<msg::input_file> outputs;
      v = parents_of(alone, r.user, &outputs);
      if (v.state == wait_state::broken) return refuse({v.code, at + v.why});
      if (v.state == wait_state::waiting)
        why += (why.empty() ? "" : ", ") + v.why.substr(waits_for.size());
      if (v.state == wait_state::met && why.empty())
        q.inputs.insert(q.inputs.end(), outputs.begin(), outputs.end());
    }
    auto admitted = admit(q);
    if (!admitted) return refuse({admitted.err().code, at + admitted.err().message});
    auto& t = made[i];
    t.job.id = id_of(i);
    t.job.owner = r.user;
    t.job.spec = spec_of(q, q.walltime);
    t.job.submitted = now();
    const auto of = " (one of " + std::to_string(r.jobs.size()) + " submitted together)";
    waits[i] = !why.empty();
    if (waits[i]) {
      t.job.history.push_back({now(), -1, std::string(waits_for) + why + of});
    } else {
      t.job.history.push_back({now(), -1, "placed" + of});
      t.job.to_place = true;
      t.inputs = std::move(admitted->inputs);
    }
    t.request = std::move(q);
  }
  std::vector<grid_job_row> rows;
  for (auto& t : made)
    rows.push_back(row_of(t));
  if (cfg_.journal)
    if (auto saved = cfg_.journal->save_grid_jobs(rows); !saved) return refuse(saved.err());
  next_serial_ += r.jobs.size();
  cfg_.counters->submitted += static_cast<std::int64_t>(r.jobs.size());
  msg::grid_submit_many_reply out;
  for (std::size_t i = 0; i < made.size(); ++i) {
    out.jobs.push_back(msg::info_of(made[i].job));
    auto& t = jobs_.emplace(first + i, std::move(made[i])).first->second;
    recount(t);
    if (waits[i]) waiting_.insert(first + i);
  }
  rp(std::move(out));
  for (auto i : graph->order)  // parents first (a batch ranks its jobs in order)
    if (!waits[i]) place_again(first + i);
}

void grid_job_manager::impl::wake_children(const std::optional<std::string>& parent) {
  const auto names_parent = [&](const msg::grid_submit_request& r) {
    return std::any_of(r.after.begin(), r.after.end(), [&](const std::string& text) {
      auto d = parse_dependency(text);
      return d && d->id == *parent;
    });
  };
  for (auto serial : std::vector<std::uint64_t>(waiting_.begin(), waiting_.end())) {
    if (!waiting_.contains(serial)) continue;  // settled by a nested call
    auto it = jobs_.find(serial);
    if (it == jobs_.end() || is_terminal(it->second.job.state)) {
      waiting_.erase(serial);  // cancelled while it waited
      continue;
    }
    auto& t = it->second;
    if (parent && !names_parent(t.request)) continue;
    std::vector<msg::input_file> outputs;
    auto v = parents_of(t.request, t.job.owner, &outputs);
    if (v.state == wait_state::waiting) continue;
    waiting_.erase(serial);
    std::vector<grid_action> acts;
    if (v.state == wait_state::broken) {
      if (t.request.cancel_if_parent_fails)
        acts = t.job.cancel(now(), "cancelled: " + v.why);
      else
        t.job.placement_failed("not run: " + v.why, now());
    } else {
      std::string what = "the jobs it waited for ended as asked: placed";
      if (!outputs.empty()) {
        // Their outputs are its input, held where they ran: counted on every other cluster
        // (by the ranking only with locality; a copy held for its stage-in waits for them).
        what += t.request.locality ? ", preferring" : ", not preferring";
        what += " where their outputs are (";
        for (const auto& o : outputs)
          what += (&o == &outputs.front() ? "" : ", ") + std::to_string(o.bytes) + " B at " +
                  std::string(*msg::held_at_cluster(o.location));
        what += ")";
        t.request.inputs.insert(t.request.inputs.end(), outputs.begin(), outputs.end());
        t.inputs.reset();
        t.terms.clear();
      }
      t.job.history.push_back({now(), -1, std::move(what)});
      t.job.to_place = true;  // written with it, then placed as a job placed again is
    }
    after_change(serial, std::move(acts));
  }
}

}  // namespace arbroker
