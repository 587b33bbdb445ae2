#include "workload.hpp"
#include "trace_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "arbroker/sim/elastic.hpp"
#include "arbroker/sim/lublin.hpp"
#include "arbroker/sim/sound_jobs.hpp"

namespace arbroker::simapp {
namespace {

// "u<user id>" ("u" when unknown), built in place: one short string per job of a trace.
std::string owner_of(const sim::swf_job& j) {
  std::array<char, 24> text{'u'};
  char* end = text.data() + 1;
  if (j.user_id >= 0) end = std::to_chars(end, text.data() + text.size(), j.user_id).ptr;
  return std::string(text.data(), end);
}

// The walltime and run time by the experiment's rule (sim/walltime_rule.hpp).
sim::local_job local_of(const sim::swf_job& j, int cpus, sim::walltime_rule rule) {
  sim::local_job l;
  l.id = j.job_id;
  l.submit = j.submit_time;
  l.np = static_cast<int>(std::min<std::int64_t>(sim::procs(j), cpus));
  const auto times = sim::times_of(j, rule);
  l.runtime = times.runtime;
  l.walltime = times.walltime;
  l.owner = owner_of(j);
  return l;
}

}  // namespace

namespace {

result<std::vector<sim::swf_job>> read_jobs(const workload_config& w, int cpus,
                                            const std::filesystem::path& traces_dir, bool strict) {
  if (w.source == "lublin") {
    auto gen = sim::lublin_generator::create(sim::lublin_params::batch(),
                                             w.model_procs > 0 ? w.model_procs : cpus, w.seed);
    if (!gen) return gen.err();
    return gen->generate(w.jobs);
  }
  auto trace = read_trace(traces_dir / w.trace, strict);
  if (!trace) return trace.err();
  auto limit = w.jobs > 0 ? w.jobs : std::numeric_limits<std::size_t>::max();
  auto jobs = sim::sound_batch_jobs(std::move(trace->jobs), w.rule, limit);
  if (w.jobs > 0 && jobs.size() < w.jobs)
    return fail(errc::invalid_parameter, w.trace + " has only " + std::to_string(jobs.size()) +
                                             " sound batch jobs, not " + std::to_string(w.jobs));
  return jobs;
}

}  // namespace

result<std::vector<sim::swf_job>> load_jobs(const workload_config& w, int cpus,
                                            const std::filesystem::path& traces_dir, bool strict) {
  auto jobs = read_jobs(w, cpus, traces_dir, strict);
  if (!jobs || jobs->empty() || w.arrival_scale == 1) return jobs;
  const timestamp first = jobs->front().submit_time;
  for (auto& j : *jobs)
    j.submit_time = first + static_cast<timestamp>(static_cast<double>(j.submit_time - first) /
                                                   w.arrival_scale);
  return jobs;
}

double offered_load(const std::vector<sim::swf_job>& jobs, int cpus) {
  if (jobs.size() < 2 || cpus <= 0) return 0;
  const timestamp span = jobs.back().submit_time - jobs.front().submit_time;
  if (span <= 0) return 0;
  double work = 0;
  for (const auto& j : jobs)
    work += static_cast<double>(std::max<std::int64_t>(sim::procs(j), 1)) *
            static_cast<double>(std::max<duration>(j.run_time, 0));
  return work / (static_cast<double>(cpus) * static_cast<double>(span));
}

result<sim::scenario> build_scenario(const std::vector<sim::swf_job>& jobs,
                                     const std::vector<std::size_t>& picks,
                                     const sim::cluster_spec& cluster, sim::walltime_rule rule,
                                     const request_config& rc,
                                     const std::optional<grid_point>& point) {
  sim::scenario s;
  s.clusters.push_back(cluster);
  std::vector<bool> picked(jobs.size(), false);
  for (auto i : picks)
    if (i < jobs.size()) picked[i] = true;
  s.jobs.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    if (!picked[i]) {
      s.jobs.push_back(local_of(j, cluster.cpus, rule));
      continue;
    }
    if (!point) continue;
    sim::elastic_transform t;
    t.book_ahead = static_cast<duration>(point->book_ahead_h * 3600);
    t.time_range = static_cast<duration>(point->time_range_h * 3600);
    t.np_min_factor = point->np_min_factor;
    t.np_max_factor = point->np_max_factor;
    auto e = sim::make_elastic(j, t, cluster.cpus);
    if (!e) return fail(e.err().code, "job " + std::to_string(j.job_id) + ": " + e.err().message);
    msg::elastic_request r;
    r.user = owner_of(j);
    r.est = e->est;
    r.let = e->let;
    r.np_min = e->np_min;
    r.np_max = e->np_max;
    r.dur_ref = e->run_time;
    r.np_ref = std::min(e->procs, cluster.cpus);
    r.pp_ref = cluster.pp;
    r.speedup = msg::to_spec(*speedup_model::amdahl(0.0));
    r.prefer = *parse_preferences(rc.prefer);  // checked when the config was read
    r.esr = parse_esr_method(point->esr).value_or(esr_method::load);
    r.esr_threshold = rc.esr_threshold;
    r.tsn_max = rc.tsn_max;
    r.tss_gap = rc.tss_gap;
    r.mode = msg::request_mode::reserve;
    r.local_jobs_preferred = true;
    s.requests.push_back({j.job_id, e->submit, std::move(r)});
  }
  return s;
}

}  // namespace arbroker::simapp
