// arbd: the arbroker broker node. Reads a TOML config (or starts the embedded default: a
// simulated grid on loopback), recovers its store, serves the network API and /metrics,
// and shuts down gracefully on SIGTERM or SIGINT. See docs/config.md and docs/protocol.md.

#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "arbroker/api/http_server.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/token_hash.hpp"
#include "arbroker/metrics/process_collector.hpp"
#include "arbroker/metrics/scrape_endpoint.hpp"
#include "arbroker/node/node.hpp"
#include "arbroker/store/backup.hpp"
#include "arbroker/store/store.hpp"
#include "audit_log.hpp"
#include "console_files.hpp"
#include "late_handler.hpp"
#include "lease_holder.hpp"
#include "log_file.hpp"
#include "node_handler.hpp"
#include "node_metrics.hpp"
#include "version.hpp"

namespace arbroker {
namespace {

struct options {
  std::string config;
  node_config_overrides
      over;  ///< from --listen, --metrics, --http, --data-dir, --log-level, --adopt
  std::string ready_file;
  std::string log_file;     ///< "" = stderr
  std::string backup;       ///< copy the store here and stop ("" = serve)
  bool check = false;       ///< check the configuration and stop
  bool hash_token = false;  ///< print the hash of the token on stdin and stop
  int poll_seconds = 5;
};

// The log file, when there is one: reopened on SIGHUP.
std::shared_ptr<reopenable_file_sink> log_file_sink;

// The signals arbd stops on are blocked in every thread (set before any thread starts) and
// taken by sigwait() in main: no handler runs at an arbitrary point.
// TERM and INT stop the node; HUP reloads its users and tokens.
sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGHUP);
  return s;
}

// The users' credentials for the API server; a token_hash libsodium cannot read is an error.
result<api::token_table> tokens_of(const node_config& cfg) {
  api::token_table t;
  for (std::size_t i = 0; i < cfg.users.size(); ++i) {
    const auto& u = cfg.users[i];
    if (!u.token_hash.empty() && !api::is_token_hash(u.token_hash))
      return fail(errc::invalid_parameter, "user[" + std::to_string(i) +
                                               "].token_hash: not an argon2id hash libsodium " +
                                               "can read (make one with `arbd --hash-token`)");
    t[u.name] = {u.token, u.admin, u.token_hash};
  }
  return t;
}

// arbd --hash-token: the argon2id hash of the token on stdin (never on the command line,
// where ps and the shell's history would show it), for a [[user]]'s token_hash.
int hash_token_from_stdin() {
  std::string token;
  std::getline(std::cin, token);
  if (!token.empty() && token.back() == '\r') token.pop_back();
  if (token.size() < 8) {
    std::fprintf(stderr, "arbd: --hash-token: give a token of at least 8 characters on stdin\n");
    return 2;
  }
  auto h = api::hash_token(token);
  if (!h) {
    std::fprintf(stderr, "arbd: --hash-token: %s\n", h.err().message.c_str());
    return 4;
  }
  std::printf("%s\n", h->c_str());
  return 0;
}

// SIGHUP: the config file read again, its users and tokens put in force for new logins; the
// rest of it needs a restart. A file that does not load changes nothing.
void reopen_log_file() {
  if (!log_file_sink) return;
  try {
    log_file_sink->reopen();
  } catch (const std::exception& e) {  // the old file stays in use
    spdlog::error("event=log_reopen_failed error=\"{}\"", e.what());
  }
}

void reload_users(const options& o, api::threaded_server& server) {
  if (o.config.empty()) {
    spdlog::warn("event=reload_skipped reason=\"no --config: the demo grid's users are fixed\"");
    return;
  }
  auto fresh = load_node_config(o.config);
  if (!fresh) {
    spdlog::warn("event=reload_failed config={} error=\"{}\" (the old users stay)", o.config,
                 to_string(fresh.err()));
    return;
  }
  auto tokens = tokens_of(*fresh);
  if (!tokens) {
    spdlog::warn("event=reload_failed config={} error=\"{}\" (the old users stay)", o.config,
                 tokens.err().message);
    return;
  }
  server.set_tokens(std::move(*tokens));
  audit_note("event=reloaded config=" + log_quoted(o.config) +
             " users=" + std::to_string(fresh->users.size()));
}

// Where the node keeps its state, for people: the SQLite file, the PostgreSQL database
// (without its password), or nothing.
std::string store_text(const node_config& cfg) {
  if (!cfg.store.empty()) return redact_uri(cfg.store);
  return cfg.data_dir.empty() ? "(none)" : store_file(cfg);
}

// arbd --backup: an online copy of the node's store (running or not), then exit.
int backup(const node_config& cfg, const std::string& to) {
  if (!cfg.store.empty()) {
    std::fprintf(stderr,
                 "arbd: --backup: this node's store is the PostgreSQL database %s; back it up "
                 "with pg_dump (docs/operations.md, \"Backups\")\n",
                 redact_uri(cfg.store).c_str());
    return 2;
  }
  if (cfg.data_dir.empty()) {
    std::fprintf(stderr, "arbd: --backup: this node keeps nothing (data_dir is empty)\n");
    return 2;
  }
  auto r = backup_store(store_file(cfg), to);
  if (!r) {
    std::fprintf(stderr, "arbd: --backup: %s\n", r.err().message.c_str());
    return 4;
  }
  std::printf(
      "backed up %s to %s: %lld reservations, %lld commit decisions, %lld grid jobs "
      "(%lld pages, integrity ok)\n",
      store_file(cfg).c_str(), to.c_str(), static_cast<long long>(r->reservations),
      static_cast<long long>(r->commit_decisions), static_cast<long long>(r->grid_jobs),
      static_cast<long long>(r->pages));
  return 0;
}

// The node's front ends: the msgpack API, the HTTP API and /metrics (each but the first
// optional).
struct front_ends {
  std::unique_ptr<api::threaded_server> server;
  std::unique_ptr<api::threaded_http_server> http;
  std::unique_ptr<metrics::scrape_endpoint> scrape;
};

// Binds and starts the front ends, which pass requests to `handler` while `role` lets them;
// nothing, with the exit code in `failed`, when one cannot listen.
std::optional<front_ends> listen(const node_config& cfg, const api::tls_context& tls,
                                 std::shared_ptr<api::authenticator> users,
                                 const api::server_events& events,
                                 std::shared_ptr<const api::serving_role> role,
                                 api::request_handler& handler,
                                 std::shared_ptr<prometheus::Registry> reg, int& failed) {
  auto address = [](const std::string& key,
                    const std::string& listen) -> std::optional<boost::asio::ip::tcp::endpoint> {
    auto ep = parse_endpoint(listen);
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(ep->first, ec);
    if (ec) {
      spdlog::error("config: node.{}: '{}' is not an IP address", key, ep->first);
      return std::nullopt;
    }
    return boost::asio::ip::tcp::endpoint{addr, ep->second};
  };
  front_ends f;
  failed = 2;
  api::server_config sc;
  sc.node_name = cfg.name;
  auto api_ep = address("listen", cfg.listen);
  if (!api_ep) return std::nullopt;
  sc.endpoint = *api_ep;
  sc.tls = tls;
  sc.client_cert_is_user = tls && !cfg.tls_client_ca.empty();
  sc.auth = users;
  sc.limits.max_frame = cfg.max_frame_bytes;
  sc.limits.max_in_flight = cfg.max_in_flight;
  sc.limits.max_connections = cfg.max_connections;
  sc.limits.handshake_timeout = std::chrono::seconds(cfg.handshake_timeout);
  sc.events = events;
  sc.role = role;
  failed = 3;
  try {
    f.server = std::make_unique<api::threaded_server>(sc, handler, 1);
  } catch (const std::exception& e) {
    spdlog::error("listen on {}: {}", cfg.listen, e.what());
    return std::nullopt;
  }
  if (!cfg.http_listen.empty()) {
    api::http_server_config hc;
    hc.node_name = cfg.name;
    auto http_ep = address("http", cfg.http_listen);
    if (!http_ep) {
      failed = 2;
      return std::nullopt;
    }
    hc.endpoint = *http_ep;
    hc.tls = tls;
    hc.client_cert_is_user = sc.client_cert_is_user;
    hc.auth = users;
    hc.limits.max_body = cfg.max_frame_bytes;
    hc.limits.max_connections = cfg.max_connections;
    hc.limits.request_timeout = std::chrono::seconds(cfg.handshake_timeout);
    hc.events = events;
    hc.role = role;
    if (cfg.http_metrics)
      hc.metrics = [collectables = std::vector<std::shared_ptr<prometheus::Collectable>>{
                        reg, std::make_shared<metrics::process_collector>()}] {
        return metrics::text_exposition(collectables);
      };
    if (cfg.console)
      for (const auto& file : console_files()) {
        hc.files[std::string(file.path)] = {file.content_type, file.body};
        if (file.path.ends_with("/index.html"))  // the folder's own address is its index
          hc.files[std::string(file.path.substr(0, file.path.size() - 10))] = {file.content_type,
                                                                               file.body};
      }
    try {
      f.http = std::make_unique<api::threaded_http_server>(hc, handler, 1);
    } catch (const std::exception& e) {
      spdlog::error("http on {}: {}", cfg.http_listen, e.what());
      return std::nullopt;
    }
  }
  if (!cfg.metrics_listen.empty()) {
    auto mep = parse_endpoint(cfg.metrics_listen);
    auto started =
        metrics::scrape_endpoint::start({reg, std::make_shared<metrics::process_collector>()},
                                        {.address = mep->first, .port = mep->second});
    if (!started) {
      spdlog::error("metrics on {}: {}", cfg.metrics_listen, started.err().message);
      return std::nullopt;
    }
    f.scrape = std::move(*started);
  }
  failed = 0;
  return f;
}

// Where clients reach a front end, for the lease: as configured, else the address it listens
// on with the port it bound (validate() refused a wildcard address without `advertise`).
std::string advertised(const std::string& configured, const std::string& listen,
                       unsigned short bound_port) {
  if (!configured.empty()) return configured;
  const auto host = parse_endpoint(listen)->first;
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(bound_port);
}

int run(const options& o) {
  auto cfg = with_overrides(
      o.config.empty() ? result<node_config>(default_node_config()) : load_node_config(o.config),
      o.over);
  if (!cfg) {
    spdlog::error("config: {}", cfg.err().message);
    return 2;
  }
  auto tokens = tokens_of(*cfg);  // checked here (--check too), served below
  if (!tokens) {
    spdlog::error("config: {}", tokens.err().message);
    return 2;
  }
  if (auto t = check_api_transport(*cfg); !t) {
    spdlog::error("config: {}", t.err().message);
    return 2;
  }
  api::tls_context tls;
  if (!cfg->tls_certificate.empty()) {
    auto made =
        api::make_server_tls({cfg->tls_certificate, cfg->tls_private_key, cfg->tls_client_ca});
    if (!made) {
      spdlog::error("config: {}", made.err().message);
      return 2;
    }
    tls = std::move(*made);
  }
  if (o.check) {
    std::printf(
        "configuration ok: node %s, %zu clusters, %zu users, %zu broker instance(s), listen %s, "
        "http %s (%s), data_dir %s, durability %s, store %s\n",
        cfg->name.c_str(), cfg->clusters.size(), cfg->users.size(), broker_instances(*cfg).size(),
        cfg->listen.c_str(), cfg->http_listen.empty() ? "off" : cfg->http_listen.c_str(),
        !tls                         ? "plain text"
        : cfg->tls_client_ca.empty() ? "TLS"
                                     : "TLS with client certificates",
        cfg->data_dir.empty() ? "(none)" : cfg->data_dir.c_str(), cfg->durability.c_str(),
        store_text(*cfg).c_str());
    return 0;
  }
  if (!o.backup.empty()) return backup(*cfg, o.backup);
  spdlog::set_level(spdlog::level::from_str(cfg->log_level));
  if (o.config.empty())
    spdlog::warn(
        "no --config: starting the embedded demo grid with the documented demo tokens "
        "(alice-secret, bob-secret, admin-secret); loopback only");

  // The audit trail and the metrics first: the engine tells them every reservation change
  // and every LRMS call from its start (recovery included).
  api::server_events events;
  node_hooks hooks;
  if (cfg->audit) {
    install_audit_log(events);
    hooks.reservation_changed = audit_reservation;
  }
  auto reg = std::make_shared<prometheus::Registry>();
  node_metrics nm{*reg, build_version()};
  hooks.lrms_observer = [&nm](const std::string& cluster) { return nm.lrms_observer(cluster); };
  hooks.remote_event = [](const std::string& what) { spdlog::info("event=remote {}", what); };
  // The front ends listen first: a standby tells clients where the leader is, and a node
  // still recovering that it is starting. The role lets requests through once it serves.
  auto role = std::make_shared<api::serving_role>(cfg->name);
  role->starting();
  late_handler front;
  auto users = std::make_shared<api::authenticator>(std::move(*tokens));  // one for both
  int listen_failed = 0;
  auto fronts = listen(*cfg, tls, users, events, role, front, reg, listen_failed);
  if (!fronts) return listen_failed;
  auto& server = fronts->server;
  auto& http = fronts->http;
  auto& scrape = fronts->scrape;
  const auto bound = server->local_endpoint();
  const int metrics_port = scrape ? scrape->port() : 0;
  const int http_port = http ? http->local_endpoint().port() : 0;
  const std::string ports = std::to_string(bound.port()) + " " + std::to_string(metrics_port) +
                            " " + std::to_string(http_port);

  // Several nodes on one store: this one serves once it holds the store's lease.
  std::unique_ptr<lease_holder> lease;
  if (cfg->lease > 0) {
    const lease_holder::addresses where{
        advertised(cfg->advertise, cfg->listen, bound.port()),
        http ? advertised(cfg->advertise_http, cfg->http_listen, http_port) : std::string()};
    role->standby(std::nullopt);
    spdlog::info("event=standby_listening listen={}:{} http_port={} advertise={} advertise_http={}",
                 bound.address().to_string(), bound.port(), http_port, where.api, where.http);
    // For scripts and tests: where the standby answers (logs go to stderr).
    std::printf("standby %s\n", ports.c_str());
    std::fflush(stdout);
    auto held = lease_holder::acquire(*cfg, where, stop_signals(), *role, &nm);
    if (!held) {
      spdlog::error("start: {}", to_string(held.err()));
      return 3;
    }
    if (!*held) {
      spdlog::info("event=stopped standby");
      return 0;
    }
    lease = std::move(**held);
    cfg->lease_epoch = lease->epoch();
    role->starting();
    spdlog::info("event=leader epoch={} advertise={}", lease->epoch(), where.api);
    // Kept from now on, recovery included. A leader that cannot keep its lease stops at
    // once: another node may take the store a term after its last renewal, and its writes
    // are fenced from then on anyway; so are its changes in the batch systems.
    lease->keep([](const std::string& why) {
      spdlog::critical("event=stepped_down why={}", log_quoted(why));
      // Flushed, not shut down: other threads may be logging this instant, and a shutdown
      // frees the loggers under them.
      spdlog::default_logger()->flush();
      std::_Exit(75);
    });
    hooks.lrms_may_change = [l = lease.get()] { return l->may_change(); };
  }
  auto n = node::start(*cfg, hooks);
  if (!n) {
    spdlog::error("start: {}", to_string(n.err()));
    return 3;
  }
  const auto& rec = (*n)->recovery();
  const auto& rc = rec.clusters;
  spdlog::info(
      "event=recovered data_dir={} store={} decisions={} restored={} recreated={} lost={} "
      "aborted_holds={} completed_holds={} compensated={} orphans={} adopted={} grid_jobs={} "
      "node_id={}",
      cfg->data_dir.empty() ? "(none)" : cfg->data_dir, log_quoted(store_text(*cfg)),
      rec.commit_decisions, rc.restored, rc.recreated, rc.lost, rc.aborted_holds,
      rc.completed_holds, rc.compensated, rc.orphans, rc.adopted, rec.grid_jobs, (*n)->config().id);
  if (rc.adopted > 0)
    spdlog::warn("event=adopted count={}: reservations another node made, now this node's",
                 rc.adopted);
  if (rc.lost > 0)
    spdlog::warn("event=lost count={}: committed reservations no longer in their LRMS", rc.lost);

  node_handler handler{**n, &nm};
  front.set(handler);
  role->serving();
  nm.start_polling(**n, std::chrono::seconds(o.poll_seconds), [&] {
    auto c = server->counters();
    nm.server_counts(c.connections_open, c.handshakes_refused);
    nm.watchers((*n)->watchers());
    audit_refusal_summaries();
  });

  std::string names;
  for (const auto& c : (*n)->clusters())
    names += (names.empty() ? "" : ",") + c.name;
  spdlog::info(
      "event=ready node={} version=\"{}\" listen={}:{} transport={} metrics_port={} http_port={} "
      "clusters={}",
      cfg->name, build_version(), bound.address().to_string(), bound.port(),
      !tls ? "plain" : (cfg->tls_client_ca.empty() ? "tls" : "tls+client_certificates"),
      metrics_port, http_port, names);
  // For scripts and tests: one line on stdout once serving (logs go to stderr).
  std::printf("ready %s\n", ports.c_str());
  std::fflush(stdout);
  if (!o.ready_file.empty()) {
    // Written last and renamed into place: whoever sees the file may connect.
    const std::string tmp = o.ready_file + ".tmp";
    std::ofstream(tmp) << ports << "\n";
    std::rename(tmp.c_str(), o.ready_file.c_str());
  }

  auto sigs = stop_signals();
  int sig = 0;
  while (sigwait(&sigs, &sig) == 0 && sig == SIGHUP) {
    reopen_log_file();
    reload_users(o, *server);
  }
  spdlog::info("event=stopping signal={} in_flight={}", sig == SIGTERM ? "TERM" : "INT",
               (*n)->in_flight());
  // civetweb takes up to 2 s to stop (its listener polls with that timeout): meanwhile.
  std::thread close_scrape([&scrape] { scrape.reset(); });
  const auto grace = std::chrono::seconds(cfg->shutdown_grace);
  std::thread close_http([&http, grace] {
    if (http) http->stop(std::chrono::duration_cast<std::chrono::milliseconds>(grace));
  });
  server->stop(std::chrono::duration_cast<std::chrono::milliseconds>(grace));
  close_http.join();
  nm.stop();  // while the engine still answers the poller's last status request
  audit_refusal_summaries(true);
  const auto left = (*n)->shutdown(cfg->shutdown_grace);
  close_scrape.join();
  if (lease) lease->release();  // after the engine's last write: a standby takes over now
  spdlog::info("event=stopped unanswered={}", left);
  return 0;
}

}  // namespace
}  // namespace arbroker

int main(int argc, char** argv) {
  CLI::App app{"arbd: the arbroker broker node"};
  app.set_version_flag("--version", std::string("arbd, arbroker ") + arbroker::build_version() +
                                        ", protocol " +
                                        std::to_string(arbroker::api::protocol_version));
  arbroker::options o;
  app.add_option("-c,--config", o.config, "node configuration (TOML); none: the demo grid")
      ->check(CLI::ExistingFile);
  std::string listen, metrics, data_dir, log_level;
  auto* l = app.add_option("--listen", listen, "API address host:port (overrides node.listen)");
  auto* m = app.add_option("--metrics", metrics, "/metrics address host:port, \"\" = off");
  std::string http;
  auto* h = app.add_option("--http", http,
                           "HTTP/JSON API address host:port (overrides node.http), \"\" = off");
  auto* d = app.add_option("--data-dir", data_dir, "data directory, \"\" = keep nothing");
  std::string store;
  auto* st = app.add_option("--store", store,
                            "the store in this PostgreSQL database (postgresql://...) instead of "
                            "the data directory's SQLite file (overrides node.store)");
  int lease_seconds = 0;
  auto* le = app.add_option("--lease", lease_seconds,
                            "several nodes on one PostgreSQL store: the term of its lease in "
                            "seconds (overrides node.lease; 0 = no lease)");
  auto* v = app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off");
  app.add_option("--log-file", o.log_file,
                 "append logs (and the audit trail) here instead of stderr; reopened on SIGHUP");
  app.add_option("--ready-file", o.ready_file,
                 "write \"<api port> <metrics port> <http port>\" here once serving (0: off)");
  app.add_flag("--check", o.check,
               "read and check the configuration (as a start would), print a summary, and exit: "
               "0 fine, 2 not");
  app.add_flag("--adopt", o.over.adopt,
               "take over the LRMS reservations under this node's name prefixes that its store "
               "does not know (another node's, or those of a lost store) instead of refusing to "
               "start");
  app.add_option("--backup", o.backup,
                 "copy the store of --data-dir (or the config's) to this new file while the node "
                 "runs or not, check it, and exit");
  app.add_flag("--hash-token", o.hash_token,
               "read a token on stdin, print its argon2id hash for a [[user]]'s token_hash, and "
               "exit");
  app.add_option("--poll", o.poll_seconds, "seconds between cluster status polls for /metrics")
      ->check(CLI::Range(1, 3600));
  CLI11_PARSE(app, argc, argv);
  if (o.hash_token) return arbroker::hash_token_from_stdin();
  if (*l) o.over.listen = listen;
  if (*m) o.over.metrics_listen = metrics;
  if (*h) o.over.http_listen = http;
  if (*d) o.over.data_dir = data_dir;
  if (*st) o.over.store = store;
  if (*le) o.over.lease = lease_seconds;
  if (*v) o.over.log_level = log_level;

  // Before any thread exists, so that every thread inherits the mask.
  auto sigs = arbroker::stop_signals();
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  // A stdout or stderr whose reader is gone (a pipe its starter closed) makes a write fail,
  // not end the daemon: a standby stopped as it takes over prints its ready line then.
  // (Sockets never raise it: Asio, CAF and libpq send without SIGPIPE.)
  signal(SIGPIPE, SIG_IGN);
  if (o.log_file.empty()) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("arbd"));
  } else {
    try {
      arbroker::log_file_sink = std::make_shared<arbroker::reopenable_file_sink>(o.log_file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "arbd: --log-file: %s\n", e.what());
      return 2;
    }
    auto logger = std::make_shared<spdlog::logger>("arbd", arbroker::log_file_sink);
    logger->flush_on(spdlog::level::trace);  // every line reaches the file at once
    spdlog::set_default_logger(logger);
  }
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  return arbroker::run(o);
}
