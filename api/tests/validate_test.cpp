#include "arbroker/api/validate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "arbroker/messages/checked_requests.hpp"
#include "sample_requests.hpp"

namespace arbroker::api {
namespace {

using testing::valid_coreserve;
using testing::valid_elastic;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

TEST(validate, accepts_every_sample_body) {
  for (auto& body : testing::valid_bodies()) {
    auto s = validate(body);
    EXPECT_TRUE(s) << to_string(operation_of(body)) << ": " << s.err().message;
  }
}

struct rejection {
  std::string name;
  std::function<void(msg::elastic_request&)> breaks;
  errc code;
  std::string field;
};

TEST(validate, elastic_rejections_name_the_field) {
  std::vector<rejection> cases = {
      {"bad user", [](auto& r) { r.user = "al ice"; }, errc::invalid_parameter, "elastic.user"},
      {"long user", [](auto& r) { r.user = std::string(65, 'a'); }, errc::invalid_parameter,
       "elastic.user"},
      {"negative est", [](auto& r) { r.est = -1; }, errc::invalid_window, "elastic.est"},
      {"absurd let", [](auto& r) { r.let = std::numeric_limits<std::int64_t>::max(); },
       errc::invalid_window, "elastic.let"},
      {"est > let", [](auto& r) { r.let = r.est - 1; }, errc::invalid_window, "elastic.let"},
      {"est == let", [](auto& r) { r.let = r.est; }, errc::invalid_window, "elastic.let"},
      {"11-year window", [](auto& r) { r.let = r.est + 11 * 366 * 86400LL; }, errc::invalid_window,
       "elastic.let"},
      {"negative np", [](auto& r) { r.np_min = -4; }, errc::invalid_processor_range,
       "elastic.np_min"},
      {"huge np", [](auto& r) { r.np_max = 2'000'000; }, errc::invalid_processor_range,
       "elastic.np_max"},
      {"np_min > np_max", [](auto& r) { r.np_min = 64; }, errc::invalid_processor_range,
       "elastic.np_max"},
      {"zero dur_ref", [](auto& r) { r.dur_ref = 0; }, errc::invalid_duration, "elastic.dur_ref"},
      {"NaN pp_ref", [](auto& r) { r.pp_ref = nan; }, errc::invalid_parameter, "elastic.pp_ref"},
      {"inf pp_ref", [](auto& r) { r.pp_ref = inf; }, errc::invalid_parameter, "elastic.pp_ref"},
      {"negative pp_ref", [](auto& r) { r.pp_ref = -1; }, errc::invalid_parameter,
       "elastic.pp_ref"},
      {"negative np_ref", [](auto& r) { r.np_ref = -1; }, errc::invalid_processor_range,
       "elastic.np_ref"},
      {"NaN seq", [](auto& r) { r.speedup.p1 = nan; }, errc::invalid_speedup_model,
       "elastic.speedup"},
      {"huge table",
       [](auto& r) {
         r.speedup.kind = msg::speedup_kind::table;
         r.speedup.table_n.assign(2000, 1);
         r.speedup.table_speedup.assign(2000, 1.0);
       },
       errc::invalid_speedup_model, "elastic.speedup"},
      {"long policy", [](auto& r) { r.policy = std::string(100, 'p'); }, errc::invalid_parameter,
       "elastic.policy"},
      {"esr threshold > 1", [](auto& r) { r.esr_threshold = 1.5; }, errc::invalid_parameter,
       "elastic.esr_threshold"},
      {"NaN esr threshold", [](auto& r) { r.esr_threshold = nan; }, errc::invalid_parameter,
       "elastic.esr_threshold"},
      {"tsn_max 0", [](auto& r) { r.tsn_max = 0; }, errc::invalid_parameter, "elastic.tsn_max"},
      {"tsn_max huge", [](auto& r) { r.tsn_max = 100000; }, errc::invalid_parameter,
       "elastic.tsn_max"},
      {"tss_gap 0", [](auto& r) { r.tss_gap = 0; }, errc::invalid_parameter, "elastic.tss_gap"},
      {"negative hold",
       [](auto& r) {
         r.mode = msg::request_mode::hold;
         r.hold_seconds = -1;
       },
       errc::invalid_duration, "elastic.hold_seconds"},
      {"too many preferences",
       [](auto& r) {
         r.prefer.assign(8, {objective_attribute::end, false});
       },
       errc::invalid_parameter, "elastic.prefer"},
      {"os control char", [](auto& r) { r.os = "li\nux"; }, errc::invalid_parameter, "elastic.os"},
      {"too many features", [](auto& r) { r.features.assign(300, "f"); }, errc::invalid_parameter,
       "elastic.features"},
      {"empty feature", [](auto& r) { r.features = {""}; }, errc::invalid_parameter,
       "elastic.features[0]"},
      {"long cluster name",
       [](auto& r) {
         r.clusters = {"a", std::string(65, 'c')};
       },
       errc::invalid_parameter, "elastic.clusters[1]"},
      {"benchmark without a name",
       [](auto& r) {
         r.benchmarks = {{"", 1, 60}};
       },
       errc::invalid_parameter, "elastic.benchmarks[0].name"},
      {"benchmark result 0",
       [](auto& r) {
         r.benchmarks = {{"b", 0, 60}};
       },
       errc::invalid_parameter, "elastic.benchmarks[0].result"},
      {"benchmark seconds 0",
       [](auto& r) {
         r.benchmarks = {{"b", 1, 0}};
       },
       errc::invalid_duration, "elastic.benchmarks[0].seconds"},
      {"penalty below 1", [](auto& r) { r.penalty = 0.5; }, errc::invalid_parameter,
       "elastic.penalty"},
      {"negative input size",
       [](auto& r) {
         r.inputs = {{"f", -1}};
       },
       errc::invalid_parameter, "elastic.inputs[0].bytes"},
      {"input location with a newline",
       [](auto& r) {
         r.inputs = {{"f\n", 1}};
       },
       errc::invalid_parameter, "elastic.inputs[0].location"},
      {"output size -2", [](auto& r) { r.output_bytes = -2; }, errc::invalid_parameter,
       "elastic.output_bytes"},
  };
  for (auto& c : cases) {
    auto r = valid_elastic();
    c.breaks(r);
    auto s = validate(r);
    ASSERT_FALSE(s) << c.name;
    EXPECT_EQ(s.err().code, c.code) << c.name << ": " << s.err().message;
    EXPECT_EQ(s.err().message.rfind(c.field + ":", 0), 0u) << c.name << ": " << s.err().message;
  }
}

// Issue 37: an est left out over HTTP (0) meant 1970 and the window was refused as longer
// than 10 years; it means now, for both requests that have one.
TEST(validate, an_est_left_at_zero_means_now) {
  msg::elastic_request e;
  e.est = 0;
  e.let = 2'000'000'000;
  request_body body = e;
  fill_defaults(body, 1'900'000'000);
  EXPECT_EQ(std::get<msg::elastic_request>(body).est, 1'900'000'000);
  e.est = 1'950'000'000;  // given: kept
  body = e;
  fill_defaults(body, 1'900'000'000);
  EXPECT_EQ(std::get<msg::elastic_request>(body).est, 1'950'000'000);
  msg::coreservation_request c;
  body = c;
  fill_defaults(body, 1'900'000'000);
  EXPECT_EQ(std::get<msg::coreservation_request>(body).est, 1'900'000'000);
}

TEST(validate, a_reference_left_at_zero_means_the_clusters_own) {
  auto r = valid_elastic();
  r.pp_ref = 0;  // each cluster's power
  r.np_ref = 0;  // np_min
  EXPECT_TRUE(validate(r));
  EXPECT_EQ(msg::elastic_request{}.pp_ref, 0);  // and both are the defaults
  EXPECT_EQ(msg::elastic_request{}.np_ref, 0);
  auto co = valid_coreserve();
  co.components[0].pp_ref = 0;
  co.components[0].np_ref = 0;
  EXPECT_TRUE(validate(co));
}

TEST(validate, coreservation_rejections_name_the_component) {
  auto r = valid_coreserve();
  r.components.clear();
  EXPECT_EQ(validate(r).err().message.rfind("coreserve.components:", 0), 0u);
  r = valid_coreserve();
  r.components.resize(msg::max_coreservation_components + 1, r.components[0]);
  EXPECT_FALSE(validate(r));
  r = valid_coreserve();
  r.components[1].np_min = 0;
  EXPECT_EQ(validate(r).err().message.rfind("coreserve.components[1].np_min:", 0), 0u);
  r = valid_coreserve();
  r.components[0].offset = -5;
  EXPECT_EQ(validate(r).err().message.rfind("coreserve.components[0].offset:", 0), 0u);
  r = valid_coreserve();
  r.components[0].pp_ref = nan;
  EXPECT_EQ(validate(r).err().message.rfind("coreserve.components[0].pp_ref:", 0), 0u);
  r = valid_coreserve();
  r.max_attempts = 0;
  EXPECT_EQ(validate(r).err().message.rfind("coreserve.max_attempts:", 0), 0u);
  r = valid_coreserve();
  r.let = r.est;
  EXPECT_EQ(validate(r).err().code, errc::invalid_window);
}

TEST(validate, other_operations_reject_nonsense) {
  auto first_field = [](const request_body& b) {
    auto s = validate(b);
    return s ? std::string("ok") : s.err().message.substr(0, s.err().message.find(':'));
  };
  EXPECT_EQ(first_field(estimate_request{"alice", 0, 60, {}, 0, 0}), "estimate.np");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, -60, {}, 0, 0}), "estimate.walltime");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, 60, {""}, 0, 0}), "estimate.clusters[0]");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, 60, {}, -5, 0}), "estimate.ready");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, 60, {}, bounds::max_time + 1, 0}),
            "estimate.ready");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, 60, {}, 0, 20'000'000'000}),
            "estimate.deadline");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, 60, {}, bounds::max_time - 60, 0}), "ok");
  EXPECT_EQ(first_field(estimate_request{"alice", 1, 60, {}, 1000, 1030}), "estimate.deadline");
  EXPECT_EQ(first_field(msg::commit_request{"alice", "", {}}), "commit.reservation_id");
  EXPECT_EQ(first_field(msg::modify_request{"alice", "a/1", 100, 50, 4, true}), "modify.end");
  EXPECT_EQ(first_field(msg::modify_request{"alice", "a/1", -1, 50, 4, true}), "modify.start");
  EXPECT_EQ(first_field(msg::modify_request{"alice", "a/1", 0, 50, -4, true}), "modify.np");
  EXPECT_EQ(first_field(msg::cancel_request{"alice", std::string(200, 'x')}),
            "cancel.reservation_id");
  EXPECT_EQ(first_field(msg::query_request{"alice", ""}), "query.reservation_id");
  EXPECT_EQ(first_field(msg::list_request{"a b"}), "list.user");
  EXPECT_EQ(first_field(msg::list_request{"alice", true, -1, ""}), "list.limit");
  EXPECT_EQ(first_field(msg::list_request{"alice", true, 1001, ""}), "list.limit");
  EXPECT_EQ(first_field(msg::list_request{"alice", true, 1000, "1:a/1"}), "ok");
  EXPECT_EQ(first_field(msg::list_request{"alice", true, 0, std::string(200, 'x')}), "list.before");
  EXPECT_EQ(first_field(msg::bind_job_request{"alice", "a/1", "j", 0, 60, ""}), "bind_job.np");
  // A commit's jobs, field by field, and how many.
  EXPECT_EQ(first_field(msg::commit_request{"alice", "a/1", {{"j", 1, 60, ""}, {"k", 0, 60, ""}}}),
            "commit.jobs[1].np");
  EXPECT_EQ(first_field(msg::commit_request{"alice", "a/1", {{"j", 1, -5, ""}}}),
            "commit.jobs[0].walltime");
  EXPECT_EQ(first_field(msg::commit_request{
                "alice", "a/1", std::vector<msg::job_terms>(65, msg::job_terms{"j", 1, 60, ""})}),
            "commit.jobs");
  EXPECT_EQ(first_field(msg::bind_job_request{"alice", "a/1", "j", 1, 0, ""}), "bind_job.walltime");
  EXPECT_EQ(first_field(msg::bind_job_request{"alice", "a/1", "j", 1, 60, std::string(5000, 'c')}),
            "bind_job.command");
  EXPECT_EQ(first_field(msg::bind_job_request{"alice", "a/1", "j", 1, 60, std::string("a\0b", 3)}),
            "bind_job.command");
  EXPECT_EQ(first_field(status_request{std::vector<std::string>(257, "c")}), "status.clusters");
  // A grid job's placements again (issue 35): -1 is the node's default, 0..100 its own.
  msg::grid_submit_request g;
  g.user = "alice";
  g.np = 1;
  g.walltime = 60;
  EXPECT_EQ(first_field(g), "ok");
  g.max_resubmits = 101;
  EXPECT_EQ(first_field(g), "grid_submit.max_resubmits");
  g.max_resubmits = -2;
  EXPECT_EQ(first_field(g), "grid_submit.max_resubmits");
  g.max_resubmits = 100;
  g.retry_on_failure = -1;
  EXPECT_EQ(first_field(g), "grid_submit.retry_on_failure");
  g.retry_on_failure = 100;
  EXPECT_EQ(first_field(g), "ok");
  // What its nodes need (issue 35 item 4), on a grid job and on a job bound to a reservation.
  g.mem_per_cpu = 4096;
  g.features = {"ib", "avx512"};
  g.os = "linux";
  EXPECT_EQ(first_field(g), "ok");
  g.mem_per_node = 1024;  // both: Slurm takes one
  EXPECT_EQ(first_field(g), "grid_submit.mem_per_cpu and mem_per_node");
  g.mem_per_node = 0;
  g.mem_per_cpu = -1;
  EXPECT_EQ(first_field(g), "grid_submit.mem_per_cpu");
  g.mem_per_cpu = max_memory_mib + 1;
  EXPECT_EQ(first_field(g), "grid_submit.mem_per_cpu");
  g.mem_per_cpu = 0;
  g.features = {"ib", ""};
  EXPECT_EQ(first_field(g), "grid_submit.features[1]");
  g.features = {"ib", "ib"};
  EXPECT_EQ(first_field(g), "grid_submit.features");
  g.features.clear();
  g.os = std::string(300, 'x');
  EXPECT_EQ(first_field(g), "grid_submit.os");
  g.os.clear();
  g.after = {"n/g3", "n/g4:any", "n/g5:ok"};  // jobs it waits for (issue 35 item 5)
  EXPECT_EQ(first_field(g), "ok");
  g.after = {"n/g3", "n/g4:maybe"};
  EXPECT_EQ(first_field(g), "grid_submit.after[1]");
  g.after = {"berlin/3"};
  EXPECT_EQ(first_field(g), "grid_submit.after[0]");
  g.after = std::vector<std::string>(17, "n/g3");
  EXPECT_EQ(first_field(g), "grid_submit.after");
  g.after.clear();
  // Several jobs (version 17): `after` may name another job of the request by its name.
  auto prep = g, post = g;
  prep.name = "prep";
  post.name = "post";
  post.after = {"prep:any", "n/g3"};
  msg::grid_submit_many_request many{"alice", {prep, post}};
  EXPECT_EQ(first_field(many), "ok");
  many.jobs[1].after = {"nobody"};  // neither a job of the request nor an id
  EXPECT_EQ(first_field(many), "grid_submit_many.jobs[1].after[0]");
  many.jobs[1].after.clear();
  many.jobs[1].np = 0;
  EXPECT_EQ(first_field(many), "grid_submit_many.jobs[1].np");
  many.jobs[1].np = 1;
  many.jobs[0].user = "bob";
  EXPECT_EQ(first_field(many), "grid_submit_many.jobs[0].user");
  many.jobs[0].user.clear();
  many.jobs.clear();
  EXPECT_EQ(first_field(many), "grid_submit_many.jobs");
  many.jobs.assign(bounds::max_request_jobs + 1, prep);
  EXPECT_EQ(first_field(many), "grid_submit_many.jobs");
  msg::bind_job_request b{"alice", "a/1", "j", 1, 60, "", 0, -5, {}};
  EXPECT_EQ(first_field(b), "bind_job.mem_per_node");
  msg::commit_request c{"alice", "a/1", {{"j", 1, 60, "", 0, 0, {std::string("a\0b", 3)}}}};
  EXPECT_EQ(first_field(c), "commit.jobs[0].features[0]");
}

// Text in a request must be UTF-8 (strict msgpack clients cannot decode anything else), and
// the refusal does not echo the bytes.
TEST(validate, text_must_be_valid_utf8) {
  const std::string bad_id = "\xff\xfe\xfd";
  auto s = validate(msg::query_request{"alice", bad_id});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.err().code, errc::invalid_parameter);
  EXPECT_EQ(s.err().message, "query.reservation_id: is not valid UTF-8");
  EXPECT_FALSE(validate(msg::commit_request{"alice", "a/1", {{"j\xff\xfe", 1, 60, ""}}}));
  // A job's command too, in a commit's jobs and in bind_job (both were accepted); a script's
  // newlines and tabs are text.
  auto cmd = validate(msg::commit_request{"alice", "a/1", {{"j", 1, 60, "echo \xff\xfe"}}});
  ASSERT_FALSE(cmd);
  EXPECT_EQ(cmd.err().message, "commit.jobs[0].command: is not valid UTF-8");
  auto bound = validate(msg::bind_job_request{"alice", "a/1", "j", 1, 60, "run \xc3"});
  ASSERT_FALSE(bound);
  EXPECT_EQ(bound.err().message, "bind_job.command: is not valid UTF-8");
  EXPECT_TRUE(validate(msg::bind_job_request{"alice", "a/1", "j", 1, 60, "cd /tmp\n\tsleep 1"}));
  EXPECT_TRUE(validate(msg::commit_request{"alice",
                                           "a/1",
                                           {{"j\xc3\xb6"
                                             "b",
                                             1, 60, ""}}}));  // "jöb"
  EXPECT_TRUE(valid_utf8("plain ascii"));
  EXPECT_TRUE(valid_utf8("\xe2\x82\xac \xf0\x9f\x98\x80"));  // euro sign, an emoji
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));                      // overlong '/'
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));                  // a surrogate
  EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));              // above U+10FFFF
  EXPECT_FALSE(valid_utf8("\xe2\x82"));                      // cut short
}

TEST(apply_caller, fills_in_and_guards_the_user) {
  caller alice{"alice", false};
  request_body body = msg::cancel_request{"", "a/1"};
  ASSERT_TRUE(apply_caller(alice, body));
  EXPECT_EQ(std::get<msg::cancel_request>(body).user, "alice");

  body = msg::cancel_request{"bob", "a/1"};
  auto s = apply_caller(alice, body);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.err().code, errc::permission_denied);
  EXPECT_EQ(std::get<msg::cancel_request>(body).user, "bob");  // unchanged

  caller root{"root", true};
  body = msg::cancel_request{"bob", "a/1"};
  ASSERT_TRUE(apply_caller(root, body));
  EXPECT_EQ(std::get<msg::cancel_request>(body).user, "bob");

  body = msg::list_request{""};
  ASSERT_TRUE(apply_caller(root, body));
  EXPECT_EQ(std::get<msg::list_request>(body).user, "");  // an admin lists everyone's
  ASSERT_TRUE(apply_caller(alice, body));
  EXPECT_EQ(std::get<msg::list_request>(body).user, "alice");

  // An admin reaches any reservation by its id (an empty user is any owner); a user's
  // empty user is always the user.
  for (request_body by_id :
       {request_body{msg::query_request{"", "a/1"}}, request_body{msg::cancel_request{"", "a/1"}},
        request_body{msg::commit_request{"", "a/1", {}}},
        request_body{msg::modify_request{"", "a/1", 1, 2, 1}}}) {
    auto as_root = by_id;
    ASSERT_TRUE(apply_caller(root, as_root));
    std::visit(
        [](const auto& b) {
          if constexpr (requires { b.user; }) {
            EXPECT_EQ(b.user, "");
          }
        },
        as_root);
    ASSERT_TRUE(apply_caller(alice, by_id));
    std::visit(
        [](const auto& b) {
          if constexpr (requires { b.user; }) {
            EXPECT_EQ(b.user, "alice");
          }
        },
        by_id);
  }
  // Who a new reservation is for is never left open.
  body = msg::elastic_request{};
  ASSERT_TRUE(apply_caller(root, body));
  EXPECT_EQ(std::get<msg::elastic_request>(body).user, "root");

  body = cluster_list_request{};
  EXPECT_TRUE(apply_caller(alice, body));
}

}  // namespace
}  // namespace arbroker::api
