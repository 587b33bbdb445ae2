// arb-soak: steady load on a running arbd over its network API for a while, watching the
// node's resident memory and the latency of `list` (issue 16: a node must run for months
// with memory and latency that do not depend on its history). Clients on `--connections`
// connections reserve short reservations at `--rate` requests/s in all and cancel each one
// granted at once (so the live set stays flat and only the history grows); a sampler reads the
// node's RSS (/proc/PID/status) and times `--probes` back-to-back `list` calls every `--sample`
// seconds, keeping the fastest (a shared machine only ever adds waits to a call; a node whose
// list costs more with its history is slower on every probe). After `--warmup`, it
// fits a line to RSS and compares list latency between the first and last third of the run; it
// also times a page of history (`list --history`, 100 finished ones) at each sample, reports
// the percentiles of the reserve and cancel round trips after the warm-up, and with --idle N
// the node's CPU over N seconds once the load has stopped. Exit 0 when the RSS slope and the
// latency growth are within the bounds and no request failed in transport; 1 otherwise; 2
// for bad options.
//   arb-soak --server 127.0.0.1:7400 --pid $(pidof arbd) --user alice --token ...

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "arbroker/api/client.hpp"

namespace arbroker {
namespace {

using clock = std::chrono::steady_clock;

struct options {
  std::string server = "127.0.0.1:7400";
  std::string user, token, ca;
  int pid = 0;
  double rate = 300;
  int connections = 64;
  double warmup = 30, duration = 120, sample = 5;
  double max_rss_slope = 4;       ///< MiB per minute
  double max_latency_growth = 2;  ///< last third's median list latency / first third's
  double latency_floor_ms = 2;    ///< growth below this many ms is noise, not a trend
  int probes = 5;                 ///< list calls per sample; the fastest is kept
  double idle = 0;                ///< seconds to watch the node's CPU after the load
};

struct sample_point {
  double t;           ///< seconds since the start
  double rss_mib;     ///< the node's resident memory
  double list_ms;     ///< the fastest of the sample's list calls
  double history_ms;  ///< the fastest of the sample's pages of history
};

/// CPU seconds the process has used (utime + stime of /proc/PID/stat); -1 if unreadable.
double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command may contain spaces
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15 (1-based)
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

/// The q-quantile (0..1) of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto i = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

std::string percentiles(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  char out[160];
  std::snprintf(out, sizeof out, "p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms (n=%zu)",
                quantile(ms, 0.5), quantile(ms, 0.99), quantile(ms, 0.999),
                ms.empty() ? 0.0 : ms.back(), ms.size());
  return out;
}

double rss_mib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  double kib = -1;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> kib;
      break;
    }
    in.ignore(1 << 16, '\n');
  }
  return kib / 1024;
}

std::int64_t wall_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

msg::elastic_request reservation_request(const std::string& user, std::uint64_t n) {
  msg::elastic_request r;
  r.user = user;
  r.mode = msg::request_mode::reserve;
  r.est = wall_now() + 5;
  r.let = r.est + 3600;
  r.np_min = 1;  // every cluster finds a count it reserves (its bunch)
  r.np_max = 16;
  r.dur_ref = 30 + static_cast<std::int64_t>(n % 60);  // short: they run out during the soak
  r.speedup.kind = msg::speedup_kind::amdahl;
  return r;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Least-squares slope of y over x.
double slope(const std::vector<sample_point>& s) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : s) {
    n += 1;
    sx += p.t;
    sy += p.rss_mib;
    sxx += p.t * p.t;
    sxy += p.t * p.rss_mib;
  }
  const double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : 0;
}

int run(const options& o) {
  auto where = api::parse_host_port(o.server);
  if (!where) {
    std::fprintf(stderr, "arb-soak: --server: %s\n", where.err().message.c_str());
    return 2;
  }
  if (rss_mib(o.pid) < 0) {
    std::fprintf(stderr, "arb-soak: --pid %d: no such process to watch\n", o.pid);
    return 2;
  }
  api::client_options copts;
  copts.timeout = std::chrono::seconds(30);
  if (!o.ca.empty()) {
    auto tls = api::make_client_tls({o.ca});
    if (!tls) {
      std::fprintf(stderr, "arb-soak: --ca: %s\n", tls.err().message.c_str());
      return 2;
    }
    copts.tls = *tls;
  }
  const auto start = clock::now();
  const auto stop_at = start + std::chrono::duration<double>(o.warmup + o.duration);
  std::atomic<std::uint64_t> sent = 0, ok = 0, refused = 0, transport = 0, next = 0;
  std::mutex err_mu;
  std::string last_error;
  const auto measured_from = start + std::chrono::duration<double>(o.warmup);
  std::mutex lat_mu;
  std::vector<double> reserve_ms, cancel_ms;  // round trips after the warm-up

  // Each connection sends at rate/connections, on its own schedule (a pace, not a sync).
  std::vector<std::thread> clients;
  const auto period = std::chrono::duration<double>(o.connections / o.rate);
  for (int c = 0; c < o.connections; ++c)
    clients.emplace_back([&, c] {
      api::client cl(copts);
      std::vector<double> mine_reserve, mine_cancel;
      auto ms_since = [](clock::time_point t0) {
        return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      };
      auto due = start + period * (static_cast<double>(c) / o.connections);
      while (clock::now() < stop_at) {
        std::this_thread::sleep_until(due);
        due += std::chrono::duration_cast<clock::duration>(period);
        if (!cl.connected()) {
          if (auto w = cl.connect(where->first, where->second, o.user, o.token); !w) {
            ++transport;
            std::lock_guard lock(err_mu);
            last_error = w.err().message;
            continue;
          }
        }
        const auto n = next++;
        ++sent;
        const auto t0 = clock::now();
        const bool measured = t0 >= measured_from;
        auto r = cl.call(reservation_request(o.user, n));
        if (measured) mine_reserve.push_back(ms_since(t0));
        if (!r) {
          ++transport;
          std::lock_guard lock(err_mu);
          last_error = r.err().message;
          continue;
        }
        if (!r->ok()) {
          ++refused;  // busy or no room: an answer, not a failure of the node
          continue;
        }
        ++ok;
        // Cancelled at once, so that the live set stays flat and only the history grows.
        msg::cancel_request cancel;
        cancel.user = o.user;
        cancel.reservation_id = std::get<msg::elastic_reply>(r->body).reservation.id;
        const auto t1 = clock::now();
        if (auto cr = cl.call(cancel); !cr) ++transport;
        if (measured) mine_cancel.push_back(ms_since(t1));
      }
      std::lock_guard lock(lat_mu);
      reserve_ms.insert(reserve_ms.end(), mine_reserve.begin(), mine_reserve.end());
      cancel_ms.insert(cancel_ms.end(), mine_cancel.begin(), mine_cancel.end());
    });

  std::vector<sample_point> samples;
  api::client lister(copts);
  for (auto due = start; due < stop_at; due += std::chrono::duration_cast<clock::duration>(
                                            std::chrono::duration<double>(o.sample))) {
    std::this_thread::sleep_until(due);
    if (!lister.connected() && !lister.connect(where->first, where->second, o.user, o.token))
      continue;
    msg::list_request l;
    l.user = o.user;
    const auto t0 = clock::now();
    const double t = std::chrono::duration<double>(t0 - start).count();
    // The fastest of a few calls: one call per sample measured the machine's noise as often
    // as the node (a CI run failed on one sample of 14 ms among ones of 0.3 ms).
    double ms = 1e300, hms = 1e300;
    bool answered = true;
    for (int i = 0; i < o.probes && answered; ++i) {
      l.history = false;
      const auto c0 = clock::now();
      auto r = lister.call(l);
      ms = std::min(ms, std::chrono::duration<double, std::milli>(clock::now() - c0).count());
      l.history = true;  // the newest page of history, from the node's store
      const auto h0 = clock::now();
      auto h = lister.call(l);
      hms = std::min(hms, std::chrono::duration<double, std::milli>(clock::now() - h0).count());
      answered = r && r->ok() && h && h->ok();
    }
    if (answered) samples.push_back({t, rss_mib(o.pid), ms, hms});
    std::printf(
        "t=%.0fs rss=%.1fMiB list=%.2fms history=%.2fms sent=%llu ok=%llu refused=%llu "
        "transport=%llu\n",
        t, rss_mib(o.pid), ms, hms, static_cast<unsigned long long>(sent.load()),
        static_cast<unsigned long long>(ok.load()), static_cast<unsigned long long>(refused.load()),
        static_cast<unsigned long long>(transport.load()));
    std::fflush(stdout);
  }
  for (auto& t : clients)
    t.join();

  std::vector<sample_point> steady;
  for (const auto& s : samples)
    if (s.t >= o.warmup) steady.push_back(s);
  if (steady.size() < 6) {
    std::printf("FAIL: only %zu samples after the warm-up\n", steady.size());
    return 1;
  }
  const double mib_per_min = slope(steady) * 60;
  const std::size_t third = steady.size() / 3;
  std::vector<double> first, last;
  for (std::size_t i = 0; i < third; ++i) {
    first.push_back(steady[i].list_ms);
    last.push_back(steady[steady.size() - 1 - i].list_ms);
  }
  const double growth = median(last) / std::max(median(first), 0.001);
  std::vector<double> first_h, last_h;
  for (std::size_t i = 0; i < third; ++i) {
    first_h.push_back(steady[i].history_ms);
    last_h.push_back(steady[steady.size() - 1 - i].history_ms);
  }
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  std::printf(
      "soak: %.0f s, %llu requests (%.0f/s), %llu reserved, %llu refused, %llu transport "
      "errors; RSS slope %.2f MiB/min (bound %.2f) from %.1f to %.1f MiB; list latency median "
      "%.2f ms -> %.2f ms (x%.2f, bound x%.2f)\n",
      elapsed, static_cast<unsigned long long>(sent.load()), sent.load() / elapsed,
      static_cast<unsigned long long>(ok.load()), static_cast<unsigned long long>(refused.load()),
      static_cast<unsigned long long>(transport.load()), mib_per_min, o.max_rss_slope,
      steady.front().rss_mib, steady.back().rss_mib, median(first), median(last), growth,
      o.max_latency_growth);
  std::printf("soak: a page of history median %.2f ms -> %.2f ms\n", median(first_h),
              median(last_h));
  std::printf("soak: reserve %s\n", percentiles(reserve_ms).c_str());
  std::printf("soak: cancel %s\n", percentiles(cancel_ms).c_str());
  if (o.idle > 0) {  // what the node burns once nobody asks anything
    const double c0 = cpu_seconds(o.pid);
    std::this_thread::sleep_for(std::chrono::duration<double>(o.idle));
    const double c1 = cpu_seconds(o.pid);
    std::printf("soak: idle CPU %.2f %% of a core over %.0f s after the load\n",
                100 * (c1 - c0) / o.idle, o.idle);
  }
  bool good = true;
  if (transport.load() > 0) {
    std::printf("FAIL: %llu transport errors (last: %s)\n",
                static_cast<unsigned long long>(transport.load()), last_error.c_str());
    good = false;
  }
  if (ok.load() == 0) {
    std::printf("FAIL: no reservation was granted\n");
    good = false;
  }
  if (mib_per_min > o.max_rss_slope) {
    std::printf("FAIL: memory grows %.2f MiB/min\n", mib_per_min);
    good = false;
  }
  if (growth > o.max_latency_growth && median(last) - median(first) > o.latency_floor_ms) {
    std::printf("FAIL: list latency grew x%.2f\n", growth);
    good = false;
  }
  return good ? 0 : 1;
}

}  // namespace
}  // namespace arbroker

int main(int argc, char** argv) {
  CLI::App app{"arb-soak: steady load on a running arbd, watching its memory and list latency"};
  arbroker::options o;
  app.add_option("--server", o.server, "arbd's API host:port")->capture_default_str();
  app.add_option("--pid", o.pid, "arbd's process id (its RSS is read from /proc)")->required();
  app.add_option("--user", o.user, "user")->required();
  app.add_option("--token", o.token, "token")->envname("ARB_TOKEN");
  app.add_option("--ca", o.ca, "TLS: CA of the node's certificate");
  app.add_option("--rate", o.rate, "requests/s in all")->check(CLI::Range(1.0, 100000.0));
  app.add_option("--connections", o.connections, "client connections")->check(CLI::Range(1, 1024));
  app.add_option("--warmup", o.warmup, "seconds before measuring")->check(CLI::Range(0.0, 3600.0));
  app.add_option("--duration", o.duration, "seconds measured")->check(CLI::Range(10.0, 86400.0));
  app.add_option("--sample", o.sample, "seconds between samples")->check(CLI::Range(0.5, 600.0));
  app.add_option("--max-rss-slope", o.max_rss_slope, "MiB/min")->capture_default_str();
  app.add_option("--max-latency-growth", o.max_latency_growth,
                 "last third's median list latency over the first third's")
      ->capture_default_str();
  app.add_option("--latency-floor-ms", o.latency_floor_ms,
                 "latency growth smaller than this is ignored (sub-millisecond noise)")
      ->capture_default_str();
  app.add_option("--probes", o.probes, "list calls per sample, the fastest kept")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--idle", o.idle, "afterwards, seconds to measure the node's idle CPU (0: no)")
      ->check(CLI::Range(0.0, 3600.0));
  CLI11_PARSE(app, argc, argv);
  return arbroker::run(o);
}
