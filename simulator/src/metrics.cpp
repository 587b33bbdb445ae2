#include "arbroker/simulator/metrics.hpp"

#include <algorithm>
#include <string>

namespace arbroker::sim {

result<metrics_collector> collect(const sim_output& out, const collect_filter& filter) {
  int cpus = 0;
  for (std::size_t c = 0; c < out.cluster_cpus.size(); ++c)
    if (!filter.cluster || *filter.cluster == static_cast<int>(c)) cpus += out.cluster_cpus[c];
  auto m = metrics_collector::create(std::max(cpus, 1));
  if (!m) return m.err();
  m->reserve(out.jobs.size(), out.requests.size());
  auto in = [&](int cluster) { return !filter.cluster || *filter.cluster == cluster; };
  for (std::size_t i = 0; i < out.jobs.size(); ++i) {
    const auto& j = out.jobs[i];
    if (!in(j.cluster)) continue;
    const auto start = j.start >= 0 ? std::optional<timestamp>(j.start) : std::nullopt;
    if (auto ok = m->batch_record(j.submit, start); !ok) return ok.err();
  }
  for (const auto& b : out.busy)
    if (in(b.cluster) && b.to > b.from)
      if (auto ok = m->cpus_busy(b.from, b.to, b.np); !ok) return ok.err();
  for (std::size_t i = 0; i < out.requests.size(); ++i) {
    const auto& r = out.requests[i];
    const int where =
        filter.requests_of && i < filter.requests_of->size() ? (*filter.requests_of)[i] : r.cluster;
    if (!in(where) || (filter.cluster && where < 0)) continue;
    const auto key = "R" + std::to_string(i);
    const auto kind = r.on_demand ? request_kind::on_demand : request_kind::advance_reservation;
    if (auto ok = m->request_submitted(key, kind, r.submit, r.requested_start, std::max(r.np, 1),
                                       std::max<duration>(r.runtime, 1));
        !ok)
      return ok.err();
    const auto& st = r.reply.stats;
    if (auto ok = m->candidates(key, static_cast<std::size_t>(std::max(st.candidates, 0)),
                                static_cast<std::size_t>(
                                    std::clamp(st.above_threshold, 0, std::max(st.candidates, 0))));
        !ok)
      return ok.err();
    for (int k = 0; k < st.rejected_by_service; ++k)
      if (auto ok = m->reserve_rejected(key, reserve_rejecter::crs); !ok) return ok.err();
    for (int k = 0; k < st.rejected_by_lrms; ++k)
      if (auto ok = m->reserve_rejected(key, reserve_rejecter::local_scheduler); !ok)
        return ok.err();
    if (!r.ok()) {
      if (auto ok = m->request_rejected(key); !ok) return ok.err();
      continue;
    }
    if (auto ok = m->request_accepted(key, r.reply.reservation.start); !ok) return ok.err();
    if (r.job_end >= 0)
      if (auto ok = m->request_completed(key, r.job_end); !ok) return ok.err();
  }
  return m;
}

run_summary summarize(const sim_output& out) {
  run_summary s;
  timestamp begin = out.end_time;
  for (const auto& j : out.jobs)
    begin = std::min(begin, j.submit);
  for (const auto& r : out.requests)
    begin = std::min(begin, r.submit);
  auto m = collect(out);
  if (!m) return s;  // the driver's own records are always consistent
  auto sum = m->summary(begin, std::max(out.end_time, begin + 1));
  if (!sum) return s;
  s.metrics = *sum;
  s.jobs = sum->batch_jobs;
  s.jobs_started = sum->batch_jobs_started;
  s.mean_wait = sum->mean_wait.value_or(0);
  s.requests = sum->requests;
  s.successes = sum->accepted;
  s.succeeded = sum->accepted_effort;
  s.failed = sum->rejected_effort;
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
