#include "arbroker/node/node_config.hpp"
#include "arbroker/store/store.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace arbroker {
namespace {

constexpr const char* full = R"(
[node]
name = "zib"
id = "zib1"
listen = "0.0.0.0:7000"
metrics = ""
data_dir = "/var/lib/arbroker"
durability = "normal"
log_level = "debug"
threads = 2

[broker]
esr_threshold = 0.85
hold = "5m"
prepare_expiry = "20s"
request_timeout = "1m"
max_tries = 16
selection_window = 4

[limits]
max_frame_bytes = 65536
max_in_flight = 8
max_connections = 200
handshake_timeout = "3s"
shutdown_grace = "15s"

[grid_jobs]
poll_interval = "20s"
adaptation_interval = "2m"
min_gain = "5m"
max_migrations = 3
migration_share = 0.25
retention = "7d"
max_resubmits = 4
lost_after = "90s"
reserve_finish = "eq7"

[[user]]
name = "alice"
token = "a-long-secret"
vo = "atlas"

[[user]]
name = "ops"
token_hash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
admin = true

[[cluster]]
name = "berlin"
cpus = 64
pp = 1500
bunch = 4
tz_offset = "1h"
base_unit_cost = 1.2
day_rates = [{ from = "0h", to = "6h", factor = 0.5 }]
local_jobs = [{ np = 16, walltime = "2h", runtime = "90m" }]
esr_static_h = "4h"
esr_history_interval = "30m"
retention = "10m"
full_refresh = "5m"
acc_r = 0.5
acc_w = 0.25
max_walltime = "2d"
ljp = "default"
ljp_method = "twkl"
after_jobs = "release"
laxity = true
overrun_quantum = "10m"
overrun_notice = "2m"
overrun_max = 3

[[cluster]]
name = "hpc"
kind = "slurm"
slurm_conf = "/etc/slurm/slurm.conf"
partition = "batch"
name_prefix = "zib-"
)";

TEST(node_config, ReadsEveryKey) {
  if (!find_batch_system("slurm")) GTEST_SKIP() << "this build has no Slurm adapter";
  auto cfg = parse_node_config(full, "node.toml");
  ASSERT_TRUE(cfg) << cfg.err().message;
  EXPECT_EQ(cfg->name, "zib");
  EXPECT_EQ(cfg->listen, "0.0.0.0:7000");
  EXPECT_EQ(cfg->metrics_listen, "");
  EXPECT_EQ(cfg->log_level, "debug");
  EXPECT_EQ(cfg->durability, "normal");
  EXPECT_EQ(node_config{}.durability, "full");  // the default: on disk before any answer
  EXPECT_DOUBLE_EQ(cfg->broker.esr_threshold, 0.85);
  EXPECT_EQ(cfg->broker.hold_seconds, 300);
  EXPECT_EQ(cfg->broker.prepare_expiry, 20);
  EXPECT_EQ(cfg->broker.request_timeout, 60);
  EXPECT_EQ(cfg->broker.max_tries, 16);
  EXPECT_EQ(cfg->broker.selection_window, 4);
  EXPECT_EQ(cfg->max_frame_bytes, 65536u);
  EXPECT_EQ(cfg->max_in_flight, 8u);
  EXPECT_EQ(cfg->max_connections, 200u);
  EXPECT_EQ(cfg->handshake_timeout, 3);
  EXPECT_EQ(cfg->shutdown_grace, 15);
  EXPECT_EQ(cfg->job_poll_interval, 20);
  EXPECT_EQ(cfg->adaptation_interval, 120);
  EXPECT_EQ(cfg->default_min_gain, 300);
  EXPECT_EQ(cfg->default_max_migrations, 3);
  EXPECT_DOUBLE_EQ(cfg->migration_share, 0.25);
  EXPECT_EQ(cfg->default_max_resubmits, 4);
  EXPECT_EQ(cfg->lost_after, 90);
  EXPECT_EQ(node_config{}.default_max_resubmits, 2);
  EXPECT_EQ(node_config{}.lost_after, 300);
  EXPECT_TRUE(cfg->reserve_finish_eq7);
  EXPECT_FALSE(node_config{}.reserve_finish_eq7);
  EXPECT_EQ(cfg->job_retention, 7 * 86400);
  ASSERT_EQ(cfg->users.size(), 2u);
  EXPECT_FALSE(cfg->users[0].admin);
  EXPECT_TRUE(cfg->users[1].admin);
  EXPECT_EQ(cfg->users[0].token, "a-long-secret");
  EXPECT_EQ(cfg->users[1].token, "");
  EXPECT_EQ(cfg->users[0].vo, "atlas");
  EXPECT_EQ(cfg->users[1].vo, "");
  EXPECT_EQ(cfg->users[1].token_hash.rfind("$argon2id$v=19$m=65536,t=2,p=1$c2Fsd", 0), 0u);
  ASSERT_EQ(cfg->clusters.size(), 2u);
  const auto& b = cfg->clusters[0];
  EXPECT_EQ(b.kind, cluster_kind::simulated);
  EXPECT_EQ(b.info.cpus, 64);
  EXPECT_EQ(b.info.tz_offset, 3600);
  ASSERT_EQ(b.local_jobs.size(), 1u);
  EXPECT_EQ(b.local_jobs[0].runtime, 5400);
  EXPECT_EQ(b.esr_static_h, 4 * 3600);
  EXPECT_EQ(b.history_delta, 1800);
  EXPECT_EQ(b.retention, 600);
  EXPECT_EQ(cfg->clusters[1].retention, 30 * 86400);  // the default: 30 days of history
  EXPECT_EQ(b.full_refresh, 300);
  EXPECT_EQ(cfg->clusters[1].full_refresh, 30);  // the default
  EXPECT_DOUBLE_EQ(b.load.acc_r, 0.5);
  EXPECT_DOUBLE_EQ(b.load.acc_w, 0.25);
  EXPECT_EQ(b.info.max_walltime, 2 * 86400);
  EXPECT_EQ(b.ljp, ljp_policy::by_default);
  EXPECT_EQ(b.ljp_check, ljp_method::twkl);
  EXPECT_EQ(b.after_jobs, job_end_policy::release);
  EXPECT_TRUE(b.laxity);
  EXPECT_EQ(b.overrun_quantum, 600);
  EXPECT_EQ(b.overrun_notice, 120);
  EXPECT_EQ(b.overrun_max, 3);
  // 4 CPUs from 01:00 to 02:00 UTC is 02:00-03:00 in Berlin: night rate.
  EXPECT_DOUBLE_EQ(*b.cost.cost(3600, 7200, 4, "x"), 4 * 1.2 * 0.5);
  const auto& h = cfg->clusters[1];
  EXPECT_EQ(h.kind, cluster_kind::batch);
  EXPECT_EQ(h.batch_system, "slurm");
  EXPECT_EQ(h.batch.slurm_conf, "/etc/slurm/slurm.conf");
  EXPECT_EQ(h.batch.partition, "batch");
  EXPECT_EQ(h.name_prefix, "zib-");
  EXPECT_EQ(cfg->id, "zib1");
  EXPECT_EQ(cfg->clusters[0].name_prefix, "");  // the node's own ("arb-<id>-")
  // The defaults: LJP enforced by the vacancy rule, reservations kept for their term.
  EXPECT_EQ(h.ljp, ljp_policy::enforce);
  EXPECT_EQ(h.ljp_check, ljp_method::ese);
  EXPECT_EQ(h.after_jobs, job_end_policy::keep);
  EXPECT_FALSE(h.laxity);
  EXPECT_EQ(h.overrun_quantum, 0);  // overruns are not granted unless the site says so
  EXPECT_EQ(h.overrun_notice, 60);
  EXPECT_EQ(h.overrun_max, 4);
}

void expect_error(const std::string& toml, const std::string& fragment) {
  auto cfg = parse_node_config(toml, "bad.toml");
  ASSERT_FALSE(cfg) << "accepted: " << toml;
  EXPECT_EQ(cfg.err().code, errc::invalid_parameter);
  EXPECT_NE(cfg.err().message.find(fragment), std::string::npos)
      << "message: " << cfg.err().message << "\nexpected to contain: " << fragment;
  EXPECT_EQ(cfg.err().message.rfind("bad.toml", 0), 0u) << cfg.err().message;
}

const std::string one_cluster = "[[cluster]]\nname = \"c\"\ncpus = 8\n";

// [[cluster.nodes]]: the nodes a cluster publishes for jobs' needs (issue 35 item 4).
TEST(node_config, ReadsAClustersNodes) {
  auto cfg = parse_node_config(one_cluster +
                                   "[[cluster.nodes]]\ncount = 1\ncpus = 4\nmemory = 4096\n"
                                   "[[cluster.nodes]]\ncpus = 4\nmemory = \"16G\"\n"
                                   "features = [\"ib\"]\n",
                               "nodes.toml");
  ASSERT_TRUE(cfg) << cfg.err().message;
  const auto& nodes = cfg->clusters.at(0).info.nodes;
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0], (node_group{1, 4, 4096, {}}));
  EXPECT_EQ(nodes[1], (node_group{1, 4, 16384, {"ib"}}));
  const std::string node = "[[cluster.nodes]]\ncpus = 4\n";
  expect_error(one_cluster + node,
               "cluster[0].nodes: count x cpus add up to 4 CPUs, the cluster has 8");
  expect_error(one_cluster + node + "memory = \"lots\"\n",
               "cluster[0].nodes[0].memory: memory 'lots'");
  expect_error(one_cluster + node + "memory = -1\n", "cluster[0].nodes[0].memory: expected MiB");
  expect_error(one_cluster + node + "features = [\"a&b\"]\n", "cluster[0].nodes[0].features");
  expect_error(one_cluster + node + "gpus = 1\n", "cluster[0].nodes[0].gpus: unknown key");
  expect_error(one_cluster + "[[cluster.nodes]]\ncount = 8\n", "cluster[0].nodes[0].cpus: missing");
  expect_error(one_cluster + "nodes = 3\n", "cluster[0].nodes: expected");
}

TEST(node_config, RejectsMistakesNamingTheKey) {
  expect_error("[node]\nlisten = \"localhost\"\n" + one_cluster, "node.listen");
  expect_error("[node]\nlisten = \"h:70000\"\n" + one_cluster, "node.listen");
  expect_error("[node]\nlog_level = \"loud\"\n" + one_cluster, "node.log_level");
  expect_error("[node]\nthreds = 2\n" + one_cluster, "node.threds: unknown key");
  expect_error("[broker]\nhold = \"soon\"\n" + one_cluster, "broker.hold");
  expect_error("[[user]]\nname = \"a\"\ntoken = \"short\"\n" + one_cluster, "user[0].token");
  // A ':' would let a user name pass for a broker's scope at an agent (broker_scope.hpp).
  expect_error("[[user]]\nname = \"broker1:\"\ntoken = \"long-enough-token\"\n" + one_cluster,
               "user[0].name: 'broker1:' is not a user name");
  expect_error(
      "[[user]]\nname = \"a\"\ntoken = \"12345678\"\n[[user]]\nname = \"a\"\ntoken = "
      "\"12345678\"\n" +
          one_cluster,
      "user[1].name: 'a' appears twice");
  expect_error("[[user]]\nname = \"a\"\n" + one_cluster, "user[0]: needs token or token_hash");
  expect_error(
      "[[user]]\nname = \"a\"\ntoken = \"12345678\"\ntoken_hash = \"$argon2id$x\"\n" + one_cluster,
      "user[0]: give token or token_hash, not both");
  expect_error("[[user]]\nname = \"a\"\ntoken_hash = \"12345678\"\n" + one_cluster,
               "user[0].token_hash: must be an argon2id hash");
  expect_error("", "at least one cluster");
  expect_error(one_cluster + one_cluster, "cluster[1].name: 'c' appears twice");
  expect_error("[[cluster]]\nname = \"a/b\"\ncpus = 8\n", "cluster[0].name");
  expect_error("[[cluster]]\nname = \"a\"\ncpus = \"many\"\n",
               "cluster[0].cpus: expected an integer");
  expect_error("[[cluster]]\nname = \"a\"\n", "cluster[0].cpus: missing");
  expect_error("[[cluster]]\nname = \"a\"\nkind = \"pbs\"\n",
               "cluster[0].kind: 'pbs' is not one of simulated, slurm, gridengine");
  if (find_batch_system("slurm"))
    expect_error("[[cluster]]\nname = \"a\"\nkind = \"slurm\"\n", "cluster[0].slurm_conf");
  else  // a build without libslurm says so, and how to get it (tests/demo checks it live)
    expect_error("[[cluster]]\nname = \"a\"\nkind = \"slurm\"\n",
                 "cluster[0].kind: 'slurm' is not in this build of arbroker; it needs libslurm");
  expect_error(
      "[[cluster]]\nname = \"a\"\ncpus = 8\nlocal_jobs = [{ np = 9, walltime = \"1h\" }]\n",
      "cluster[0].local_jobs[0].np");
  expect_error("[node\nname = \"x\"\n", "bad.toml:1");
  expect_error(one_cluster + "acc_r = -0.5\n", "cluster[0].acc_r");
  expect_error(one_cluster + "max_walltime = \"-1h\"\n", "cluster[0].max_walltime");
  expect_error(one_cluster + "esr_static_h = \"0s\"\n", "cluster[0].esr_static_h");
  expect_error(one_cluster + "ljp = \"sometimes\"\n", "cluster[0].ljp: 'sometimes' is not one of");
  expect_error(one_cluster + "ljp_method = \"guess\"\n", "cluster[0].ljp_method");
  expect_error("[broker]\nselection_window = -1\n" + one_cluster, "broker.selection_window");
  expect_error(one_cluster + "after_jobs = \"drop\"\n", "cluster[0].after_jobs");
  expect_error(one_cluster + "laxity = \"yes\"\n", "cluster[0].laxity");
  expect_error("[node]\nid = \"Node 1\"\n" + one_cluster, "node.id: must be 1-16 lowercase");
  expect_error("[node]\nid = \"\"\n" + one_cluster, "node.id: must not be empty");
  expect_error("[[user]]\nname = \"a\"\ntoken = \"long-enough-token\"\nvo = \"\"\n" + one_cluster,
               "user[0].vo: must not be empty");
  expect_error(one_cluster + "name_prefix = \"\"\n", "cluster[0].name_prefix: must not be empty");
  expect_error(one_cluster + "name_prefix = \"a b\"\n", "cluster[0].name_prefix: must be at most");
  expect_error(one_cluster + "overrun_quantum = \"-5m\"\n", "cluster[0].overrun_quantum");
  expect_error(one_cluster + "overrun_notice = \"0s\"\n", "cluster[0].overrun_notice");
  expect_error(one_cluster + "overrun_max = -1\n", "cluster[0].overrun_max");
  expect_error(one_cluster + "retention = \"-1m\"\n", "cluster[0].retention");
  expect_error(one_cluster + "full_refresh = \"-1s\"\n", "cluster[0].full_refresh");
  expect_error("[node]\naudit = \"loud\"\n" + one_cluster, "node.audit");
  expect_error("[node]\ndurability = \"fast\"\n" + one_cluster,
               "node.durability: 'fast' is not one of full, normal");
  expect_error(one_cluster + "esr_history_interval = \"0s\"\n", "cluster[0].esr_history_interval");
  expect_error("[limits]\nmax_connections = 0\n" + one_cluster, "limits.max_connections");
  for (const char* share : {"0", "1.5", "-0.1"})
    expect_error("[grid_jobs]\nmigration_share = " + std::string(share) + "\n" + one_cluster,
                 "grid_jobs.migration_share: must be a share above 0 and at most 1");
  expect_error("[grid_jobs]\nmax_migrations = -2\n" + one_cluster, "grid_jobs.max_migrations");
  expect_error("[grid_jobs]\nmax_resubmits = 101\n" + one_cluster,
               "grid_jobs.max_resubmits: must be between 0 and 100");
  expect_error("[grid_jobs]\nlost_after = \"-1s\"\n" + one_cluster, "grid_jobs.lost_after");
  expect_error("[grid_jobs]\nreserve_finish = \"soon\"\n" + one_cluster,
               "grid_jobs.reserve_finish: 'soon' is not one of run, eq7");
}

// Several nodes on one store: where clients reach this one (told to them by the standbys)
// must be an address they can use, not a wildcard one or port 0.
TEST(node_config, ANodeOnALeaseNeedsAnAddressClientsCanReach) {
  if (!postgresql_store_built()) GTEST_SKIP() << "built without libpq: no lease";
  const std::string ha = "[node]\nstore = \"postgresql://arb@db/arb\"\nlease = 6\n";
  expect_error(ha + "listen = \"0.0.0.0:7400\"\n" + one_cluster,
               "node.advertise: node.listen '0.0.0.0:7400' is a wildcard address");
  expect_error(ha + "http = \"[::]:7480\"\n" + one_cluster,
               "node.advertise_http: node.http '[::]:7480' is a wildcard address");
  expect_error(ha + "advertise = \"a.example.org:0\"\n" + one_cluster, "node.advertise");
  auto ok = parse_node_config(ha +
                                  "listen = \"0.0.0.0:7400\"\nadvertise = \"a.example.org:7400\"\n"
                                  "http = \"0.0.0.0:7480\"\nadvertise_http = "
                                  "\"a.example.org:7480\"\n" +
                                  one_cluster,
                              "t.toml");
  ASSERT_TRUE(ok) << ok.err().message;
  EXPECT_EQ(ok->advertise, "a.example.org:7400");
  EXPECT_EQ(ok->advertise_http, "a.example.org:7480");
  // Without a lease nobody is told: a wildcard address is the operator's business.
  EXPECT_TRUE(parse_node_config("[node]\nlisten = \"0.0.0.0:7400\"\n" + one_cluster, "t.toml"));
}

TEST(node_config, TheApiNeedsTlsOrPlainTextAllowedOnLoopback) {
  const auto load = [](const std::string& text) {
    auto cfg = parse_node_config(text + one_cluster, "t.toml");
    EXPECT_TRUE(cfg) << to_string(cfg.err());
    return cfg ? check_api_transport(*cfg) : status(cfg.err());
  };
  auto none = load("");
  ASSERT_FALSE(none);
  EXPECT_NE(none.err().message.find("allow_plaintext"), std::string::npos);
  EXPECT_TRUE(load("[node]\nallow_plaintext = true\n"));
  EXPECT_TRUE(load("[node]\nallow_plaintext = true\nlisten = \"[::1]:7400\"\n"));
  EXPECT_TRUE(load("[node]\nallow_plaintext = true\nlisten = \"127.0.0.2:7400\"\n"));
  auto wide = load("[node]\nallow_plaintext = true\nlisten = \"0.0.0.0:7400\"\n");
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.err().message.find("loopback only, not on '0.0.0.0'"), std::string::npos)
      << wide.err().message;
  EXPECT_FALSE(load("[node]\nallow_plaintext = true\nlisten = \"10.1.2.3:7400\"\n"));
  // The HTTP API is held to the same rule.
  EXPECT_TRUE(load("[node]\nallow_plaintext = true\nhttp = \"127.0.0.1:7480\"\n"));
  auto http = load("[node]\nallow_plaintext = true\nhttp = \"0.0.0.0:7480\"\n");
  ASSERT_FALSE(http);
  EXPECT_NE(http.err().message.find("not on '0.0.0.0'"), std::string::npos);
  expect_error("[node]\nhttp = \"nowhere\"\n" + one_cluster, "node.http");
  // With TLS anywhere goes (the files are read when arbd starts).
  auto tls = parse_node_config(
      "[node]\nlisten = \"0.0.0.0:7400\"\n[tls]\ncertificate = \"/etc/a.pem\"\n"
      "private_key = \"/etc/a.key\"\nclient_ca = \"/etc/ca.pem\"\n" +
          one_cluster,
      "t.toml");
  ASSERT_TRUE(tls) << to_string(tls.err());
  EXPECT_EQ(tls->tls_certificate, "/etc/a.pem");
  EXPECT_EQ(tls->tls_private_key, "/etc/a.key");
  EXPECT_EQ(tls->tls_client_ca, "/etc/ca.pem");
  EXPECT_TRUE(check_api_transport(*tls));
  expect_error("[tls]\ncertificate = \"/etc/a.pem\"\n" + one_cluster,
               "tls: needs certificate and private_key");
  expect_error("[tls]\ncert = \"/etc/a.pem\"\n" + one_cluster, "tls.cert: unknown key");
  EXPECT_TRUE(check_api_transport(default_node_config()));
}

// The example (what scripts/install.sh installs) is refused until its placeholder tokens are
// replaced, naming the first; then it is valid.
TEST(node_config, TheShippedExampleIsValidOnceItsTokensAreSet) {
  auto as_shipped = load_node_config(ARB_SOURCE_DIR "/configs/node/example.toml");
  ASSERT_FALSE(as_shipped);
  EXPECT_NE(as_shipped.err().message.find(
                "'change-me-alice-0001' is the example's placeholder: set a secret of your own"),
            std::string::npos)
      << as_shipped.err().message;
  std::ifstream f(ARB_SOURCE_DIR "/configs/node/example.toml");
  std::stringstream text;
  text << f.rdbuf();
  auto edited = text.str();
  for (std::size_t at; (at = edited.find("change-me")) != std::string::npos;)
    edited.replace(at, 9, "a-real-secret");
  auto cfg = parse_node_config(edited, "example.toml");
  ASSERT_TRUE(cfg) << cfg.err().message;
  EXPECT_EQ(cfg->clusters.size(), 2u);
  EXPECT_EQ(cfg->users.size(), 2u);
}

TEST(node_config, TheMultiNodeDemoIsValid) {
  for (const char* name : {"agent1", "agent2"}) {
    auto cfg =
        load_node_config(std::string(ARB_SOURCE_DIR "/configs/multi-node/") + name + ".toml");
    ASSERT_TRUE(cfg) << cfg.err().message;
    ASSERT_TRUE(cfg->agent);
    EXPECT_EQ(cfg->agent->brokers, (std::vector<std::string>{"broker1", "broker2"}));
  }
  for (const char* name : {"broker1", "broker2"}) {
    auto cfg =
        load_node_config(std::string(ARB_SOURCE_DIR "/configs/multi-node/") + name + ".toml");
    ASSERT_TRUE(cfg) << cfg.err().message;
    EXPECT_EQ(cfg->clusters.size(), 3u);
    for (const auto& c : cfg->clusters)
      EXPECT_EQ(c.kind, cluster_kind::remote) << c.info.name;
  }
}

TEST(node_config, TheDefaultIsValidAndSimulated) {
  auto cfg = default_node_config();
  EXPECT_TRUE(validate(cfg));
  EXPECT_EQ(cfg.clusters.size(), 3u);
  for (const auto& c : cfg.clusters)
    EXPECT_EQ(c.kind, cluster_kind::simulated);
  auto ep = parse_endpoint(cfg.listen);
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->first, "127.0.0.1");  // loopback only: the default tokens are public
}

TEST(node_config, EndpointsSplitHostAndPort) {
  auto v6 = parse_endpoint("[::1]:7400");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->first, "::1");
  EXPECT_EQ(v6->second, 7400);
  EXPECT_FALSE(parse_endpoint("host:"));
  EXPECT_FALSE(parse_endpoint(":80"));
  EXPECT_FALSE(parse_endpoint("host:0", false));
  EXPECT_TRUE(parse_endpoint("host:0", true));
}

// [[broker]]: named instances, each with its own defaults; who is served by which.
TEST(node_config, ReadsNamedBrokerInstances) {
  auto cfg = parse_node_config(R"(
[[user]]
name = "bob"
token = "bob-long-secret"
vo = "atlas"

[[broker]]
name = "atlas"
vo = "atlas"
hold = "10m"
max_tries = 8

[[broker]]
name = "ops"
users = ["carol"]
esr_threshold = 0.5

[[broker]]
name = "everyone"
)" + one_cluster,
                               "b.toml");
  ASSERT_TRUE(cfg) << cfg.err().message;
  ASSERT_EQ(cfg->brokers.size(), 3u);
  EXPECT_EQ(cfg->brokers[0].hold_seconds, 600);
  EXPECT_EQ(cfg->brokers[0].max_tries, 8);
  EXPECT_EQ(cfg->brokers[1].users, std::vector<std::string>{"carol"});
  EXPECT_DOUBLE_EQ(cfg->brokers[1].esr_threshold, 0.5);
  EXPECT_EQ(cfg->brokers[2].hold_seconds, 120);  // the defaults
  const auto all = broker_instances(*cfg);
  EXPECT_EQ(instance_for(all, cfg->users, "bob"), 0u);    // by VO
  EXPECT_EQ(instance_for(all, cfg->users, "carol"), 1u);  // listed
  EXPECT_EQ(instance_for(all, cfg->users, "dave"), 2u);   // everyone else
  const broker_routes routes(*cfg);                       // the same answers, worked out once
  EXPECT_EQ(routes.instances().size(), 3u);
  EXPECT_EQ(routes.of("bob"), 0u);
  EXPECT_EQ(routes.of("carol"), 1u);
  EXPECT_EQ(routes.of("dave"), 2u);
  auto two = std::vector<broker_entry>(all.begin(), all.end() - 1);
  EXPECT_FALSE(instance_for(two, cfg->users, "dave"));
  // Without [[broker]]: one "default" instance from [broker], for everyone.
  auto plain = parse_node_config("[broker]\nhold = \"5m\"\n" + one_cluster, "p.toml");
  ASSERT_TRUE(plain);
  ASSERT_EQ(broker_instances(*plain).size(), 1u);
  EXPECT_EQ(broker_instances(*plain)[0].name, "default");
  EXPECT_EQ(broker_instances(*plain)[0].hold_seconds, 300);
  EXPECT_EQ(instance_for(broker_instances(*plain), plain->users, "anyone"), 0u);
}

TEST(node_config, RejectsAmbiguousBrokerInstances) {
  const std::string a = "[[broker]]\nname = \"a\"\n";
  expect_error(a + a + one_cluster, "broker[1].name: 'a' appears twice");
  expect_error(a + "vo = \"x\"\n[[broker]]\nname = \"b\"\nvo = \"x\"\n" + one_cluster,
               "broker[1].vo: VO 'x' is served by another instance already");
  expect_error(a + "users = [\"u\"]\n[[broker]]\nname = \"b\"\nusers = [\"u\"]\n" + one_cluster,
               "broker[1].users: user 'u' is listed by another instance already");
  expect_error(a + "[[broker]]\nname = \"b\"\n" + one_cluster,
               "broker[1]: a second instance without vo or users");
  expect_error(a + "max_tries = 0\n" + one_cluster, "broker[0].max_tries: must be at least 1");
  expect_error(a + "users = [\"\"]\n" + one_cluster, "broker[0].users: names must not be empty");
  expect_error("[[broker]]\nvo = \"x\"\n" + one_cluster, "broker[0].name: missing");
  expect_error(a + "colour = 1\n" + one_cluster, "broker[0].colour: unknown key");
}

TEST(node_config, ReadsAgentsAndRemoteClusters) {
  auto cfg = parse_node_config(R"(
[agent]
listen = "127.0.0.1:7700"
name = "agent1"
certificate = "a.pem"
private_key = "a.key"
broker_ca = "ca.pem"
brokers = ["broker1", "broker2"]
admin_brokers = ["ops.example.org"]
opening = "3s"
silence = "1m"
[remote]
certificate = "b.pem"
private_key = "b.key"
agent_ca = "ca.pem"
call_timeout = 2.5
heartbeat = 0.5
silence = 3
[[cluster]]
name = "local"
cpus = 8
[[cluster]]
name = "far"
agent = "10.0.0.7:7700"
agent_name = "site7"
)",
                               "n.toml");
  ASSERT_TRUE(cfg) << cfg.err().message;
  ASSERT_TRUE(cfg->agent);
  EXPECT_EQ(cfg->agent->listen, "127.0.0.1:7700");
  EXPECT_EQ(cfg->agent->name, "agent1");
  EXPECT_EQ(cfg->agent->broker_ca, "ca.pem");
  EXPECT_EQ(cfg->agent->brokers, (std::vector<std::string>{"broker1", "broker2"}));
  EXPECT_EQ(cfg->agent->admin_brokers, (std::vector<std::string>{"ops.example.org"}));
  EXPECT_EQ(cfg->agent->opening, 3);
  EXPECT_EQ(cfg->agent->silence, 60);
  EXPECT_EQ(cfg->remote.agent_ca, "ca.pem");
  EXPECT_DOUBLE_EQ(cfg->remote.call_timeout, 2.5);
  EXPECT_DOUBLE_EQ(cfg->remote.heartbeat, 0.5);
  ASSERT_EQ(cfg->clusters.size(), 2u);
  EXPECT_EQ(cfg->clusters[0].kind, cluster_kind::simulated);
  EXPECT_EQ(cfg->clusters[1].kind, cluster_kind::remote);
  EXPECT_EQ(cfg->clusters[1].agent, "10.0.0.7:7700");
  EXPECT_EQ(cfg->clusters[1].agent_name, "site7");
  EXPECT_FALSE(parse_node_config(one_cluster, "n.toml")->agent);
}

TEST(node_config, RejectsAgentMistakesNamingTheKey) {
  const std::string remote_tls =
      "[remote]\ncertificate = \"b.pem\"\nprivate_key = \"b.key\"\nagent_ca = \"ca.pem\"\n";
  const std::string far = "[[cluster]]\nname = \"far\"\nagent = \"127.0.0.1:7700\"\n";
  expect_error(far + "agent_name = \"a\"\n", "clusters with an agent need certificate");
  expect_error(remote_tls + far, "cluster[0].agent_name");
  expect_error(
      remote_tls + "[[cluster]]\nname = \"far\"\nagent = \"nowhere\"\nagent_name = \"a\"\n",
      "cluster[0].agent");
  expect_error(remote_tls + far + "agent_name = \"a\"\ncpus = 8\n", "cluster[0].cpus: unknown key");
  expect_error(remote_tls + far + "agent_name = \"a\"\nkind = \"slurm\"\n", "cluster[0].kind");
  expect_error("[remote]\nheartbeat = 2\nsilence = 1\n" + one_cluster, "remote.silence");
  expect_error("[remote]\ncall_timeout = 0\n" + one_cluster, "remote.call_timeout");
  const std::string agent = "[agent]\nlisten = \"127.0.0.1:7700\"\n";
  expect_error(agent + "brokers = [\"b\"]\n" + one_cluster, "agent: needs certificate");
  expect_error(agent + "allow_plaintext = true\n" + one_cluster, "agent.brokers");
  expect_error(agent + "allow_plaintext = true\nbrokers = [\"b\", \"b\"]\n" + one_cluster,
               "agent.brokers");
  expect_error("[agent]\nlisten = \"x\"\nallow_plaintext = true\nbrokers = [\"b\"]\n" + one_cluster,
               "agent.listen");
  expect_error(agent + "brokerz = []\n" + one_cluster, "agent.brokerz: unknown key");
  // Broker names are written into transactions and LRMS job names (broker_scope.hpp).
  expect_error(agent + "allow_plaintext = true\nbrokers = [\"b:1\"]\n" + one_cluster,
               "agent.brokers: 'b:1' cannot name a broker");
  expect_error(agent + "allow_plaintext = true\nadmin_brokers = [\"ops+1\"]\n" + one_cluster,
               "agent.admin_brokers: 'ops+1' cannot name a broker");
}

}  // namespace
}  // namespace arbroker
