// Unit tests of the Slurm adapter that need no daemon: names, error classification, and
// the checks made before Slurm is asked. The live tests are in tests/slurm/.
#include "arbroker/adapters/slurm_lrms.hpp"

#include <gtest/gtest.h>
#include <slurm/slurm_errno.h>

#include <cerrno>
#include <chrono>
#include <ctime>

namespace arbroker {
namespace {

slurm_options no_cluster() {
  slurm_options o;
  o.conf = "/nonexistent/arbroker/slurm.conf";
  o.prefix = "arb-";
  return o;
}

TEST(SlurmDependencies, TheIdsOfUnfulfilledConditions) {
  EXPECT_EQ(slurm_dependency_ids("afterany:12(unfulfilled)"), std::vector<std::string>{"12"});
  EXPECT_EQ(slurm_dependency_ids("afterok:13:14(unfulfilled),afterany:15(satisfied)"),
            (std::vector<std::string>{"13", "14"}));
  EXPECT_EQ(slurm_dependency_ids("afterok:16+30(unfulfilled)?afternotok:17_*(unfulfilled)"),
            (std::vector<std::string>{"16", "17"}));
  EXPECT_EQ(slurm_dependency_ids("singleton(unfulfilled)"), std::vector<std::string>{});
  EXPECT_EQ(slurm_dependency_ids(""), std::vector<std::string>{});
}

TEST(SlurmApproximations, WhatThePlanCannotModelIsNamed) {
  EXPECT_EQ(slurm_approximation({false, "debug", "debug", "", "afterok:12(unfulfilled)"}), "");
  EXPECT_EQ(slurm_approximation({false, "debug,long", "long", "", ""}), "");
  EXPECT_EQ(slurm_approximation({true, "debug", "debug", "", ""}),
            "held (scontrol hold): planned as if released now, after the other jobs");
  EXPECT_EQ(slurm_approximation({false, "gpu", "debug", "n1", "singleton(unfulfilled)"}),
            "in partition gpu: counted against debug's CPUs; asks for nodes n1: planned on any "
            "CPU; dependency singleton: planned without it");
  EXPECT_EQ(slurm_approximation({false, "debug", "debug", "", "afterok:1(unfulfilled)?afterok:2"}),
            "dependency with alternatives (?): planned after all of them");
}

TEST(SlurmNames, PrefixIsAddedOnce) {
  slurm_lrms s(no_cluster());
  EXPECT_EQ(s.reservation_name("r1"), "arb-r1");
  EXPECT_EQ(s.reservation_name("arb-r1"), "arb-r1");
  auto a = s.reservation_name("");
  auto b = s.reservation_name("");
  EXPECT_TRUE(a.starts_with("arb-"));
  EXPECT_NE(a, b);
}

TEST(SlurmNames, SuccessorCountsGenerations) {
  slurm_lrms s(no_cluster());
  EXPECT_EQ(s.successor_name("arb-x"), "arb-x~1");
  EXPECT_EQ(s.successor_name("arb-x~1"), "arb-x~2");
  EXPECT_EQ(s.successor_name("arb-x~41"), "arb-x~42");
  EXPECT_EQ(s.successor_name("arb-x~"), "arb-x~~1");
  EXPECT_EQ(s.successor_name("arb-x~a"), "arb-x~a~1");
}

TEST(SlurmErrors, ClassifiesSlurmErrorNumbers) {
  EXPECT_EQ(slurm_errc(ESLURM_NODES_BUSY), errc::busy);
  EXPECT_EQ(slurm_errc(ESLURM_RESERVATION_OVERLAP), errc::busy);
  EXPECT_EQ(slurm_errc(ESLURM_INVALID_TIME_VALUE), errc::invalid_window);
  EXPECT_EQ(slurm_errc(ESLURM_USER_ID_MISSING), errc::permission_denied);
  EXPECT_EQ(slurm_errc(ESLURM_ACCESS_DENIED), errc::permission_denied);
  EXPECT_EQ(slurm_errc(ESLURM_RESERVATION_INVALID), errc::not_found);
  EXPECT_EQ(slurm_errc(ESLURM_INVALID_JOB_ID), errc::not_found);
  EXPECT_EQ(slurm_errc(ESLURM_RESERVATION_BUSY), errc::in_use);
  EXPECT_EQ(slurm_errc(ESLURM_INVALID_CORE_CNT), errc::invalid_processor_range);
  EXPECT_EQ(slurm_errc(SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR), errc::unreachable);
  EXPECT_EQ(slurm_errc(SLURM_COMMUNICATIONS_CONNECTION_ERROR), errc::unreachable);
  EXPECT_EQ(slurm_errc(ECONNREFUSED), errc::unreachable);
  EXPECT_EQ(slurm_errc(SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT), errc::timeout);
  EXPECT_EQ(slurm_errc(SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR), errc::timeout);
  EXPECT_EQ(slurm_errc(ESLURM_RESERVATION_NAME_DUP), errc::lrms_failure);
  EXPECT_EQ(slurm_errc(SLURM_ERROR), errc::lrms_failure);
}

TEST(SlurmChecks, RefusesBadSpecsWithoutAskingSlurm) {
  slurm_lrms s(no_cluster());
  const timestamp now = std::time(nullptr);
  auto r = s.create_reservation({"r", "root", now + 3600, 600, 0});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_processor_range);
  r = s.create_reservation({"r", "root", now + 3600, 0, 2});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_window);
  r = s.create_reservation({"r", "root", now - 3600, 600, 2});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_window);
  r = s.create_reservation({"r", "", now + 3600, 600, 2});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::permission_denied);

  EXPECT_EQ(s.delete_reservation("maintenance").err().code, errc::permission_denied);
  EXPECT_EQ(s.modify_reservation("maintenance", {"m", "root", now + 60, 60, 1}).err().code,
            errc::permission_denied);

  auto j = s.submit_job({"j", "no-such-user-arbroker", 1, 60, {}, "true"});
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::permission_denied);
  j = s.submit_job({"j", "root", 1, 0, {}, "true"});
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::invalid_duration);
  j = s.submit_job({"j", "root", 0, 60, {}, "true"});
  ASSERT_FALSE(j);
  EXPECT_EQ(j.err().code, errc::invalid_processor_range);

  EXPECT_EQ(s.cancel_job("x12").err().code, errc::not_found);
  EXPECT_EQ(s.job_status("").err().code, errc::not_found);
}

TEST(SlurmChecks, MissingConfigurationIsAnErrorNotAnExit) {
  slurm_lrms s(no_cluster());
  auto snap = s.snapshot();
  ASSERT_FALSE(snap);
  EXPECT_EQ(snap.err().code, errc::lrms_failure);
  EXPECT_NE(snap.err().message.find("/nonexistent/arbroker/slurm.conf"), std::string::npos);
}

}  // namespace
}  // namespace arbroker
