// arb-agent: a site's cluster services next to their batch systems, served to broker nodes in
// other processes (remote/README.md). It is a node (store, recovery, cluster services) whose
// config has an [agent] section and no API of its own: brokers reach its clusters over the
// agent protocol (mutual TLS), and it stops on SIGTERM or SIGINT. See docs/config.md and
// docs/operations.md ("One agent per site").

#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <optional>

#include "arbroker/node/node.hpp"
#include "audit_log.hpp"
#include "version.hpp"

namespace arbroker {
namespace {

struct options {
  std::string config;
  node_config_overrides over;  ///< from --data-dir, --log-level, --adopt
  std::string ready_file;
  bool check = false;
};

int run(const options& o) {
  auto cfg = with_overrides(load_node_config(o.config), o.over);
  if (!cfg) {
    spdlog::error("config: {}", cfg.err().message);
    return 2;
  }
  if (!cfg->agent) {
    spdlog::error("config: {}: an agent needs an [agent] section (listen, certificates, brokers)",
                  o.config);
    return 2;
  }
  for (const auto& c : cfg->clusters)
    if (c.kind == cluster_kind::remote) {
      spdlog::error("config: cluster '{}': an agent serves its own clusters, not an agent's",
                    c.info.name);
      return 2;
    }
  const auto& a = *cfg->agent;
  if (o.check) {
    std::printf(
        "configuration ok: agent %s, %zu clusters, listen %s (%s), brokers %zu, data_dir %s\n",
        (a.name.empty() ? cfg->name : a.name).c_str(), cfg->clusters.size(), a.listen.c_str(),
        a.certificate.empty() ? "plain text" : "mutual TLS", a.brokers.size(),
        cfg->data_dir.empty() ? "(none)" : cfg->data_dir.c_str());
    return 0;
  }
  spdlog::set_level(spdlog::level::from_str(cfg->log_level));
  node_hooks hooks;
  // The agent owns the capacity: its audit trail has every change of its reservations, made
  // by whichever broker (brokers log their clients' requests, not the agent's changes).
  if (cfg->audit) {
    install_audit_trail();  // no API of its own: no requests, no logins
    hooks.reservation_changed = audit_reservation;
  }
  hooks.remote_event = [](const std::string& what) { spdlog::info("event=agent {}", what); };
  auto n = node::start(*cfg, hooks);
  if (!n) {
    spdlog::error("start: {}", to_string(n.err()));
    return 3;
  }
  const auto& rc = (*n)->recovery().clusters;
  spdlog::info(
      "event=started agent={} listen={} port={} clusters={} restored={} recreated={} lost={} "
      "aborted_holds={} kept_holds={} orphans={} adopted={} node_id={} version={}",
      a.name.empty() ? cfg->name : a.name, a.listen, (*n)->agent_port(), cfg->clusters.size(),
      rc.restored, rc.recreated, rc.lost, rc.aborted_holds, rc.kept_holds, rc.orphans, rc.adopted,
      (*n)->config().id, build_version());
  if (!o.ready_file.empty()) std::ofstream(o.ready_file) << "ready\n";
  // For scripts that let it choose its port: "ready <agent port>" on stdout.
  std::printf("ready %u\n", static_cast<unsigned>((*n)->agent_port()));
  std::fflush(stdout);
  int sig = 0;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  sigwait(&s, &sig);
  spdlog::info("event=stopping signal={}", sig == SIGTERM ? "TERM" : "INT");
  n->reset();
  spdlog::info("event=stopped");
  return 0;
}

}  // namespace
}  // namespace arbroker

int main(int argc, char** argv) {
  // Blocked before any thread starts, taken by sigwait() in run().
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a closed stdout fails a write, it does not end the agent
  arbroker::options o;
  std::string data_dir, log_level;
  CLI::App app{"arb-agent: cluster services served to arbroker broker nodes"};
  app.add_option("-c,--config", o.config, "agent configuration (TOML, with [agent])")->required();
  auto* d = app.add_option("--data-dir", data_dir, "data directory, \"\" = keep nothing");
  auto* l = app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off");
  app.add_option("--ready-file", o.ready_file, "written once the agent serves");
  app.add_flag("--check", o.check, "check the configuration and exit");
  app.add_flag("--adopt", o.over.adopt,
               "take over reservations under this agent's LRMS names that it did not make");
  app.set_version_flag("--version", arbroker::build_version());
  CLI11_PARSE(app, argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("arb-agent"));  // stdout: the ready line
  if (*d) o.over.data_dir = data_dir;
  if (*l) o.over.log_level = log_level;
  return arbroker::run(o);
}
