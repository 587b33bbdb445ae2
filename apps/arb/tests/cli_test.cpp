#include "cli.hpp"
#include "version.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "arbroker/api/server.hpp"
#include "arbroker/core/time_format.hpp"

namespace arbroker::cli {
namespace {

const timestamp now = utc_timestamp(2026, 11, 22, 12);

/// Parses a command line as `arb` does; the options, or the CLI11 error text.
struct parsed {
  options o;
  std::string error;
};
parsed parse(std::vector<std::string> args) {
  parsed p;
  CLI::App app;
  define(app, p.o);
  args.insert(args.begin(), "arb");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    p.error = e.what();
  }
  return p;
}

api::request_body build(std::vector<std::string> args) {
  auto p = parse(std::move(args));
  EXPECT_EQ(p.error, "");
  auto body = build_request(p.o, now);
  EXPECT_TRUE(body) << (body ? "" : body.err().message);
  return body ? *body : api::request_body{};
}

TEST(cli, reserve_builds_the_elastic_request_of_the_readme) {
  auto body = build(
      {"reserve",     "--est",    "now+1h",   "--let",     "now+12h",  "--np",      "4-32",
       "--dur-ref",   "2h",       "--pp-ref", "1500",      "--np-ref", "8",         "--speedup",
       "amdahl:0.01", "--prefer", "end,cost", "--cluster", "a",        "--cluster", "b"});
  auto& r = std::get<msg::elastic_request>(body);
  EXPECT_EQ(r.mode, msg::request_mode::reserve);
  EXPECT_EQ(r.est, now + 3600);
  EXPECT_EQ(r.let, now + 12 * 3600);
  EXPECT_EQ(r.np_min, 4);
  EXPECT_EQ(r.np_max, 32);
  EXPECT_EQ(r.dur_ref, 7200);
  EXPECT_EQ(r.pp_ref, 1500);
  EXPECT_EQ(r.np_ref, 8);
  EXPECT_EQ(r.speedup.kind, msg::speedup_kind::amdahl);
  EXPECT_DOUBLE_EQ(r.speedup.p1, 0.01);
  EXPECT_EQ(r.prefer, msg::default_preferences());
  EXPECT_EQ(r.clusters, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.user, "");  // the server fills in the caller
}

// Issue 16: "--np 8 --runtime 2h" is 2 hours on 8 CPUs of whichever cluster runs it; the
// reference is left to the node (0 = np_min, each cluster's power), not set to one CPU of
// power 1, which made 1-second reservations.
TEST(cli, runtime_alone_means_that_long_on_the_cpus_asked_for) {
  auto body = build({"reserve", "--let", "now+12h", "--np", "8", "--runtime", "2h"});
  auto& r = std::get<msg::elastic_request>(body);
  EXPECT_EQ(r.dur_ref, 7200);
  EXPECT_EQ(r.np_ref, 0);
  EXPECT_EQ(r.pp_ref, 0);
  auto co = build({"coreserve", "--let", "now+12h", "-c", "np=8;runtime=1h"});
  const auto& part = std::get<msg::coreservation_request>(co).components.at(0);
  EXPECT_EQ(part.dur_ref, 3600);
  EXPECT_EQ(part.np_ref, 0);
  EXPECT_EQ(part.pp_ref, 0);
  auto p = parse({"reserve", "--let", "now+1h", "--np", "4"});
  auto missing = build_request(p.o, now);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find("--runtime"), std::string::npos) << missing.err().message;
}

TEST(cli, hold_and_whatif_set_the_mode) {
  auto hold = std::get<msg::elastic_request>(build({"hold", "--let", "2026-11-23T00:00:00Z", "--np",
                                                    "8", "--dur-ref", "1h", "--hold-for", "10m"}));
  EXPECT_EQ(hold.mode, msg::request_mode::hold);
  EXPECT_EQ(hold.hold_seconds, 600);
  EXPECT_EQ(hold.est, now);
  EXPECT_EQ(hold.let, utc_timestamp(2026, 11, 23));
  auto whatif = std::get<msg::elastic_request>(
      build({"whatif", "--let", "now+1d", "--np", "2", "--dur-ref", "30m"}));
  EXPECT_EQ(whatif.mode, msg::request_mode::whatif);
}

TEST(cli, coreserve_parses_components) {
  auto body = build({"coreserve", "--let", "now+6h", "-c",
                     "np=4-8;dur=2h;np-ref=4;pp-ref=1500;speedup=downey:64:0.5;offset=10m;"
                     "clusters=a,b",
                     "-c", "np=2;dur=30m"});
  auto& r = std::get<msg::coreservation_request>(body);
  ASSERT_EQ(r.components.size(), 2u);
  EXPECT_EQ(r.components[0].np_min, 4);
  EXPECT_EQ(r.components[0].np_max, 8);
  EXPECT_EQ(r.components[0].dur_ref, 7200);
  EXPECT_EQ(r.components[0].offset, 600);
  EXPECT_EQ(r.components[0].speedup.kind, msg::speedup_kind::downey);
  EXPECT_EQ(r.components[0].clusters, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.components[1].np_min, 2);
  EXPECT_EQ(r.components[1].dur_ref, 1800);
}

TEST(cli, every_other_command_builds_its_body) {
  EXPECT_EQ(std::get<api::estimate_request>(build({"estimate", "--np", "8", "--walltime", "2h"}))
                .walltime,
            7200);
  EXPECT_EQ(std::get<msg::commit_request>(build({"commit", "a/1"})).reservation_id, "a/1");
  EXPECT_TRUE(std::get<msg::commit_request>(build({"commit", "a/1"})).jobs.empty());
  EXPECT_EQ(std::get<msg::elastic_request>(build({"hold", "--let", "now+2h", "--np", "2",
                                                  "--dur-ref", "1h", "--account", "physics"}))
                .account,
            "physics");
  // Paper 002's deadline form: the reservation may move within [est, let].
  EXPECT_TRUE(std::get<msg::elastic_request>(build({"reserve", "--let", "now+8h", "--np", "2",
                                                    "--dur-ref", "1h", "--movable"}))
                  .movable);
  EXPECT_FALSE(std::get<msg::elastic_request>(
                   build({"reserve", "--let", "now+8h", "--np", "2", "--dur-ref", "1h"}))
                   .movable);
  auto with_job = std::get<msg::commit_request>(build(
      {"commit", "a/1", "--np", "4", "--walltime", "30m", "--name", "sim", "--command", "run"}));
  ASSERT_EQ(with_job.jobs.size(), 1u);
  EXPECT_EQ(with_job.jobs[0], (msg::job_terms{"sim", 4, 1800, "run"}));
  auto co = std::get<msg::coallocate_request>(build(
      {"coallocate", "a/1", "b/2", "--np", "8,4", "--walltime", "1h", "--command", "mpi.sh"}));
  ASSERT_EQ(co.parts.size(), 2u);
  EXPECT_EQ(co.parts[0].reservation_id, "a/1");
  EXPECT_EQ(co.parts[1].jobs, (std::vector<msg::job_terms>{{"", 4, 3600, "mpi.sh"}}));
  auto co_one_np = std::get<msg::coallocate_request>(
      build({"coallocate", "a/1", "b/2", "c/3", "--np", "2", "--walltime", "10m"}));
  ASSERT_EQ(co_one_np.parts.size(), 3u);
  EXPECT_EQ(co_one_np.parts[2].jobs.at(0).np, 2);
  EXPECT_EQ(std::get<msg::query_request>(build({"show", "a/2"})).reservation_id, "a/2");
  EXPECT_EQ(std::get<msg::cancel_request>(build({"cancel", "a/3"})).reservation_id, "a/3");
  auto m = std::get<msg::modify_request>(
      build({"modify", "a/4", "--start", "now+2h", "--duration", "90m", "--np", "6"}));
  EXPECT_EQ(m.start, now + 7200);
  EXPECT_EQ(m.end, now + 7200 + 5400);
  EXPECT_EQ(m.np, 6);
  auto s = std::get<msg::bind_job_request>(build(
      {"submit", "--reservation", "a/5", "--np", "4", "--walltime", "1h", "--command", "run.sh"}));
  EXPECT_EQ(s.reservation_id, "a/5");
  EXPECT_EQ(s.command, "run.sh");
  // A grid job ranks by the earliest planned start unless --rank sed asks for paper 004's.
  auto g = std::get<msg::grid_submit_request>(build({"submit", "--np", "4", "--walltime", "1h"}));
  EXPECT_EQ(g.ranking, grid_ranking::start);
  g = std::get<msg::grid_submit_request>(
      build({"submit", "--np", "4", "--walltime", "1h", "--rank", "sed"}));
  EXPECT_EQ(g.ranking, grid_ranking::sed);
  auto bad = parse({"submit", "--np", "4", "--walltime", "1h", "--rank", "fastest"});
  auto refused = build_request(bad.o, now);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.err().message.find("'fastest' is not one of start, sed"), std::string::npos)
      << refused.err().message;
  // One job of a reservation (-r), or a grid job (issue 35 item 6).
  EXPECT_EQ(std::get<msg::bound_job_query_request>(build({"job", "show", "J7", "-r", "a/5"})),
            (msg::bound_job_query_request{"", "a/5", "J7"}));
  EXPECT_EQ(std::get<msg::bound_job_cancel_request>(
                build({"job", "cancel", "J7", "--reservation", "a/5"})),
            (msg::bound_job_cancel_request{"", "a/5", "J7"}));
  EXPECT_EQ(std::get<msg::grid_cancel_request>(build({"job", "cancel", "n/g3"})).id, "n/g3");
  // What its nodes need (issue 35 item 4), as Slurm writes memory; into a reservation too.
  g = std::get<msg::grid_submit_request>(
      build({"submit", "--np", "4", "--walltime", "1h", "--mem-per-cpu", "4G", "--feature", "ib",
             "--feature", "ssd", "--os", "linux"}));
  EXPECT_EQ(g.mem_per_cpu, 4096);
  EXPECT_EQ(g.features, (std::vector<std::string>{"ib", "ssd"}));
  EXPECT_EQ(g.os, "linux");
  s = std::get<msg::bind_job_request>(build(
      {"submit", "-r", "a/5", "--np", "4", "--walltime", "1h", "--mem", "16G", "--feature", "ib"}));
  EXPECT_EQ(s.mem_per_node, 16384);
  EXPECT_EQ(s.features, std::vector<std::string>{"ib"});
  for (auto [args, why] :
       {std::pair{std::vector<std::string>{"--mem", "lots"}, "--mem: memory 'lots'"},
        std::pair{std::vector<std::string>{"--mem", "1G", "--mem-per-cpu", "1G"},
                  "--mem: give --mem or --mem-per-cpu, not both"}}) {
    std::vector<std::string> line = {"submit", "--np", "4", "--walltime", "1h"};
    line.insert(line.end(), args.begin(), args.end());
    auto p = parse(line);
    auto r = build_request(p.o, now);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().message.rfind(why, 0), 0u) << r.err().message;
  }
  EXPECT_EQ(std::get<msg::list_request>(build({"--user", "alice", "list"})).user, "alice");
  EXPECT_EQ(std::get<msg::list_request>(build({"--user", "root", "list", "--all"})).user, "");
  EXPECT_EQ(std::get<msg::list_request>(build({"--user", "root", "--for", "bob", "list"})).user,
            "bob");
  EXPECT_EQ(std::get<msg::grid_list_request>(build({"--user", "alice", "jobs"})),
            (msg::grid_list_request{"alice", "", "", false, 0, ""}));
  EXPECT_EQ(std::get<msg::grid_list_request>(build(
                {"--user", "alice", "jobs", "--history", "--limit", "5", "--state", "failed"})),
            (msg::grid_list_request{"alice", "failed", "", true, 5, ""}));
  // The next page: --before alone asks for history.
  EXPECT_EQ(
      std::get<msg::grid_list_request>(build({"--user", "alice", "jobs", "--before", "9:n/g3"})),
      (msg::grid_list_request{"alice", "", "", true, 0, "9:n/g3"}));
  EXPECT_TRUE(std::holds_alternative<api::cluster_list_request>(build({"clusters"})));
  EXPECT_EQ(std::get<api::status_request>(build({"status", "--cluster", "a"})).clusters,
            (std::vector<std::string>{"a"}));
}

// `arb submit-dag FILE`: one grid job per [[job]], top-level keys for every job, values read
// as `arb submit` reads its options; the error names the file, the job and the key.
TEST(cli, a_job_file_becomes_one_request_of_several_jobs) {
  const auto dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    const auto path = dir + name;
    std::ofstream(path) << text;
    return path;
  };
  const auto good = write("arb_jobs.toml", R"(
strategy = "flood"
on-parent-failure = "cancel"
walltime = "1h"
[[job]]
name = "prep"
np = 4
output-size = "20GB"
cluster = ["a", "b"]
[[job]]
name = "simulate"
np = "16"
walltime = 7200
after = ["prep", "n/g3:any"]
mem-per-cpu = "4G"
feature = ["ib"]
locality = false
)");
  auto many = std::get<msg::grid_submit_many_request>(
      build({"--user", "alice", "--for", "bob", "submit-dag", good}));
  EXPECT_EQ(many.user, "bob");
  ASSERT_EQ(many.jobs.size(), 2u);
  const auto& prep = many.jobs[0];
  EXPECT_EQ(prep.name, "prep");
  EXPECT_EQ(prep.user, "");
  EXPECT_EQ(prep.np, 4);
  EXPECT_EQ(prep.walltime, 3600);
  EXPECT_EQ(prep.strategy, grid_strategy::flood);
  EXPECT_EQ(prep.output_bytes, 20'000'000'000);
  EXPECT_EQ(prep.clusters, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(prep.cancel_if_parent_fails);
  EXPECT_TRUE(prep.locality);
  const auto& sim = many.jobs[1];
  EXPECT_EQ(sim.np, 16);
  EXPECT_EQ(sim.walltime, 7200);
  EXPECT_EQ(sim.after, (std::vector<std::string>{"prep", "n/g3:any"}));
  EXPECT_EQ(sim.mem_per_cpu, 4096);
  EXPECT_EQ(sim.features, std::vector<std::string>{"ib"});
  EXPECT_FALSE(sim.locality);
  EXPECT_TRUE(sim.clusters.empty());
  for (auto [text, why] :
       {std::pair{"[[job]]\nname = \"x\"\nnp = 1\nwalltim = \"1h\"\n", "job[0].walltim"},
        std::pair{"np = 1\n", "no [[job]] table"},
        std::pair{"[[job]]\nname = \"x\"\nwalltime = \"1h\"\n", "job[0].np: required"},
        std::pair{"[[job]]\nname = \"x\"\nnp = 1\nwalltime = \"soon\"\n", "job[0] (x): --walltime"},
        std::pair{"[[job]]\nname = \"x\"\nnp = 1\nwalltime = 60\nafter = \"y\"\n",
                  "job[0].after: expected an array of strings"},
        std::pair{"[[job]\n", "arb_bad.toml:1"}}) {
    const auto bad = write("arb_bad.toml", text);
    auto p = parse({"submit-dag", bad});
    ASSERT_EQ(p.error, "");
    auto r = build_request(p.o, now);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.err().message.find(why), std::string::npos) << r.err().message;
    EXPECT_EQ(r.err().message.rfind(bad, 0), 0u) << r.err().message;
  }
  EXPECT_NE(parse({"submit-dag", dir + "arb_no_such_file.toml"}).error, "");
}

TEST(cli, coallocate_needs_one_np_or_one_per_part) {
  auto p = parse({"coallocate", "a/1", "b/2", "c/3", "--np", "8,4", "--walltime", "1h"});
  auto body = build_request(p.o, now);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.err().message.rfind("--np:", 0), 0u) << body.err().message;
}

TEST(cli, bad_values_name_the_option) {
  auto p = parse({"reserve", "--let", "now+1h", "--np", "four", "--dur-ref", "1h"});
  auto body = build_request(p.o, now);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.err().message.rfind("--np:", 0), 0u) << body.err().message;
  p = parse({"reserve", "--let", "tomorrow", "--np", "4", "--dur-ref", "1h"});
  EXPECT_EQ(build_request(p.o, now).err().message.rfind("--let:", 0), 0u);
  p = parse({"reserve", "--let", "now+1h", "--np", "4", "--dur-ref", "1h", "--speedup", "x:1"});
  EXPECT_EQ(build_request(p.o, now).err().message.rfind("--speedup:", 0), 0u);
  p = parse({"coreserve", "--let", "now+1h", "-c", "np=4;bogus=1;dur=1h"});
  EXPECT_NE(build_request(p.o, now).err().message.find("unknown key 'bogus'"), std::string::npos);
  p = parse({"modify", "x", "--start", "now", "--end", "now+1h", "--duration", "1h", "--np", "1"});
  EXPECT_FALSE(build_request(p.o, now));
}

TEST(cli, missing_required_options_are_usage_errors) {
  EXPECT_NE(parse({"reserve", "--np", "4"}).error, "");
  EXPECT_NE(parse({}).error, "");
  EXPECT_NE(parse({"-o", "xml", "clusters"}).error, "");
  EXPECT_NE(parse({"show"}).error, "");
  EXPECT_NE(parse({"status", "--cluster", "a", "b"}).error, "");  // one value per --cluster
}

api::response list_response() {
  msg::list_reply reply;
  reply.reservations.push_back(msg::reservation_info{"a/1", "a", "alice", now, now + 3600, 8,
                                                     reservation_state::committed, 0, 0, 12.5});
  reply.reservations.push_back(msg::reservation_info{"b/22", "b", "alice", now + 60, now + 7200, 16,
                                                     reservation_state::accepted, now + 600, 0, 3});
  return api::response{9, api::operation::list, 0, "", reply};
}

TEST(cli, renders_a_list_as_an_aligned_table) {
  std::string text = render(list_response(), "table");
  std::istringstream lines(text);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header.rfind("ID    CLUSTER  OWNER", 0), 0u) << header;
  EXPECT_NE(first.find("2026-11-22T12:00:00Z"), std::string::npos);
  EXPECT_NE(first.find("committed"), std::string::npos);
  EXPECT_NE(second.find("accepted"), std::string::npos);
  // Columns line up: START begins at the same offset in every line.
  EXPECT_EQ(header.find("START"), first.find("2026-11-22T12:00:00Z"));
  // How long each is held, under DURATION.
  ASSERT_NE(header.find("DURATION"), std::string::npos) << header;
  EXPECT_EQ(first.substr(header.find("DURATION"), 3), "1h ") << first;
}

TEST(cli, renders_json_for_scripts) {
  auto j = nlohmann::json::parse(render(list_response(), "json"));
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["operation"], "list");
  ASSERT_EQ(j["result"]["reservations"].size(), 2u);
  EXPECT_EQ(j["result"]["reservations"][1]["id"], "b/22");
  EXPECT_EQ(j["result"]["reservations"][1]["start"], now + 60);
  EXPECT_EQ(j["result"]["reservations"][1]["state"], "accepted");
  EXPECT_EQ(j["result"]["reservations"][1]["expiry"], now + 600);
  EXPECT_EQ(j["result"]["reservations"][0]["duration"], 3600);

  auto err = api::error_response(3, api::operation::cancel, fail(errc::not_found, "no a/9"));
  auto e = nlohmann::json::parse(render(err, "json"));
  EXPECT_EQ(e["ok"], false);
  EXPECT_EQ(e["error"]["code"], "not_found");
  EXPECT_EQ(e["error"]["message"], "no a/9");
  EXPECT_EQ(render(err, "table"), "error: not_found: no a/9\n");
}

// `arb show`: every field after the row, in the user's terms; unknown ones say so.
TEST(cli, show_tells_every_field) {
  msg::query_reply reply;
  reply.info = msg::reservation_info{
      "a/3", "a", "alice", now + 3600, now + 7200, 8, reservation_state::committed, 0, now - 60, 4};
  reply.info.account = "physics";
  reply.info.created = now - 30;
  reply.info.window_start = now;
  reply.info.window_end = now + 12 * 3600;
  reply.jobs = {"77"};
  std::string text = render(api::response{1, api::operation::query, 0, "", reply}, "table");
  EXPECT_NE(text.find("\ncreated: 2026-11-22T11:59:30Z\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nrequested window: 2026-11-22T12:00:00Z .. 2026-11-23T00:00:00Z (12h)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nadmitted after (local jobs preferred): 2026-11-22T11:59:00Z\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\naccount: physics\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nstatus (paper 001): not started\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\njob: 77\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("held until"), std::string::npos) << text;  // not a hold
  auto j =
      nlohmann::json::parse(render(api::response{1, api::operation::query, 0, "", reply}, "json"));
  EXPECT_EQ(j["result"]["reservation"]["created"], now - 30) << j.dump();
  EXPECT_EQ(j["result"]["reservation"]["window_end"], now + 12 * 3600) << j.dump();
  // Made before the store kept these: said, not invented.
  reply.info.created = reply.info.window_start = reply.info.window_end = 0;
  text = render(api::response{1, api::operation::query, 0, "", reply}, "table");
  EXPECT_NE(text.find("\ncreated: unknown\nrequested window: unknown\n"), std::string::npos)
      << text;
}

TEST(cli, renders_whatif_candidates_ranked) {
  msg::elastic_reply reply;
  reply.ranked.push_back(msg::slot{"a", now, now + 60, 4, 1.5, 0.9, 3});
  reply.ranked.push_back(msg::slot{"b", now + 60, now + 120, 8, 0, 0, 0});
  std::string text = render(api::response{1, api::operation::elastic, 0, "", reply}, "table");
  EXPECT_NE(text.find("RANK"), std::string::npos);
  EXPECT_NE(text.find("1     a"), std::string::npos) << text;
  EXPECT_NE(text.find("DURATION"), std::string::npos) << text;
  auto j = nlohmann::json::parse(
      render(api::response{1, api::operation::elastic, 0, "", reply}, "json"));
  EXPECT_EQ(j["result"]["ranked"][0]["esr"], 0.9);
  EXPECT_FALSE(j["result"]["ranked"][1].contains("cost"));
  EXPECT_EQ(j["result"]["ranked"][1]["duration"], 60);
  // The clusters that offer nothing are named with their reasons, in both forms.
  reply.passed_over = {{"c", msg::wire(errc::infeasible, "has 16 CPUs")}};
  text = render(api::response{1, api::operation::elastic, 0, "", reply}, "table");
  EXPECT_NE(text.find("passed over c: infeasible: has 16 CPUs\n"), std::string::npos) << text;
  j = nlohmann::json::parse(
      render(api::response{1, api::operation::elastic, 0, "", reply}, "json"));
  EXPECT_EQ(j["result"]["passed_over"][0]["cluster"], "c");
  EXPECT_EQ(j["result"]["passed_over"][0]["error"]["message"], "has 16 CPUs");
  // Nothing fits: said, not an empty table.
  reply.ranked.clear();
  reply.earliest_alternative = now + 3600;
  text = render(api::response{1, api::operation::elastic, 0, "", reply}, "table");
  EXPECT_EQ(text.rfind("nothing fits the window on any cluster; earliest alternative start: ", 0),
            0u)
      << text;
  EXPECT_EQ(text.find("RANK"), std::string::npos) << text;
}

TEST(cli, a_hold_says_until_when) {
  msg::elastic_reply reply;
  reply.reservation = msg::reservation_info{
      "a/7", "a", "alice", now, now + 60, 4, reservation_state::accepted, now + 300, 0, 0};
  std::string text = render(api::response{1, api::operation::elastic, 0, "", reply}, "table");
  EXPECT_NE(text.find("held until 2026-11-22T12:05:00Z: `arb commit a/7`"), std::string::npos)
      << text;
}

// status: one row per cluster, with the prefix of the node's reservation names in its LRMS
// (what an operator greps for in `scontrol show reservation`).
TEST(cli, status_tells_each_clusters_lrms_names) {
  api::status_reply reply;
  msg::cluster_status c;
  c.cluster = "slurm1";
  c.now = now;
  c.cpus = 64;
  c.holds = 1;
  c.committed = 2;
  c.name_prefix = "arb-k3x9q2ab-";
  reply.clusters.push_back(c);
  const std::string text = render(api::response{1, api::operation::status, 0, "", reply}, "table");
  EXPECT_NE(text.find("LRMS NAMES"), std::string::npos) << text;
  EXPECT_NE(text.find("arb-k3x9q2ab-"), std::string::npos) << text;
  auto j =
      nlohmann::json::parse(render(api::response{1, api::operation::status, 0, "", reply}, "json"));
  EXPECT_EQ(j["result"]["clusters"][0]["name_prefix"], "arb-k3x9q2ab-");
}

TEST(cli, exit_codes_follow_the_error_class) {
  auto with = [](errc c) {
    return exit_code_of(api::error_response(1, api::operation::list, fail(c, "")));
  };
  EXPECT_EQ(exit_code_of(list_response()), exit_code::ok);
  EXPECT_EQ(with(errc::invalid_window), exit_code::invalid);
  EXPECT_EQ(with(errc::not_found), exit_code::not_found);
  EXPECT_EQ(with(errc::infeasible), exit_code::unsatisfiable);
  EXPECT_EQ(with(errc::busy), exit_code::unsatisfiable);
  EXPECT_EQ(with(errc::permission_denied), exit_code::denied);
  EXPECT_EQ(with(errc::lrms_failure), exit_code::failed);
  EXPECT_EQ(exit_code_of_transport(fail(errc::permission_denied, "")), exit_code::auth);
  EXPECT_EQ(exit_code_of_transport(fail(errc::unreachable, "")), exit_code::unreachable);
  EXPECT_EQ(exit_code_of_transport(fail(errc::timeout, "")), exit_code::unreachable);
}

/// Answers list with one reservation of the caller and everything else with not_found.
// arb jobs --noheader / --parsable, as arb list (issue 37: scripts read job lists too).
TEST(cli, a_job_list_without_header_or_separated_by_bars) {
  msg::grid_list_reply l;
  msg::grid_job_info j;
  j.id = "n/g1";
  j.name = "prep";
  j.strategy = grid_strategy::flood;
  j.state = grid_job_state::queued;
  j.np = 4;
  j.copies = {{"a", "J1", copy_state::queued, 0, -1, -1, "", false},
              {"b", "J7", copy_state::queued, 0, -1, -1, "", false}};
  l.jobs = {j};
  const auto table = render_jobs(l, "", false, false).value();
  EXPECT_EQ(table.substr(0, 2), "ID");
  EXPECT_NE(table.find("n/g1  prep  flood"), std::string::npos) << table;
  EXPECT_EQ(render_jobs(l, "", true, false).value(), table.substr(table.find('\n') + 1));
  EXPECT_EQ(render_jobs(l, "", true, true).value(), "n/g1|prep|flood|queued|4|a,b|-|-|0\n");
  EXPECT_EQ(render_jobs(l, "", false, true).value().substr(0, 24), "ID|NAME|STRATEGY|STATE|N");
  // --format: the fields asked for, in that order, the default table's cells included.
  j.owner = "alice";
  j.walltime = 600;
  l.jobs = {j};
  EXPECT_EQ(render_jobs(l, "state,owner,cluster,walltime,id", false, true).value(),
            "STATE|OWNER|CLUSTER|WALLTIME|ID\nqueued|alice|a,b|600|n/g1\n");
  auto unknown = render_jobs(l, "id,colour", false, false);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err().message.rfind("--format: no field 'colour' (id, name, ", 0), 0u)
      << unknown.err().message;
  // A bad format is refused before anything is sent, as arb list's.
  auto p = parse({"--user", "alice", "jobs", "--format", "id,,colour"});
  auto body = build_request(p.o, now);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.err().message.rfind("--format: no field 'colour'", 0), 0u) << body.err().message;
  // The options reach the request builder's options, not the request.
  EXPECT_EQ(std::get<msg::grid_list_request>(
                build({"--user", "alice", "jobs", "--noheader", "--parsable"})),
            (msg::grid_list_request{"alice", "", "", false, 0, ""}));
}

class fake_broker : public api::request_handler {
 public:
  void handle(const api::caller& who, api::request req,
              std::function<void(api::response)> done) override {
    if (std::holds_alternative<msg::list_request>(req.body)) {
      msg::list_reply reply;
      reply.reservations.push_back(msg::reservation_info{"a/1", "a", who.user, now, now + 60, 2,
                                                         reservation_state::committed, 0, 0, 1});
      done(api::response{0, req.op(), 0, "", reply});
    } else {
      done(api::error_response(0, req.op(), fail(errc::not_found, "no such reservation")));
    }
  }
};

struct cli_run {
  int code;
  std::string out;
  std::string err;
};

cli_run run_arb(std::vector<std::string> args) {
  args.insert(args.begin(), "arb");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = run(static_cast<int>(argv.size()), argv.data(), out, err, [] { return now; });
  return {code, out.str(), err.str()};
}

TEST(cli, runs_against_a_server) {
  fake_broker broker;
  api::server_config config;
  config.tokens = {{"alice", {"secret", false}}};
  api::threaded_server srv(config, broker, 1);
  const std::string where = "127.0.0.1:" + std::to_string(srv.local_endpoint().port());

  auto ok =
      run_arb({"--server", where, "--user", "alice", "--token", "secret", "-o", "json", "list"});
  EXPECT_EQ(ok.code, exit_code::ok) << ok.err;
  auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["result"]["reservations"][0]["owner"], "alice");

  auto missing =
      run_arb({"--server", where, "--user", "alice", "--token", "secret", "show", "a/9"});
  EXPECT_EQ(missing.code, exit_code::not_found);
  EXPECT_EQ(missing.err, "error: not_found: no such reservation\n");

  auto denied = run_arb({"--server", where, "--user", "alice", "--token", "wrong", "list"});
  EXPECT_EQ(denied.code, exit_code::auth);
  EXPECT_NE(denied.err.find("permission_denied"), std::string::npos);

  auto usage = run_arb({"--server", where, "--user", "alice", "reserve", "--let", "now+1h", "--np",
                        "x", "--dur-ref", "1h"});
  EXPECT_EQ(usage.code, exit_code::usage);

  srv.stop(std::chrono::milliseconds(1000));
  auto gone = run_arb({"--server", where, "--user", "alice", "--token", "secret", "list"});
  EXPECT_EQ(gone.code, exit_code::unreachable);
}

TEST(cli, help_exits_zero) {
  EXPECT_EQ(run_arb({"--help"}).code, exit_code::ok);
  auto help = run_arb({"reserve", "--help"});
  EXPECT_EQ(help.code, exit_code::ok);
  EXPECT_NE(help.out.find("--runtime"), std::string::npos);
  EXPECT_NE(help.out.find("--dur-ref"), std::string::npos);
}

// With -o json every error is JSON on stdout, the ones found before the node is asked too
// (issue 37: they were text on stderr).
TEST(cli, with_json_output_client_side_errors_are_json_too) {
  const auto error_of = [](const cli_run& r) {
    EXPECT_TRUE(r.err.empty()) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ok"], false);
    return std::pair{j["error"]["code"].get<std::string>(),
                     j["error"]["message"].get<std::string>()};
  };
  auto typo = run_arb({"-o", "json", "reserv", "--np", "4"});
  EXPECT_EQ(typo.code, exit_code::usage);
  const auto [code, message] = error_of(typo);
  EXPECT_EQ(code, "invalid_parameter");
  EXPECT_EQ(message, "unknown command 'reserv'; did you mean 'reserve'?");
  auto server = run_arb({"--output=json", "--server", "bad", "--user", "alice", "list"});
  EXPECT_EQ(server.code, exit_code::usage);
  EXPECT_EQ(error_of(server).second, "--server: expected host:port, got 'bad'");
  auto user = run_arb({"-ojson", "--server", "127.0.0.1:1", "list"});
  EXPECT_EQ(error_of(user).second, "--user (or ARB_USER) is required");
  // Text stays text, on stderr.
  auto text = run_arb({"--server", "bad", "--user", "alice", "list"});
  EXPECT_TRUE(text.out.empty());
  EXPECT_EQ(text.err, "error: invalid_parameter: --server: expected host:port, got 'bad'\n");
}

TEST(cli, typos_get_a_suggestion) {
  auto command = run_arb({"reserv", "--np", "4"});
  EXPECT_EQ(command.code, exit_code::usage);
  EXPECT_NE(command.err.find("unknown command 'reserv'; did you mean 'reserve'?"),
            std::string::npos)
      << command.err;
  auto option = run_arb({"reserve", "--nq", "4", "--let", "now+1h"});
  EXPECT_EQ(option.code, exit_code::usage);
  EXPECT_NE(option.err.find("unknown option '--nq'; did you mean '--np'?"), std::string::npos)
      << option.err;
  auto nested = run_arb({"-s", "127.0.0.1:1", "job", "shw", "x"});  // -s takes a value
  EXPECT_NE(nested.err.find("unknown command 'shw'; did you mean 'show'?"), std::string::npos)
      << nested.err;
  auto far = run_arb({"frobnicate"});
  EXPECT_NE(far.err.find("unknown command 'frobnicate'\n"), std::string::npos) << far.err;
}

TEST(cli, version_names_the_build_and_the_protocol) {
  auto v = run_arb({"--version"});  // no subcommand needed
  EXPECT_EQ(v.code, exit_code::ok);
  EXPECT_EQ(v.out.rfind("arb, arbroker ", 0), 0u) << v.out;
  EXPECT_NE(v.out.find(build_version()), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("protocol " + std::to_string(api::protocol_version)), std::string::npos)
      << v.out;
}

}  // namespace
}  // namespace arbroker::cli

namespace arbroker::cli {
namespace {

msg::list_reply mixed_reservations() {
  msg::list_reply r;
  auto add = [&](std::string id, std::string cluster, std::string owner, std::int64_t start,
                 std::int64_t end, int np, reservation_state s, double cost) {
    r.reservations.push_back(msg::reservation_info{
        std::move(id), std::move(cluster), std::move(owner), start, end, np, s, 0, 0, cost});
  };
  add("a/1", "a", "alice", now + 7200, now + 10800, 8, reservation_state::committed, 3);
  add("b/2", "b", "bob", now + 60, now + 3660, 4, reservation_state::accepted, 1);
  add("a/3", "a", "alice", now - 600, now + 600, 16, reservation_state::active, 2);
  add("b/4", "b", "alice", now - 7200, now - 3600, 4, reservation_state::completed, 5);
  add("a/5", "a", "bob", now + 60, now + 120, 2, reservation_state::cancelled, 0);
  return r;
}

std::string ids(const msg::list_reply& r) {
  std::string out;
  for (const auto& x : r.reservations)
    out += (out.empty() ? "" : " ") + x.id;
  return out;
}

std::string viewed(const list_view& v) {
  auto r = mixed_reservations();
  auto ok = apply_list_view(v, now, r);
  EXPECT_TRUE(ok) << (ok ? "" : ok.err().message);
  return ids(r);
}

TEST(list_view, live_ones_by_start_unless_asked_otherwise) {
  list_view v;
  EXPECT_EQ(viewed(v), "a/3 b/2 a/1");  // no completed or cancelled ones
  v.history = true;
  EXPECT_EQ(viewed(v), "b/4 a/3 b/2 a/5 a/1");  // equal starts keep the node's order
  v = {};
  v.states = {"cancelled", "completed"};
  EXPECT_EQ(viewed(v), "b/4 a/5");
  v = {};
  v.clusters = {"b"};
  v.history = true;
  EXPECT_EQ(viewed(v), "b/4 b/2");
  v = {};
  v.owners = {"bob"};
  EXPECT_EQ(viewed(v), "b/2");
  v = {};
  v.from = "now+1h";  // ends after
  v.to = "now+3h";    // starts before
  EXPECT_EQ(viewed(v), "b/2 a/1");
  v = {};
  v.sort = "-np";
  EXPECT_EQ(viewed(v), "a/3 a/1 b/2");
  v.sort = "cost";
  EXPECT_EQ(viewed(v), "b/2 a/3 a/1");
}

TEST(list_view, bad_options_name_themselves_and_list_what_there_is) {
  auto r = mixed_reservations();
  list_view v;
  v.states = {"running"};
  auto s = apply_list_view(v, now, r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.err().message.find("--state: no state 'running'"), std::string::npos);
  v = {};
  v.sort = "-size";
  s = apply_list_view(v, now, r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.err().message.find("--sort: no field 'size' (id, cluster"), std::string::npos);
  v = {};
  v.to = "tomorrow";
  EXPECT_FALSE(apply_list_view(v, now, r));
  v = {};
  v.format = "id,colour";
  auto text = render_list(v, r);
  ASSERT_FALSE(text);
  EXPECT_NE(text.err().message.find("--format: no field 'colour'"), std::string::npos);
  EXPECT_EQ(ids(r), ids(mixed_reservations()));  // nothing was changed by a refused view
  // ... and arb refuses them before asking the node.
  auto p = parse({"list", "--sort", "size"});
  EXPECT_FALSE(build_request(p.o, now));
}

TEST(list_view, formats_for_people_and_for_scripts) {
  auto r = mixed_reservations();
  list_view v;
  ASSERT_TRUE(apply_list_view(v, now, r));
  v.format = "id,duration,np,state";
  auto table = render_list(v, r);
  ASSERT_TRUE(table);
  EXPECT_EQ(*table,
            "ID   DURATION  NP  STATE\n"
            "a/3  20m       16  active\n"
            "b/2  1h        4   accepted\n"
            "a/1  1h        8   committed\n");
  v.noheader = true;
  v.parsable = true;
  EXPECT_EQ(*render_list(v, r), "a/3|20m|16|active\nb/2|1h|4|accepted\na/1|1h|8|committed\n");
  v.format = "";  // the default columns
  auto all = render_list(v, r);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->substr(0, all->find('\n')), "a/3|a|alice|" + format_time(now - 600) + "|" +
                                                 format_time(now + 600) + "|20m|16|active|2");
}

}  // namespace
}  // namespace arbroker::cli
