#include "node_metrics.hpp"

#include <algorithm>

#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/node/node.hpp"

namespace arbroker {
namespace {

// Registration can only fail for a bad name, which is a bug here, not an input.
template <class F>
F must(result<F> r) {
  if (!r) throw std::logic_error(to_string(r.err()));
  return std::move(*r);
}

}  // namespace

node_metrics::node_metrics(metrics::registry& reg)
    : reg_(reg),
      requests_(must(reg.add_counter("arb_requests_total",
                                     "API requests answered, by operation and outcome.",
                                     {"operation", "outcome"}))),
      latency_(must(reg.add_histogram("arb_request_duration_seconds",
                                      "From request received to reply sent.",
                                      metrics::latency_buckets(), {"operation"}))),
      auth_failures_(&must(reg.add_counter("arb_handshakes_refused_total",
                                           "Handshakes refused (bad credentials or version).", {}))
                          .get()),
      connections_(&must(reg.add_gauge("arb_connections", "Open API connections.", {})).get()),
      holds_(must(
          reg.add_gauge("arb_holds", "Holds in place (accepted, not committed).", {"cluster"}))),
      reserved_(must(reg.add_gauge("arb_reserved_cpus", "CPUs of reservations active right now.",
                                   {"cluster"}))),
      undeleted_(must(reg.add_gauge(
          "arb_undeleted_lrms_reservations",
          "Reservations released by the node that the LRMS has not deleted yet (retried).",
          {"cluster"}))),
      committed_(must(reg.add_gauge("arb_committed_reservations",
                                    "Committed or active reservations.", {"cluster"}))),
      cpus_(must(reg.add_gauge("arb_cluster_cpus", "CPUs of the cluster.", {"cluster"}))),
      created_(must(reg.add_counter("arb_holds_created_total",
                                    "Holds made (direct reservations included).", {"cluster"}))),
      commits_(must(reg.add_counter("arb_commits_total", "Holds committed.", {"cluster"}))),
      aborts_(must(reg.add_counter("arb_aborts_total", "Holds aborted.", {"cluster"}))),
      expiries_(must(reg.add_counter("arb_hold_expiries_total",
                                     "Holds removed because they expired.", {"cluster"}))),
      cancels_(must(reg.add_counter("arb_cancels_total",
                                    "Reservations cancelled or terminated by their owner.",
                                    {"cluster"}))),
      moves_(must(reg.add_counter("arb_reservation_moves_total",
                                  "Reservations the cluster moved within their windows (laxity).",
                                  {"cluster"}))),
      overruns_(must(reg.add_counter(
          "arb_reservation_overruns_total",
          "Overrun quanta: granted (the jobs ran on) or refused (they ended with the reservation).",
          {"cluster", "outcome"}))),
      grid_jobs_(must(reg.add_gauge("arb_grid_jobs", "Grid jobs by strategy and state.",
                                    {"strategy", "state"}))),
      grid_events_(must(reg.add_counter(
          "arb_grid_job_events_total",
          "Grid-job manager events: submitted, refused, copies_submitted, copies_cancelled, "
          "duplicate_starts, migrations, migration_gain_seconds, lrms_calls, "
          "lrms_call_microseconds (their summed latency).",
          {"event"}))) {}

node_metrics::~node_metrics() {
  stop();
}

void node_metrics::answered(const std::string& operation, const std::string& outcome,
                            double seconds) {
  requests_.with({operation, outcome}).inc();
  latency_.with({operation}).observe(seconds);
}

void node_metrics::server_counts(std::size_t open_connections, std::size_t handshakes_refused) {
  std::lock_guard lock{mu_};
  connections_->set(static_cast<double>(open_connections));
  if (handshakes_refused > refused_seen_) auth_failures_->inc(handshakes_refused - refused_seen_);
  refused_seen_ = std::max(refused_seen_, handshakes_refused);
}

void node_metrics::update(const std::vector<msg::cluster_status>& statuses) {
  std::lock_guard lock{mu_};
  auto grow = [](metrics::counter& c, std::int64_t now, std::int64_t before) {
    if (now > before) c.inc(static_cast<std::uint64_t>(now - before));
  };
  for (const auto& s : statuses) {
    if (!s.error.ok() && s.cluster.empty()) continue;
    const std::string_view c = s.cluster;
    holds_.with({c}).set(s.holds);
    committed_.with({c}).set(s.committed);
    reserved_.with({c}).set(s.reserved_cpus);
    undeleted_.with({c}).set(s.undeleted);
    cpus_.with({c}).set(s.cpus);
    auto& last = last_[s.cluster];
    grow(created_.with({c}), s.holds_created, last.holds_created);
    grow(commits_.with({c}), s.commits, last.commits);
    grow(aborts_.with({c}), s.aborts, last.aborts);
    grow(expiries_.with({c}), s.expiries, last.expiries);
    grow(cancels_.with({c}), s.cancels, last.cancels);
    grow(moves_.with({c}), s.moves, last.moves);
    grow(overruns_.with({c, "granted"}), s.overruns, last.overruns);
    grow(overruns_.with({c, "refused"}), s.overruns_refused, last.overruns_refused);
    last = s;
    last.reservations.clear();  // only the counters are needed
    last.lrms_reservations.clear();
    last.lrms_running.clear();
    last.lrms_queued.clear();
    last.lrms_running_bound.clear();
  }
}

void node_metrics::update(const grid_job_counters& g) {
  std::lock_guard lock{mu_};
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t k = 0; k < 6; ++k)
      grid_jobs_
          .with(
              {to_string(static_cast<grid_strategy>(s)), to_string(static_cast<grid_job_state>(k))})
          .set(static_cast<double>(g.jobs[s][k].load()));
  const std::pair<const char*, const std::atomic<std::int64_t>*> events[] = {
      {"submitted", &g.submitted},
      {"refused", &g.refused},
      {"copies_submitted", &g.copies_submitted},
      {"copies_cancelled", &g.copies_cancelled},
      {"duplicate_starts", &g.duplicate_starts},
      {"migrations", &g.migrations},
      {"migration_gain_seconds", &g.migration_gain},
      {"lrms_calls", &g.lrms_calls},
      {"lrms_call_microseconds", &g.lrms_call_microseconds}};
  for (const auto& [name, value] : events) {
    const auto v = value->load();
    auto& seen = grid_seen_[name];
    auto& counter = grid_events_.with({name});  // listed from the start, at 0
    if (v > seen) counter.inc(static_cast<std::uint64_t>(v - seen));
    seen = std::max(seen, v);
  }
}

void node_metrics::start_polling(node& n, std::chrono::seconds period, std::function<void()> also) {
  poller_ = std::thread([this, &n, period, also = std::move(also)] {
    std::unique_lock lock{mu_};
    while (!stopping_) {
      lock.unlock();
      auto st = n.status();
      update(st);
      update(n.grid_counters());
      if (also) also();
      lock.lock();
      wake_.wait_for(lock, period, [this] { return stopping_; });
    }
  });
}

void node_metrics::stop() {
  {
    std::lock_guard lock{mu_};
    stopping_ = true;
  }
  wake_.notify_all();
  if (poller_.joinable()) poller_.join();
}

}  // namespace arbroker
