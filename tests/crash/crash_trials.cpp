// arb-crash-trials: kills a real arbd with SIGKILL at random points under load, restarts it
// on the same data directory and checks what a broker node promises after a crash:
//   - every reservation a client was told is committed is still there, with the same terms
//     (and every acknowledged cancel stays cancelled);
//   - no hold survives the restart, and the LRMS holds exactly the live committed
//     reservations (no orphan, none missing), so nothing is committed twice;
//   - no reservation id appears twice, and no cluster is overbooked by reservations;
//   - grid jobs of every strategy: none acknowledged is lost, none runs twice (at most one
//     copy of a job in any LRMS), no copy the node no longer counts as live is left in a
//     queue, no job of a client is in an LRMS without being a live copy of a grid job, and a
//     `reserve` job cancelled (or failed before its job ran) leaves no live reservation.
// With --agent, the clusters are behind an arb-agent (remote/README.md): trials kill -9 the
// agent and the broker node in turn, under load, and check the same promises through the
// broker, except that a hold may outlive a crash until its expiry (never past it). The
// agent's clusters are simulated (their LRMS dies with the agent, so no grid jobs), or, with
// --agent-clusters, those of a TOML file (real batch systems, which outlive the agent: grid
// jobs too).
// With --lease, two arbd share the PostgreSQL --store, one serving and one waiting as a
// standby (docs/operations.md, "Two nodes, one store"): each trial kills the leader (kill -9)
// or pauses it (SIGSTOP) under load; the standby must take over and answer, the same promises
// must hold on it, and a paused leader, continued, must step down (exit 75). The killed one is
// started again, as the next standby. Each trial prints the time from the kill to the new
// leader's first answer to a client that knows both nodes.
// Exit code 0 when every trial passed; each violation is printed.

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "../../apps/arb-stress/audit.hpp"
#include "arbroker/api/client.hpp"
#include "arbroker/core/grid_job.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/speedup.hpp"
#include "daemon_process.hpp"

namespace arbroker {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

struct options {
  std::string arbd;
  std::string dir;
  int trials = 10;
  int clients = 6;
  int ops_per_client = 300;
  unsigned seed = 1;
  std::string config;     // arbd --config ("" = the demo grid)
  std::string store;      // arbd --store ("" = the SQLite file in the data directory)
  int np_max = 16;        // largest request (co-reservation parts: half of it)
  bool clean_up = false;  // cancel everything at the end and check the LRMS is empty
  std::vector<std::string> users{"alice", "bob"};  // tokens "<user>-secret"
  std::string agent;           // arb-agent: the clusters behind it, killed in turn with arbd
  std::string agent_clusters;  // their [[cluster]] sections ("" = three simulated ones)
  bool grid = true;            // grid jobs among the requests
  int lease = 0;               // > 0: two arbd on --store with this lease term, failovers
};

// arbd on a port the OS chose, its data in the trials' directory (`name`: of one of several
// nodes on one store; then it may start as a standby).
daemon_process start_arbd(const options& o, const std::string& name = "") {
  std::vector<std::string> args{
      o.arbd,   "--data-dir", o.dir + "/data" + name, "--listen", "127.0.0.1:0", "--metrics", "",
      "--http", "",           "--log-level",          "warn"};
  if (o.lease > 0) {
    args.push_back("--lease");
    args.push_back(std::to_string(o.lease));
  }
  if (!o.config.empty()) {
    args.push_back("--config");
    args.push_back(o.config);
  }
  if (!o.store.empty()) {
    args.push_back("--store");
    args.push_back(o.store);
  }
  return daemon_process::spawn(std::move(args), o.lease > 0);
}

std::int64_t wall_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What clients were told. A reservation is "acked" once its success reply arrived.
struct ledger {
  std::mutex mu;
  std::map<std::string, msg::reservation_info> committed;  // id -> terms
  std::set<std::string> cancelled;                         // acknowledged cancels
  std::set<std::string> cancel_sent;                       // asked, maybe not answered
  // Requests answered with a failure, by the length of the window they asked for (unique per
  // request): no reservation may exist with it (the client was told there is none).
  std::map<std::int64_t, std::string> refused;
  std::map<std::string, int> failure_codes;        // how requests failed, for the log
  std::map<std::string, grid_strategy> grid_jobs;  // acknowledged grid jobs
  std::set<std::string> grid_cancelled;            // acknowledged grid cancels
  std::vector<std::pair<std::string, std::string>>
      grid_after;  // (parent, child) submitted together
  // The healing paths the grid jobs took (by their histories), for the log: a trial shows
  // only what it exercised.
  std::map<std::string, std::set<std::string>> grid_paths;
  // Progress, for choosing the crash point: replies received, clients that stopped.
  std::condition_variable progress;
  std::size_t replies = 0;
  int clients_done = 0;

  void replied() {
    {
      std::lock_guard lock{mu};
      ++replies;
    }
    progress.notify_all();
  }
  void refuse(std::int64_t window, const api::response& rep) {
    std::lock_guard lock{mu};
    const auto code = std::string(to_string(static_cast<errc>(rep.code)));
    ++failure_codes[code];
    // storage_failure says the outcome is not known (a leader whose store was taken over
    // under it): like a lost reply, it promises nothing either way.
    if (static_cast<errc>(rep.code) == errc::storage_failure) return;
    refused[window] = code + ": " + rep.message;
  }
};

// Tells the ledger when a client stops, however it stops.
struct client_done {
  ledger& led;
  ~client_done() {
    {
      std::lock_guard lock{led.mu};
      ++led.clients_done;
    }
    led.progress.notify_all();
  }
};

// A window length of its own for each request (8 h and a number of seconds no other request
// has), so that a reservation names the request that made it (its window_end - window_start).
std::int64_t unique_window() {
  static std::atomic<std::int64_t> next{0};
  return 8 * 3600 + ++next;
}

msg::elastic_request elastic(std::mt19937& rng, std::int64_t now, int np_max) {
  std::uniform_int_distribution<int> hours(1, 72), np_pick(0, 2), minutes(20, 120);
  const int np = std::max(1, std::array{np_max / 4, np_max / 2, np_max}[np_pick(rng)]);
  msg::elastic_request r;
  r.est = now + hours(rng) * 3600;
  r.let = r.est + unique_window();
  r.np_min = r.np_max = r.np_ref = np;
  r.dur_ref = minutes(rng) * 60;
  r.pp_ref = 1500;
  r.prefer = *parse_preferences("end,cost");
  return r;
}

msg::coreservation_request coreservation(std::mt19937& rng, std::int64_t now, int np_max) {
  std::uniform_int_distribution<int> hours(1, 72);
  msg::coreservation_request r;
  r.est = now + hours(rng) * 3600;
  r.let = r.est + unique_window();
  for (int i = 0; i < 2; ++i) {
    msg::coreservation_component c;
    c.np_min = c.np_max = c.np_ref = std::max(1, np_max / 2);
    c.dur_ref = 3600;
    c.pp_ref = 1500;
    r.components.push_back(c);
  }
  return r;
}

msg::grid_submit_request grid_job(std::mt19937& rng, int np_max) {
  msg::grid_submit_request r;
  r.strategy = static_cast<grid_strategy>(std::uniform_int_distribution<int>(0, 3)(rng));
  r.np = std::uniform_int_distribution<int>(1, std::max(1, np_max / 2))(rng);
  r.walltime = std::uniform_int_distribution<int>(2, 10)(rng) * 60;
  r.width = 2;
  // Half the reserve jobs fall back to a flood when no cluster grants a hold (issue 35).
  r.fallback_flood = r.strategy == grid_strategy::reserve && (rng() & 1);
  r.name = "crash";
  r.command = "sleep 60";
  return r;
}

void client_loop(std::uint16_t port, const std::string& user, unsigned seed, int ops, int np_max,
                 bool grid, ledger& led, const std::atomic<bool>& dead) {
  client_done done{led};
  api::client c{{milliseconds(5000)}};
  if (!c.connect("127.0.0.1", port, user, user + "-secret")) return;
  std::mt19937 rng(seed);
  std::vector<std::string> mine;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (int i = 0; i < ops && !dead; ++i) {
    const int what = std::uniform_int_distribution<int>(0, grid ? 12 : 9)(rng);
    if (what == 12) {
      // Two jobs in one request, the second waiting for the first to complete.
      msg::grid_submit_many_request many{user, {grid_job(rng, np_max), grid_job(rng, np_max)}};
      many.jobs[0].name = "first";
      many.jobs[1].name = "then";
      many.jobs[1].after = {"first"};
      auto rep = c.call(many);
      if (!rep) return;
      led.replied();
      if (auto* b = std::get_if<msg::grid_submit_many_reply>(&rep->body); b && rep->ok()) {
        std::lock_guard lock{led.mu};
        for (const auto& j : b->jobs)
          led.grid_jobs[j.id] = j.strategy;
        led.grid_after.emplace_back(b->jobs.at(0).id, b->jobs.at(1).id);
      }
      continue;
    }
    if (what >= 10) {
      // Grid jobs: submit one, or cancel one of ours.
      std::string victim;
      {
        std::lock_guard lock{led.mu};
        for (const auto& [id, s] : led.grid_jobs)
          if (what == 11 && !led.grid_cancelled.count(id) && id.size() % 3 == seed % 3) victim = id;
      }
      auto rep = victim.empty() ? c.call(grid_job(rng, np_max))
                                : c.call(msg::grid_cancel_request{user, victim});
      if (!rep) return;
      led.replied();
      if (auto* b = std::get_if<msg::grid_job_reply>(&rep->body); b && rep->ok()) {
        std::lock_guard lock{led.mu};
        if (victim.empty())
          led.grid_jobs[b->job.id] = b->job.strategy;
        else
          led.grid_cancelled.insert(victim);
      }
      continue;
    }
    if (what < 6) {
      const auto req = elastic(rng, now, np_max);
      auto rep = c.call(req);
      if (!rep) return;  // the daemon is gone
      led.replied();
      if (auto* b = std::get_if<msg::elastic_reply>(&rep->body); b && rep->ok()) {
        std::lock_guard lock{led.mu};
        led.committed[b->reservation.id] = b->reservation;
        mine.push_back(b->reservation.id);
      } else {
        led.refuse(req.let - req.est, *rep);
      }
    } else if (what < 9) {
      const auto req = coreservation(rng, now, np_max);
      auto rep = c.call(req);
      if (!rep) return;
      led.replied();
      if (auto* b = std::get_if<msg::coreservation_reply>(&rep->body); b && rep->ok()) {
        std::lock_guard lock{led.mu};
        for (const auto& p : b->parts) {
          led.committed[p.id] = p;
          mine.push_back(p.id);
        }
      } else {
        led.refuse(req.let - req.est, *rep);
      }
    } else if (!mine.empty()) {
      const std::string id = mine.back();
      mine.pop_back();
      {
        std::lock_guard lock{led.mu};
        led.cancel_sent.insert(id);
      }
      auto rep = c.call(msg::cancel_request{user, id});
      if (!rep) return;
      led.replied();
      if (rep->ok()) {
        std::lock_guard lock{led.mu};
        led.cancelled.insert(id);
      }
    }
  }
}

// The grid-job promises against a restarted daemon; empty when they hold.
std::vector<std::string> audit_grid(api::client& admin, ledger& led,
                                    const std::set<std::string>& users) {
  std::vector<std::string> bad;
  auto listed = admin.call(msg::grid_list_request{"", "", ""});
  if (!listed || !listed->ok()) return {"grid list failed"};
  auto jobs = std::get<msg::grid_list_reply>(listed->body).jobs;
  // The list has the jobs in the node's memory: after a restart, the active ones. An ended
  // job is in the store's history: shown by id.
  {
    std::set<std::string> in_list;
    for (const auto& j : jobs)
      in_list.insert(j.id);
    std::vector<std::string> ended;
    {
      std::lock_guard lock{led.mu};
      for (const auto& [id, strategy] : led.grid_jobs)
        if (!in_list.count(id)) ended.push_back(id);
    }
    for (const auto& id : ended)
      if (auto q = admin.call(msg::grid_query_request{"", id}); q && q->ok())
        jobs.push_back(std::get<msg::grid_job_reply>(q->body).job);
  }
  std::map<std::string, const msg::grid_job_info*> by_id;
  for (const auto& j : jobs)
    by_id.emplace(j.id, &j);  // twice: grid_violations says so
  {
    std::lock_guard lock{led.mu};
    for (const auto& j : jobs)
      for (const auto& h : j.history)
        for (const char* path : {"fallback_flood", "moved to reservation", "resubmission "})
          if (h.what.find(path) != std::string::npos) led.grid_paths[path].insert(j.id);
  }
  {
    std::lock_guard lock{led.mu};
    for (const auto& [id, strategy] : led.grid_jobs) {
      auto it = by_id.find(id);
      if (it != by_id.end() && led.grid_cancelled.count(id) &&
          it->second->state != grid_job_state::cancelled)
        bad.push_back("acknowledged grid cancel undone: " + id);
    }
  }
  // A reserve job cancelled, or failed before its job was in its reservation, holds no
  // reservation any more: its release is written with the cancel and survives a crash.
  auto live_list = admin.call(msg::list_request{"", false, 0, ""});
  if (!live_list || !live_list->ok()) return {"list failed"};
  std::set<std::string> live_reservations;
  for (const auto& r : std::get<msg::list_reply>(live_list->body).reservations)
    if (r.state == reservation_state::committed || r.state == reservation_state::active)
      live_reservations.insert(r.id);
  for (const auto& j : jobs) {
    const bool ended_without_its_job = j.state == grid_job_state::cancelled ||
                                       (j.state == grid_job_state::failed && j.copies.empty());
    if (j.strategy == grid_strategy::reserve && ended_without_its_job &&
        live_reservations.count(j.reservation))
      bad.push_back(j.id + " is " + std::string(to_string(j.state)) + " but its reservation " +
                    j.reservation + " is still live");
  }
  auto status = admin.call(api::status_request{});
  if (!status || !status->ok()) return {"status failed"};
  std::set<std::string> acknowledged;
  {
    std::lock_guard lock{led.mu};
    for (const auto& [id, strategy] : led.grid_jobs)
      acknowledged.insert(id);
  }
  auto more = stress::grid_violations(jobs, std::get<api::status_reply>(status->body).clusters,
                                      acknowledged, users);
  bad.insert(bad.end(), more.begin(), more.end());
  // A job that waits for another runs only once that one completed, after its end; when it
  // ended otherwise, never; and once it completed, it does not wait on.
  std::vector<std::pair<std::string, std::string>> pairs;
  {
    std::lock_guard lock{led.mu};
    pairs = led.grid_after;
  }
  for (const auto& [parent_id, child_id] : pairs) {
    auto p = by_id.find(parent_id), c = by_id.find(child_id);
    if (p == by_id.end() || c == by_id.end()) continue;  // lost: said above
    const auto& parent = *p->second;
    const auto& child = *c->second;
    for (const auto& copy : child.copies)
      if (copy.started >= 0 && (parent.state != grid_job_state::completed || parent.ended < 0 ||
                                copy.started < parent.ended))
        bad.push_back(child_id + " started at " + std::to_string(copy.started) + " though " +
                      parent_id + " is " + std::string(to_string(parent.state)) + " (ended " +
                      std::to_string(parent.ended) + ")");
    if (parent.state == grid_job_state::completed && child.state == grid_job_state::pending &&
        child.copies.empty())
      bad.push_back(child_id + " still waits though " + parent_id + " completed");
    if (is_terminal(parent.state) && parent.state != grid_job_state::completed &&
        child.state != grid_job_state::failed && child.state != grid_job_state::cancelled)
      bad.push_back(child_id + " is " + std::string(to_string(child.state)) + " though " +
                    parent_id + " ended " + std::string(to_string(parent.state)));
  }
  return bad;
}

// Checks the promises against a restarted daemon; returns the violations found.
// `restarted_at`: the first second of the node serving now (its holds are its own).
std::vector<std::string> audit(std::uint16_t port, ledger& led,
                               const std::vector<std::string>& o_users, bool behind_agent,
                               std::int64_t restarted_at) {
  api::client admin{{milliseconds(30000)}};
  if (auto w = admin.connect("127.0.0.1", port, "admin", "admin-secret"); !w)
    return {"admin cannot connect: " + w.err().message};
  // Grid jobs: the node settles what happened while it was down in its first rounds (one
  // job-state poll interval); the promises must hold once it has.
  const std::set<std::string> users(o_users.begin(), o_users.end());
  auto grid_bad = audit_grid(admin, led, users);
  for (int i = 0; i < 100 && !grid_bad.empty(); ++i) {
    std::this_thread::sleep_for(milliseconds(200));
    grid_bad = audit_grid(admin, led, users);
  }
  std::vector<std::string> bad = std::move(grid_bad);

  // Every reservation, live or finished: the history comes from the store, by pages.
  std::vector<msg::reservation_info> all;
  for (msg::list_request page{"", true, 1000, ""};;) {
    auto listed = admin.call(page);
    if (!listed || !listed->ok()) return {"list failed"};
    auto& got = std::get<msg::list_reply>(listed->body);
    all.insert(all.end(), got.reservations.begin(), got.reservations.end());
    if (got.next.empty()) break;
    page.before = got.next;
  }
  std::map<std::string, msg::reservation_info> by_id;
  for (const auto& r : all)
    if (!by_id.emplace(r.id, r).second) bad.push_back("id listed twice: " + r.id);

  using rs = reservation_state;
  auto live = [](rs st) { return st == rs::committed || st == rs::active || st == rs::completed; };
  std::lock_guard lock{led.mu};
  // Nothing that its client was told failed: a reservation (or a part) of a refused request
  // is released (a hold expires), wherever its prepare's answer was lost.
  for (const auto& r : all)
    if (auto it = led.refused.find(r.window_end - r.window_start);
        it != led.refused.end() && live(r.state))
      bad.push_back(r.id + " is " + std::string(to_string(r.state)) +
                    " although its client was told '" + it->second + "'");
  for (const auto& [id, want] : led.committed) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      // Behind an agent a finished reservation is in the agent's history, not the broker's:
      // one whose cancel was asked may have left the list (the trials' reservations start
      // hours later, so nothing else finishes).
      if (!(behind_agent && led.cancel_sent.count(id)))
        bad.push_back("acknowledged reservation lost: " + id);
      continue;
    }
    const auto& got = it->second;
    if (got.start != want.start || got.end != want.end || got.np != want.np ||
        got.owner != want.owner)
      bad.push_back("terms changed: " + id);
    const auto st = got.state;
    if (led.cancelled.count(id)) {
      if (st != rs::cancelled && st != rs::terminated)
        bad.push_back("acknowledged cancel undone: " + id);
    } else if (!led.cancel_sent.count(id) && !live(got.state)) {
      bad.push_back("acknowledged reservation " + id + " is " + std::string(to_string(st)));
    }
  }

  auto status = admin.call(api::status_request{});
  if (!status || !status->ok()) return {"status failed"};
  for (const auto& s : std::get<api::status_reply>(status->body).clusters) {
    if (!s.error.ok()) bad.push_back(s.cluster + ": status: " + s.error.message);
    // Holds the node made since (a grid job's next round) are not the old node's.
    if (!behind_agent)
      for (const auto& r : s.reservations)
        if (r.state == reservation_state::accepted && r.created < restarted_at)
          bad.push_back(s.cluster + ": hold " + r.id + " (granted at " + std::to_string(r.created) +
                        ") survived the restart");
    // Behind an agent, a hold outlives a crash of its broker (or is kept in doubt by the
    // agent's recovery) until its expiry; never past it.
    for (const auto& r : s.reservations)
      if (behind_agent && r.state == reservation_state::accepted && r.expiry + 2 < s.now)
        bad.push_back(s.cluster + ": hold " + r.id + " past its expiry (" +
                      std::to_string(s.now - r.expiry) + " s)");
    // The node's names in this LRMS (its own prefix: another node's are not audited here).
    const std::string& prefix = s.name_prefix;
    if (prefix.empty()) bad.push_back(s.cluster + ": no name prefix in the status");
    std::set<std::string> expected, in_lrms;
    std::vector<std::pair<std::int64_t, int>> deltas;  // reservations' CPU steps
    for (const auto& r : s.reservations) {
      expected.insert(prefix + r.id.substr(r.id.find('/') + 1));
      deltas.emplace_back(r.start, r.np);
      deltas.emplace_back(r.end, -r.np);
    }
    for (const auto& r : s.lrms_reservations)
      if (r.id.rfind(prefix, 0) == 0) in_lrms.insert(r.id);
    for (const auto& e : expected)
      if (!in_lrms.count(e)) bad.push_back(s.cluster + ": " + e + " missing in the LRMS");
    for (const auto& e : in_lrms)
      if (!expected.count(e)) bad.push_back(s.cluster + ": LRMS has " + e + " that no one owns");
    std::sort(deltas.begin(), deltas.end());
    int used = 0;
    for (const auto& [t, d] : deltas) {
      used += d;
      if (used > s.cpus) {
        bad.push_back(s.cluster + ": reservations overbook it at " + std::to_string(t));
        break;
      }
    }
  }
  return bad;
}

// --agent: the agent's config (its three clusters, plain text on loopback) and the broker's
// (every cluster at the agent). `port` 0 lets the agent choose.
// The agent's config and the broker's, which reaches the agent's clusters on `port`.
void write_agent_configs(const options& o, unsigned port) {
  std::ofstream a(o.dir + "/agent.toml");
  a << "[node]\nname = \"crash-agent\"\naudit = false\ndata_dir = \"" << o.dir << "/agent-data\"\n"
    << "[agent]\nlisten = \"127.0.0.1:" << port << "\"\nallow_plaintext = true\n"
    << "brokers = [\"crash-broker\"]\n";
  std::vector<std::string> names;
  if (o.agent_clusters.empty()) {
    for (auto [name, cpus] : {std::pair{"c1", 32}, std::pair{"c2", 16}, std::pair{"c3", 64}}) {
      a << "[[cluster]]\nname = \"" << name << "\"\ncpus = " << cpus << "\npp = 1500\n";
      names.push_back(name);
    }
  } else {
    std::ifstream in(o.agent_clusters);
    a << in.rdbuf() << "\n";
    const auto parsed = toml::parse_file(o.agent_clusters);  // throws on a bad file
    if (const auto* list = parsed["cluster"].as_array())
      for (const auto& c : *list)
        if (const auto* t = c.as_table()) names.push_back((*t)["name"].value_or(std::string()));
  }
  std::ofstream b(o.dir + "/broker.toml");
  b << "[node]\nname = \"crash-broker\"\nallow_plaintext = true\naudit = false\n"
    << "[broker]\nprepare_expiry = \"5s\"\nhold = \"5s\"\n"
    << "[remote]\nallow_plaintext = true\ncall_timeout = 3\nheartbeat = 0.2\nsilence = 1\n";
  for (const auto& u : o.users)
    b << "[[user]]\nname = \"" << u << "\"\ntoken = \"" << u << "-secret\"\n";
  b << "[[user]]\nname = \"admin\"\ntoken = \"admin-secret\"\nadmin = true\n";
  for (const auto& c : names)
    b << "[[cluster]]\nname = \"" << c << "\"\nagent = \"127.0.0.1:" << port << "\"\n";
}

daemon_process start_agent(const options& o) {
  return daemon_process::spawn({o.agent, "--config", o.dir + "/agent.toml", "--log-level", "warn"});
}

// Behind an agent, the broker reaches every cluster again after a crash of either (the link
// is remade with backoff): asks the status until every cluster answers, at most 30 s.
void wait_for_the_agent(std::uint16_t port) {
  api::client admin{{milliseconds(10000)}};
  if (!admin.connect("127.0.0.1", port, "admin", "admin-secret")) return;
  for (int i = 0; i < 150; ++i) {
    auto st = admin.call(api::status_request{});
    if (st && st->ok()) {
      const auto& all = std::get<api::status_reply>(st->body).clusters;
      if (std::all_of(all.begin(), all.end(), [](const auto& c) { return c.error.ok(); })) return;
    }
    std::this_thread::sleep_for(milliseconds(200));  // another process reconnecting
  }
}

// --lease: the leader killed (or paused) and the standby serving in its place; the killed one
// started again as the next standby. Returns the seconds from the kill to the first answer of
// the new leader to a client that knows both nodes (-1: none), and adds what went wrong.
// `standby` is empty afterwards when the old leader did not start again.
double fail_over(const options& o, daemon_process& leader, std::string& leader_name,
                 std::optional<daemon_process>& standby_slot, std::string& standby_name, bool pause,
                 std::vector<std::string>& bad) {
  auto& standby = *standby_slot;
  const auto killed = std::chrono::steady_clock::now();
  if (pause)
    leader.pause();  // stopped before the probe says hello (else it may answer the hello)
  else
    leader.kill9();
  api::client probe{{milliseconds(10000)}};
  double seconds = -1;
  auto w = probe.connect_any({{"127.0.0.1", leader.port}, {"127.0.0.1", standby.port}}, "admin",
                             "admin-secret", milliseconds(60000));
  if (!w) {
    bad.push_back("no node answers after the leader's " + std::string(pause ? "pause" : "kill") +
                  ": " + w.err().message);
  } else if (auto st = probe.call(api::status_request{}); !st || !st->ok()) {
    bad.push_back("the new leader's first status failed: " +
                  (st ? std::string(to_string(static_cast<errc>(st->code))) + ": " + st->message
                      : st.err().message));
  } else {
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  }
  if (!standby.wait_ready()) bad.push_back("the standby ended instead of serving");
  if (pause)
    if (const int rc = leader.resume_and_wait(); rc != 75)
      bad.push_back("the paused leader, continued, exited with " + std::to_string(rc) +
                    " (75: stepped down)");
  std::swap(leader_name, standby_name);
  leader = standby;
  standby_slot.reset();
  try {
    standby_slot = start_arbd(o, standby_name);
    if (standby_slot->serving) bad.push_back("the restarted node serves beside the new leader");
  } catch (const std::exception& e) {
    bad.push_back(std::string("the old leader did not start again as the standby: ") + e.what());
  }
  return seconds;
}

int run(options o) {
  fs::remove_all(o.dir);
  fs::create_directories(o.dir);
  std::mt19937 rng(o.seed);
  ledger led;
  int failures = 0;
  std::optional<daemon_process> agent;
  if (!o.agent.empty()) {
    write_agent_configs(o, 0);
    agent = start_agent(o);
    write_agent_configs(o, agent->port);  // the same port after every restart
    o.config = o.dir + "/broker.toml";
    // A simulated LRMS forgets its queue with its agent: grid jobs only on real ones.
    o.grid = !o.agent_clusters.empty();
  }
  // With a lease: the first node serves, the second waits as its standby.
  std::string d_name = o.lease > 0 ? "-a" : "", standby_name = "-b";
  auto d = start_arbd(o, d_name);
  std::optional<daemon_process> standby;
  std::vector<double> failover_seconds;
  if (o.lease > 0) {
    try {
      if (!d.wait_ready()) throw std::runtime_error("the first node did not serve");
      standby = start_arbd(o, standby_name);
      if (standby->serving) throw std::runtime_error("two nodes serve one store");
    } catch (...) {
      d.kill9();  // not left behind holding the test's output open
      if (standby) standby->kill9();
      throw;
    }
  }
  if (agent) wait_for_the_agent(d.port);
  // A trial that cannot go on (a node that does not start again) ends the series, not the
  // clean-up: what the trials left in a shared LRMS is still cancelled below.
  try {
    for (int trial = 1; trial <= o.trials; ++trial) {
      std::atomic<bool> dead{false};
      std::size_t replies_before;
      {
        std::lock_guard lock{led.mu};
        led.clients_done = 0;
        replies_before = led.replies;
      }
      std::vector<std::thread> clients;
      for (int c = 0; c < o.clients; ++c)
        clients.emplace_back(client_loop, d.port,
                             o.users[static_cast<std::size_t>(c) % o.users.size()],
                             static_cast<unsigned>(rng()), o.ops_per_client, o.np_max, o.grid,
                             std::ref(led), std::cref(dead));
      // The crash point: after a random number of replies, while the other clients' requests
      // are in flight (or once every client has finished, if that comes first).
      const int kill_after = std::uniform_int_distribution<int>(1, 400)(rng);
      {
        std::unique_lock lock{led.mu};
        led.progress.wait(lock, [&] {
          return led.replies >= replies_before + static_cast<std::size_t>(kill_after) ||
                 led.clients_done == o.clients;
        });
      }
      // The agent and the broker in turn; with a lease the agent, the leader killed and the
      // leader paused.
      const int turns = agent && o.lease > 0 ? 3 : 2;
      const bool agent_dies = agent && trial % turns == 1;
      std::string who = agent_dies ? "the agent" : "arbd";
      std::vector<std::string> bad;
      if (agent_dies) {
        agent->kill9();
      } else if (o.lease > 0) {
        const bool pause = trial % turns == 0;  // kill -9 and SIGSTOP in turn
        who = pause ? "the leader (SIGSTOP)" : "the leader (kill -9)";
        const auto seconds = fail_over(o, d, d_name, standby, standby_name, pause, bad);
        if (seconds >= 0) failover_seconds.push_back(seconds);
        char after[64];
        std::snprintf(after, sizeof after, ", the standby answered after %.2f s", seconds);
        who += after;
      } else {
        d.kill9();
      }
      // Every hold granted before the kill was granted at this second or before; every hold
      // of the node serving next, after it (a standby takes over seconds later; a restart
      // waits for the next second below). The audit tells them apart by that.
      const std::int64_t killed_at = wall_seconds();
      dead = true;
      for (auto& t : clients)
        t.join();
      if (agent_dies) {
        agent = start_agent(o);
      } else if (o.lease == 0) {
        // Not a wait for anything: the restarted node's holds must bear a later second than
        // the killed one's.
        std::this_thread::sleep_until(
            std::chrono::system_clock::time_point{std::chrono::seconds(killed_at + 1)});
        d = start_arbd(o);
      }
      if (agent) wait_for_the_agent(d.port);
      auto more = audit(d.port, led, o.users, agent.has_value(), killed_at + 1);
      bad.insert(bad.end(), more.begin(), more.end());
      std::size_t acked, grid;
      {
        std::lock_guard lock{led.mu};
        acked = led.committed.size();
        grid = led.grid_jobs.size();
      }
      std::string failed;  // "busy 12, unreachable 3"
      {
        std::lock_guard lock{led.mu};
        for (const auto& [code, n] : led.failure_codes)
          failed += (failed.empty() ? "" : ", ") + code + " " + std::to_string(n);
      }
      std::printf(
          "trial %d: %s killed after %d replies; %zu reservations and %zu grid jobs acknowledged "
          "so far, failures (%s); %s\n",
          trial, who.c_str(), kill_after, acked, grid, failed.empty() ? "none" : failed.c_str(),
          bad.empty() ? "ok" : "VIOLATIONS");
      for (const auto& b : bad)
        std::printf("  %s\n", b.c_str());
      failures += !bad.empty();
      std::fflush(stdout);
      if (o.lease > 0 && !standby) throw std::runtime_error("no standby left for the next trial");
    }
  } catch (const std::exception& e) {
    std::printf("trials stopped: %s\n", e.what());
    ++failures;
  }
  if (o.clean_up) {
    // Leave a shared LRMS as it was: cancel everything, then nothing of ours may be left.
    api::client admin{{milliseconds(30000)}};
    if (auto w = admin.connect("127.0.0.1", d.port, "admin", "admin-secret"); !w) {
      std::printf("clean-up: the node does not answer (%s): what the trials made is left\n",
                  w.err().message.c_str());
      ++failures;
    } else {
      if (auto g = admin.call(msg::grid_list_request{"", "", ""}); g && g->ok())
        for (const auto& j : std::get<msg::grid_list_reply>(g->body).jobs)
          if (!is_terminal(j.state)) (void)admin.call(msg::grid_cancel_request{"", j.id});
      // A cancelled grid job's copies are cancelled in their LRMSs after the reply: wait
      // (bounded) until no copy is live any more, so that the node is not stopped with a
      // cancel still on its way (that left a queued copy behind in Slurm for the next test).
      std::string live;  // "<job> <state>: copy <i> on <cluster> <lrms id> <state>; ..."
      auto copies_live = [&admin, &live] {
        live.clear();
        auto g = admin.call(msg::grid_list_request{"", "", ""});
        if (!g || !g->ok()) return true;
        for (const auto& j : std::get<msg::grid_list_reply>(g->body).jobs)
          for (std::size_t i = 0; i < j.copies.size(); ++i) {
            const auto& c = j.copies[i];
            if (c.state == copy_state::submitting || c.state == copy_state::queued ||
                c.state == copy_state::running)
              live += j.id + " " + std::string(to_string(j.state)) + ": copy " + std::to_string(i) +
                      " on " + c.cluster + " " + c.lrms_id + " " + std::string(to_string(c.state)) +
                      "; ";
          }
        return !live.empty();
      };
      for (int i = 0; i < 150 && copies_live(); ++i)
        std::this_thread::sleep_for(milliseconds(200));  // the LRMS's cancels, not ours
      if (copies_live()) {
        std::printf("clean-up: grid-job copies still live after their cancel: %s\n", live.c_str());
        ++failures;
      }
      if (auto l = admin.call(msg::list_request{""}); l && l->ok())
        for (const auto& r : std::get<msg::list_reply>(l->body).reservations)
          (void)admin.call(msg::cancel_request{r.owner, r.id});
      if (auto st = admin.call(api::status_request{}); st && st->ok())
        for (const auto& s : std::get<api::status_reply>(st->body).clusters)
          for (const auto& r : s.lrms_reservations)
            if (!s.name_prefix.empty() && r.id.rfind(s.name_prefix, 0) == 0) {
              std::printf("clean-up: %s still holds %s\n", s.cluster.c_str(), r.id.c_str());
              ++failures;
            }
      // No job of the trials' users may be left in an LRMS either.
      const std::set<std::string> users(o.users.begin(), o.users.end());
      if (auto st = admin.call(api::status_request{}); st && st->ok())
        for (const auto& s : std::get<api::status_reply>(st->body).clusters)
          for (const auto* list : {&s.lrms_queued, &s.lrms_running, &s.lrms_running_bound})
            for (const auto& j : *list)
              if (users.count(j.owner)) {
                std::printf("clean-up: %s still has job %s of %s\n", s.cluster.c_str(),
                            j.id.c_str(), j.owner.c_str());
                ++failures;
              }
    }
  }
  const int rc = d.terminate();
  if (rc != 0) {
    std::printf("graceful stop: arbd exited with %d\n", rc);
    ++failures;
  }
  if (standby) {
    if (const int src = standby->terminate(); src != 0) {
      std::printf("graceful stop: the standby arbd exited with %d\n", src);
      ++failures;
    }
  }
  if (!failover_seconds.empty()) {
    auto sorted = failover_seconds;
    std::sort(sorted.begin(), sorted.end());
    std::printf(
        "failover (kill to the new leader's first answer): median %.2f s, %.2f-%.2f s, "
        "%zu failovers, lease term %d s\n",
        sorted[sorted.size() / 2], sorted.front(), sorted.back(), sorted.size(), o.lease);
  }
  if (agent) {
    if (const int arc = agent->terminate(); arc != 0) {
      std::printf("graceful stop: arb-agent exited with %d\n", arc);
      ++failures;
    }
  }
  for (const auto& [path, ids] : led.grid_paths)
    std::printf("grid jobs whose history says '%s': %zu\n", path.c_str(), ids.size());
  std::printf("%d of %d trials failed\n", failures, o.trials);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace arbroker

int main(int argc, char** argv) {
  CLI::App app{"arb-crash-trials: kill -9 arbd under load, restart, check the promises"};
  arbroker::options o;
  app.add_option("--arbd", o.arbd, "path of the arbd executable")->required();
  app.add_option("--dir", o.dir, "scratch directory (wiped first)")->required();
  app.add_option("--trials", o.trials, "kill/restart cycles");
  app.add_option("--clients", o.clients, "concurrent clients");
  app.add_option("--ops", o.ops_per_client, "requests per client and trial at most");
  app.add_option("--seed", o.seed, "random seed (kill points, requests)");
  app.add_option("--config", o.config, "arbd configuration (default: the demo grid)");
  app.add_option("--store", o.store,
                 "arbd's store: an empty PostgreSQL database or schema (default: the SQLite file "
                 "in the data directory)");
  app.add_option("--np-max", o.np_max, "largest CPU count requested");
  app.add_option("--lease", o.lease,
                 "two arbd on the PostgreSQL --store with this lease term (s): each trial kills "
                 "or pauses the leader and the standby takes over");
  app.add_flag("--clean-up", o.clean_up, "cancel everything at the end; check the LRMS is empty");
  app.add_option("--agent", o.agent,
                 "arb-agent executable: the clusters behind it, killed in turn with arbd");
  app.add_option("--agent-clusters", o.agent_clusters,
                 "with --agent: a TOML file of the agent's [[cluster]] sections (real batch "
                 "systems: grid jobs too)");
  app.add_option("--users", o.users,
                 "client users (token: <user>-secret); a real LRMS needs real accounts")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  if (o.lease > 0 && o.store.empty()) {
    std::fprintf(stderr, "arb-crash-trials: --lease needs --store (a PostgreSQL database)\n");
    return 2;
  }
  try {
    return arbroker::run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arb-crash-trials: %s\n", e.what());
    return 2;
  }
}
