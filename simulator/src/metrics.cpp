#include "arbroker/simulator/metrics.hpp"

#include <algorithm>

namespace arbroker::sim {
namespace {

void add(request_counts& c, const msg::request_stats& s) {
  ++c.requests;
  c.candidates += s.candidates;
  c.above_threshold += s.above_threshold;
  c.rejected_by_service += s.rejected_by_service;
  c.rejected_by_lrms += s.rejected_by_lrms;
}

void average(request_counts& c) {
  if (c.requests == 0) return;
  const auto n = static_cast<double>(c.requests);
  c.candidates /= n;
  c.above_threshold /= n;
  c.rejected_by_service /= n;
  c.rejected_by_lrms /= n;
}

}  // namespace

run_summary summarize(const sim_output& out) {
  run_summary s;
  s.jobs = out.jobs.size();
  double waits = 0;
  for (const auto& j : out.jobs) {
    if (j.start < 0) continue;
    ++s.jobs_started;
    waits += static_cast<double>(j.wait());
  }
  if (s.jobs_started > 0) s.mean_wait = waits / static_cast<double>(s.jobs_started);
  s.requests = out.requests.size();
  for (const auto& r : out.requests) {
    if (r.ok()) {
      ++s.successes;
      add(s.succeeded, r.reply.stats);
    } else {
      add(s.failed, r.reply.stats);
    }
  }
  average(s.succeeded);
  average(s.failed);
  return s;
}

std::vector<duration> additional_waits(const sim_output& run, const sim_output& baseline) {
  std::vector<duration> out;
  if (run.jobs.size() != baseline.jobs.size()) return out;
  for (std::size_t i = 0; i < run.jobs.size(); ++i) {
    const auto& a = run.jobs[i];
    const auto& b = baseline.jobs[i];
    if (a.id != b.id) return {};
    if (a.start >= 0 && b.start >= 0) out.push_back(a.wait() - b.wait());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace arbroker::sim
