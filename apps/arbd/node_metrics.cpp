#include "node_metrics.hpp"

#include <algorithm>
#include <array>

#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/metrics/latency_buckets.hpp"
#include "arbroker/node/node.hpp"

namespace arbroker {
namespace {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Histogram;

prometheus::Family<Counter>& counter(prometheus::Registry& reg, const char* name,
                                     const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(reg);
}
prometheus::Family<Gauge>& gauge(prometheus::Registry& reg, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(reg);
}
prometheus::Family<Histogram>& histogram(prometheus::Registry& reg, const char* name,
                                         const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(reg);
}

// A cumulative count polled from elsewhere, applied to a counter as its growth.
void grow(Counter& c, std::int64_t now, std::int64_t before) {
  if (now > before) c.Increment(static_cast<double>(now - before));
}

}  // namespace

node_metrics::node_metrics(prometheus::Registry& reg, const std::string& version)
    : requests_(
          counter(reg, "arb_requests_total",
                  "API requests answered, by front end (msgpack, http), operation and outcome.")),
      latency_(histogram(reg, "arb_request_duration_seconds",
                         "From request received to reply sent, by front end and operation.")),
      routed_(counter(reg, "arb_broker_instance_requests_total",
                      "Requests for new reservations by the broker instance that took them "
                      "(instance=\"none\": no instance serves the user).")),
      auth_failures_(counter(reg, "arb_handshakes_refused_total",
                             "Handshakes refused (bad credentials or version).")
                         .Add({})),
      connections_(gauge(reg, "arb_connections", "Open API connections.").Add({})),
      watchers_(
          gauge(reg, "arb_watchers", "Watches under way (arb watch, GET /v1/watch).").Add({})),
      lease_epoch_(gauge(reg, "arb_lease_epoch",
                         "Several nodes on one store: the epoch of the store's lease as this node "
                         "last saw it (each takeover adds one; 0: no lease).")
                       .Add({})),
      lease_serving_(gauge(reg, "arb_lease_serving",
                           "1 while this node holds the store's lease and serves, 0 as a standby.")
                         .Add({})),
      lease_renewal_failures_(counter(reg, "arb_lease_renewal_failures_total",
                                      "Renewals of this node's lease that did not reach the "
                                      "database (two thirds of a term without one: it steps "
                                      "down).")
                                  .Add({})),
      holds_(gauge(reg, "arb_holds", "Holds in place (accepted, not committed).")),
      reserved_(gauge(reg, "arb_reserved_cpus", "CPUs of reservations active right now.")),
      undeleted_(
          gauge(reg, "arb_undeleted_lrms_reservations",
                "Reservations released by the node that the LRMS has not deleted yet (retried).")),
      committed_(gauge(reg, "arb_committed_reservations", "Committed or active reservations.")),
      cpus_(gauge(reg, "arb_cluster_cpus", "CPUs of the cluster.")),
      created_(
          counter(reg, "arb_holds_created_total", "Holds made (direct reservations included).")),
      commits_(counter(reg, "arb_commits_total", "Holds committed.")),
      aborts_(counter(reg, "arb_aborts_total", "Holds aborted.")),
      expiries_(counter(reg, "arb_hold_expiries_total", "Holds removed because they expired.")),
      cancels_(counter(reg, "arb_cancels_total",
                       "Reservations cancelled or terminated by their owner.")),
      moves_(counter(reg, "arb_reservation_moves_total",
                     "Reservations the cluster moved within their windows (laxity).")),
      overruns_(counter(reg, "arb_reservation_overruns_total",
                        "Overrun quanta: granted (the jobs ran on) or refused (they ended with "
                        "the reservation).")),
      lrms_latency_(histogram(reg, "arb_lrms_call_duration_seconds",
                              "Time spent in calls to the cluster's batch system, by call.")),
      lrms_failures_(counter(reg, "arb_lrms_call_failures_total",
                             "Calls to the cluster's batch system that returned an error.")),
      grid_jobs_(gauge(reg, "arb_grid_jobs", "Grid jobs by strategy and state.")),
      grid_events_(counter(
          reg, "arb_grid_job_events_total",
          "Grid-job manager events: submitted, refused, copies_submitted, "
          "copies_cancelled, duplicate_starts, migrations, "
          "migration_gain_seconds, resubmits, retries, lrms_calls (of them outlook_calls and "
          "state_calls), lrms_call_microseconds (their summed latency).")) {
  gauge(reg, "arb_build_info", "The running arbd's version (the value is always 1).")
      .Add({{"version", version}})
      .Set(1);
}

lrms_call_observer node_metrics::lrms_observer(const std::string& cluster) {
  // Resolved once per cluster, so that a call costs one histogram update (and a failure one
  // counter increment), not a label lookup.
  struct per_call {
    Histogram* latency;
    Counter* failures;
  };
  std::array<per_call, lrms_call_count> calls{};
  for (std::size_t i = 0; i < lrms_call_count; ++i) {
    const prometheus::Labels labels{{"cluster", cluster},
                                    {"call", std::string(to_string(static_cast<lrms_call>(i)))}};
    calls[i] = {&lrms_latency_.Add(labels, metrics::latency_buckets()),
                &lrms_failures_.Add(labels)};
  }
  return [calls](lrms_call c, std::chrono::nanoseconds took, bool ok) {
    const auto& m = calls[static_cast<std::size_t>(c)];
    m.latency->Observe(std::chrono::duration<double>(took).count());
    if (!ok) m.failures->Increment();
  };
}

node_metrics::~node_metrics() {
  stop();
}

void node_metrics::answered(api::front_end via, const std::string& operation,
                            const std::string& outcome, double seconds) {
  // Family::Add builds a metric before it looks the labels up: look up ours first.
  Counter* count = nullptr;
  Histogram* latency = nullptr;
  const auto front = static_cast<std::size_t>(via);
  {
    std::lock_guard lock{answered_mu_};
    auto& c = answered_count_[front][{operation, outcome}];
    if (!c)
      c = &requests_.Add({{"api", std::string(api::to_string(via))},
                          {"operation", operation},
                          {"outcome", outcome}});
    auto& h = answered_latency_[front][operation];
    if (!h)
      h = &latency_.Add({{"api", std::string(api::to_string(via))}, {"operation", operation}},
                        metrics::latency_buckets());
    count = c;
    latency = h;
  }
  count->Increment();
  latency->Observe(seconds);
}

void node_metrics::routed(const std::string& instance, const std::string& operation) {
  // Few per request, and no hot path: Family::Add finds an existing label set itself.
  routed_.Add({{"instance", instance.empty() ? "none" : instance}, {"operation", operation}})
      .Increment();
}

void node_metrics::watchers(std::size_t n) {
  watchers_.Set(static_cast<double>(n));
}

void node_metrics::server_counts(std::size_t open_connections, std::size_t handshakes_refused) {
  std::lock_guard lock{mu_};
  connections_.Set(static_cast<double>(open_connections));
  if (handshakes_refused > refused_seen_)
    auth_failures_.Increment(static_cast<double>(handshakes_refused - refused_seen_));
  refused_seen_ = std::max(refused_seen_, handshakes_refused);
}

void node_metrics::update(const std::vector<msg::cluster_status>& statuses) {
  std::lock_guard lock{mu_};
  for (const auto& s : statuses) {
    if (!s.error.ok() && s.cluster.empty()) continue;
    const prometheus::Labels c{{"cluster", s.cluster}};
    holds_.Add(c).Set(s.holds);
    committed_.Add(c).Set(s.committed);
    reserved_.Add(c).Set(s.reserved_cpus);
    undeleted_.Add(c).Set(s.undeleted);
    cpus_.Add(c).Set(s.cpus);
    auto& last = last_[s.cluster];
    grow(created_.Add(c), s.holds_created, last.holds_created);
    grow(commits_.Add(c), s.commits, last.commits);
    grow(aborts_.Add(c), s.aborts, last.aborts);
    grow(expiries_.Add(c), s.expiries, last.expiries);
    grow(cancels_.Add(c), s.cancels, last.cancels);
    grow(moves_.Add(c), s.moves, last.moves);
    grow(overruns_.Add({{"cluster", s.cluster}, {"outcome", "granted"}}), s.overruns,
         last.overruns);
    grow(overruns_.Add({{"cluster", s.cluster}, {"outcome", "refused"}}), s.overruns_refused,
         last.overruns_refused);
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
          .Add({{"strategy", std::string(to_string(static_cast<grid_strategy>(s)))},
                {"state", std::string(to_string(static_cast<grid_job_state>(k)))}})
          .Set(static_cast<double>(g.jobs[s][k].load()));
  const std::pair<const char*, const std::atomic<std::int64_t>*> events[] = {
      {"submitted", &g.submitted},
      {"refused", &g.refused},
      {"copies_submitted", &g.copies_submitted},
      {"copies_cancelled", &g.copies_cancelled},
      {"duplicate_starts", &g.duplicate_starts},
      {"migrations", &g.migrations},
      {"migration_gain_seconds", &g.migration_gain},
      {"resubmits", &g.resubmits},
      {"retries", &g.retries},
      {"lrms_calls", &g.lrms_calls},
      {"outlook_calls", &g.outlook_calls},
      {"state_calls", &g.state_calls},
      {"lrms_call_microseconds", &g.lrms_call_microseconds}};
  for (const auto& [name, value] : events) {
    const auto v = value->load();
    auto& seen = grid_seen_[name];
    auto& c = grid_events_.Add({{"event", name}});  // listed from the start, at 0
    grow(c, v, seen);
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

void node_metrics::lease(std::uint64_t epoch, bool serving) {
  lease_epoch_.Set(static_cast<double>(epoch));
  lease_serving_.Set(serving ? 1 : 0);
}

void node_metrics::lease_renewal_failed() {
  lease_renewal_failures_.Increment();
}

}  // namespace arbroker
