#include "arbroker/sim/metrics.hpp"

#include <algorithm>
#include <cstdlib>

namespace arbroker::sim {

namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::optional<double> mean(double sum, std::size_t n) {
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

}  // namespace

double estimate_accuracy(duration real_wait, duration estimated_wait) noexcept {
  const double rt = static_cast<double>(real_wait);
  const double deviation = std::abs(static_cast<double>(estimated_wait) - rt);
  if (rt <= 0) return deviation == 0 ? 1.0 : 0.0;
  return deviation <= rt ? 1.0 - deviation / rt : 0.0;
}

result<metrics_collector> metrics_collector::create(int total_cpus) {
  if (total_cpus < 1)
    return fail(errc::invalid_processor_range,
                "metrics need at least 1 CPU, got " + str(total_cpus));
  return metrics_collector(total_cpus);
}

void metrics_collector::reserve(std::size_t batch_jobs, std::size_t requests) {
  whole_batch_.reserve(batch_jobs);
  requests_.reserve(requests);
}

status metrics_collector::batch_record(timestamp submitted, std::optional<timestamp> started) {
  if (started && *started < submitted)
    return fail(errc::invalid_parameter,
                "a batch job starts at " + str(*started) + ", before its submit " + str(submitted));
  whole_batch_.push_back({submitted, started});
  return {};
}

status metrics_collector::batch_submitted(const std::string& job, timestamp t) {
  if (!batch_.try_emplace(job, batch_job{t, std::nullopt}).second)
    return fail(errc::invalid_parameter, "batch job '" + job + "' submitted twice");
  return {};
}

status metrics_collector::batch_started(const std::string& job, timestamp t) {
  auto it = batch_.find(job);
  if (it == batch_.end()) return fail(errc::not_found, "batch job '" + job + "' never submitted");
  if (t < it->second.submitted)
    return fail(errc::invalid_parameter, "batch job '" + job + "' starts at " + str(t) +
                                             ", before its submit " + str(it->second.submitted));
  if (!it->second.started) it->second.started = t;
  return {};
}

status metrics_collector::cpus_busy(timestamp from, timestamp to, int np) {
  if (from > to)
    return fail(errc::invalid_window, "busy span [" + str(from) + ", " + str(to) + ") is reversed");
  if (np < 1) return fail(errc::invalid_processor_range, "busy span of " + str(np) + " CPUs");
  if (from < to) busy_.push_back({from, to, np});
  return {};
}

status metrics_collector::request_submitted(const std::string& id, request_kind kind,
                                            timestamp submitted, timestamp requested_start, int np,
                                            duration runtime) {
  if (np < 1)
    return fail(errc::invalid_processor_range,
                "request '" + id + "' asks for " + str(np) + " CPUs");
  if (runtime <= 0)
    return fail(errc::invalid_duration,
                "request '" + id + "' runtime " + str(runtime) + " s must be positive");
  request r;
  r.kind = kind;
  r.submitted = submitted;
  r.requested_start = requested_start;
  r.work = static_cast<double>(np) * static_cast<double>(runtime);
  if (!requests_.try_emplace(id, r).second)
    return fail(errc::invalid_parameter, "request '" + id + "' submitted twice");
  return {};
}

result<metrics_collector::request*> metrics_collector::find(const std::string& id) {
  auto it = requests_.find(id);
  if (it == requests_.end()) return fail(errc::not_found, "request '" + id + "' never submitted");
  return &it->second;
}

status metrics_collector::request_accepted(const std::string& id, timestamp granted_start) {
  auto r = find(id);
  if (!r) return r.err();
  if ((*r)->state != outcome::pending)
    return fail(errc::invalid_parameter, "request '" + id + "' already decided");
  (*r)->state = outcome::accepted;
  (*r)->granted_start = granted_start;
  return {};
}

status metrics_collector::request_rejected(const std::string& id) {
  auto r = find(id);
  if (!r) return r.err();
  if ((*r)->state != outcome::pending)
    return fail(errc::invalid_parameter, "request '" + id + "' already decided");
  (*r)->state = outcome::rejected;
  return {};
}

status metrics_collector::request_completed(const std::string& id, timestamp t) {
  auto r = find(id);
  if (!r) return r.err();
  if ((*r)->state != outcome::accepted)
    return fail(errc::invalid_parameter, "request '" + id + "' completes without being accepted");
  if ((*r)->completed) return fail(errc::invalid_parameter, "request '" + id + "' completed twice");
  (*r)->completed = t;
  return {};
}

status metrics_collector::candidates(const std::string& id, std::size_t received,
                                     std::size_t after_threshold) {
  auto r = find(id);
  if (!r) return r.err();
  if (after_threshold > received)
    return fail(errc::invalid_parameter, "request '" + id + "': " + str(after_threshold) +
                                             " candidates after the threshold of " + str(received) +
                                             " received");
  (*r)->candidates = received;
  (*r)->after_threshold = after_threshold;
  return {};
}

status metrics_collector::reserve_rejected(const std::string& id, reserve_rejecter by) {
  auto r = find(id);
  if (!r) return r.err();
  ++(by == reserve_rejecter::crs ? (*r)->rejected_by_crs : (*r)->rejected_by_local);
  return {};
}

status metrics_collector::start_estimate(timestamp made_at, timestamp estimated_start,
                                         timestamp real_start) {
  if (real_start < made_at || estimated_start < made_at)
    return fail(errc::invalid_parameter,
                "start estimate made at " + str(made_at) + " names a start before it (estimated " +
                    str(estimated_start) + ", real " + str(real_start) + ")");
  ++estimates_;
  accuracy_sum_ += estimate_accuracy(real_start - made_at, estimated_start - made_at);
  return {};
}

result<metrics_summary> metrics_collector::summary(timestamp begin, timestamp end) const {
  if (begin >= end)
    return fail(errc::invalid_window,
                "summary window [" + str(begin) + ", " + str(end) + ") is empty");
  metrics_summary s;

  double wait = 0;
  s.batch_jobs = batch_.size() + whole_batch_.size();
  auto count = [&](const batch_job& j) {
    if (!j.started) return;
    wait += static_cast<double>(*j.started - j.submitted);
    ++s.batch_jobs_started;
  };
  for (const auto& [id, j] : batch_)
    count(j);
  for (const auto& j : whole_batch_)
    count(j);
  s.mean_wait = mean(wait, s.batch_jobs_started);

  double offset = 0, work = 0, work_rejected = 0, response_od = 0, response_ar = 0;
  std::size_t completed_od = 0, completed_ar = 0, accepted_ar = 0;
  struct effort_sums {
    std::size_t n = 0;
    double candidates = 0, after = 0, crs = 0, local = 0;
  } sums[2];  // [0] accepted, [1] rejected
  s.requests = requests_.size();
  for (const auto& [id, r] : requests_) {
    work += r.work;
    if (r.state == outcome::accepted) {
      ++s.accepted;
      if (r.kind == request_kind::advance_reservation) {
        offset += static_cast<double>(std::llabs(*r.granted_start - r.requested_start));
        ++accepted_ar;
      }
    } else if (r.state == outcome::rejected) {
      ++s.rejected;
      work_rejected += r.work;
    }
    if (r.completed) {
      if (r.kind == request_kind::on_demand) {
        response_od += static_cast<double>(*r.completed - r.submitted);
        ++completed_od;
      } else {
        response_ar += static_cast<double>(*r.completed - r.requested_start);
        ++completed_ar;
      }
    }
    if (r.candidates && r.state != outcome::pending) {
      effort_sums& e = sums[r.state == outcome::accepted ? 0 : 1];
      ++e.n;
      e.candidates += static_cast<double>(*r.candidates);
      e.after += static_cast<double>(r.after_threshold);
      e.crs += static_cast<double>(r.rejected_by_crs);
      e.local += static_cast<double>(r.rejected_by_local);
    }
  }
  s.mean_offset = mean(offset, accepted_ar);
  if (s.requests > 0) {
    s.blocking_probability = static_cast<double>(s.rejected) / static_cast<double>(s.requests);
    if (work > 0) s.work_rejected_percent = 100.0 * work_rejected / work;
    if (s.rejected > 0)
      s.fairness = (work_rejected / static_cast<double>(s.rejected)) /
                   (work / static_cast<double>(s.requests));
  }
  s.mean_response_on_demand = mean(response_od, completed_od);
  s.mean_response_advance_reservation = mean(response_ar, completed_ar);

  double busy = 0;
  for (const auto& b : busy_) {
    const timestamp from = std::max(b.from, begin), to = std::min(b.to, end);
    if (from < to) busy += static_cast<double>(to - from) * b.np;
  }
  s.utilization = busy / (static_cast<double>(end - begin) * total_cpus_);

  broker_effort* efforts[2] = {&s.accepted_effort, &s.rejected_effort};
  for (int i = 0; i < 2; ++i) {
    efforts[i]->requests = sums[i].n;
    efforts[i]->candidates = mean(sums[i].candidates, sums[i].n);
    efforts[i]->after_threshold = mean(sums[i].after, sums[i].n);
    efforts[i]->rejected_by_crs = mean(sums[i].crs, sums[i].n);
    efforts[i]->rejected_by_local_scheduler = mean(sums[i].local, sums[i].n);
  }

  s.estimates = estimates_;
  s.estimate_accuracy = mean(accuracy_sum_, estimates_);
  return s;
}

}  // namespace arbroker::sim
