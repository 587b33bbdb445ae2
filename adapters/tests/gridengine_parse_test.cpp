// The readers of Grid Engine's output, on output recorded from SGE 8.1.9 (TZ=UTC).
#include "arbroker/adapters/gridengine_parse.hpp"

#include <gtest/gtest.h>

namespace arbroker::gridengine {
namespace {

TEST(GridEngineTime, ParseAndFormatAreUtc) {
  auto t = parse_time("2026-11-22T10:05:30");
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 1795341930);
  EXPECT_EQ(format_time(1795341930), "202611221005.30");
  auto frac = parse_time(" 2026-11-22T10:05:30.250 ");
  ASSERT_TRUE(frac);
  EXPECT_EQ(*frac, 1795341930);
  for (const char* bad : {"", "2026-11-22", "2026-13-22T10:05:30", "2026-11-22 10:05:30",
                          "2026-11-22T10:05:30Z", "yyyy-11-22T10:05:30"}) {
    auto r = parse_time(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.err().code, errc::lrms_failure);
  }
}

TEST(GridEngineTime, Durations) {
  EXPECT_EQ(parse_duration("60").value(), 60);
  EXPECT_EQ(parse_duration("1:00:05").value(), 3605);
  EXPECT_EQ(parse_duration("00:10:00").value(), 600);
  EXPECT_EQ(parse_duration("INFINITY").value(), time_infinity);
  EXPECT_FALSE(parse_duration("1:00"));
  EXPECT_FALSE(parse_duration("abc"));
  EXPECT_FALSE(parse_duration("-5:00:00"));
}

TEST(GridEngineAnswers, QueueWalltimeLimit) {
  const std::string sq =
      "qname                 arb.q\nhostlist              localhost\n"
      "s_rt                  INFINITY\nh_rt                  48:00:00\nh_rtx 5\n";
  EXPECT_EQ(parse_queue_h_rt(sq).value(), 48 * 3600);
  EXPECT_EQ(parse_queue_h_rt("h_rt INFINITY\n").value(), time_infinity);
  EXPECT_EQ(parse_queue_h_rt("h_rt\t3600\r\n").value(), 3600);
  EXPECT_EQ(parse_queue_h_rt("qname x\n").err().code, errc::invalid_parameter);
  EXPECT_EQ(parse_queue_h_rt("h_rt soon\n").err().code, errc::invalid_parameter);
  EXPECT_EQ(lines_of("all.q\r\n\narb.q"), (std::vector<std::string_view>{"all.q", "arb.q"}));
}

TEST(GridEngineAnswers, GrantedAndSubmittedIds) {
  EXPECT_EQ(granted_reservation_id("Your advance reservation 17 has been granted\n"), "17");
  EXPECT_EQ(granted_reservation_id("advance_reservation: no suitable queues\n"), std::nullopt);
  EXPECT_EQ(granted_reservation_id("Your advance reservation x has been granted"), std::nullopt);
  EXPECT_EQ(submitted_job_id("42\n"), "42");
  EXPECT_EQ(submitted_job_id("warning: something\n43.1-10:1\n"), "43");
  EXPECT_EQ(submitted_job_id("Your job 44 (\"x\") has been submitted"), std::nullopt);
  EXPECT_EQ(submitted_job_id(""), std::nullopt);
}

constexpr const char* qrstat_summary = R"(<?xml version='1.0'?>
<qrstat xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qrstat/qrstat.xsd">
   <ar_summary>
      <id>1</id>
      <name>arb-test1</name>
      <owner>root</owner>
      <state>w</state>
      <start_time>2026-11-22T10:05:30</start_time>
      <end_time>2026-11-22T10:15:30</end_time>
      <duration>00:10:00</duration>
   </ar_summary>
   <ar_summary>
      <id>3</id>
      <name>other</name>
      <owner>alice</owner>
      <state>d</state>
      <start_time>2026-11-22T11:00:00</start_time>
      <end_time>2026-11-22T12:00:00</end_time>
      <duration>01:00:00</duration>
   </ar_summary>
</qrstat>)";

constexpr const char* qrstat_detail = R"(<?xml version='1.0'?>
<qrstat xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qrstat/qrstat.xsd">
   <ar_summary>
      <id>4</id>
      <name>arb-u</name>
      <owner>root</owner>
      <state>w</state>
      <start_time>2026-11-22T11:05:43</start_time>
      <end_time>2026-11-22T11:15:43</end_time>
      <duration>00:10:00</duration>
      <submission_time>2026-11-22T09:05:43</submission_time>
      <group>sgeadmin</group>
      <account>sge</account>
      <granted_slots_list>
         <granted_slots  queue_instance="arb.q@localhost" slots="2"/>
      </granted_slots_list>
      <granted_parallel_environment>
         <parallel_environment>arb</parallel_environment>
         <slots>2</slots>
      </granted_parallel_environment>
      <acl_list>
         <acl  user="nobody"/>
      </acl_list>
   </ar_summary>
   <ar_summary>
      <id>5</id>
      <name>serial</name>
      <owner>root</owner>
      <state>r</state>
      <start_time>2026-11-22T09:00:00</start_time>
      <end_time>2026-11-22T10:00:00</end_time>
      <duration>01:00:00</duration>
      <granted_slots_list>
         <granted_slots  queue_instance="a.q@n1" slots="1"/>
         <granted_slots  queue_instance="a.q@n2" slots="3"/>
      </granted_slots_list>
   </ar_summary>
</qrstat>)";

TEST(Qrstat, SummaryAndDetails) {
  auto s = parse_qrstat(qrstat_summary);
  ASSERT_TRUE(s) << s.err().message;
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0].reservation,
            (lrms_reservation{"1", "arb-test1", "root", 1795341930, 1795342530, 0}));
  EXPECT_EQ((*s)[0].state, "w");
  EXPECT_EQ((*s)[1].state, "d");

  auto d = parse_qrstat(qrstat_detail);
  ASSERT_TRUE(d) << d.err().message;
  ASSERT_EQ(d->size(), 2u);
  // The access list names the user it is for.
  EXPECT_EQ((*d)[0].reservation,
            (lrms_reservation{"4", "arb-u", "nobody", 1795345543, 1795346143, 2}));
  // Without a parallel environment the granted slots add up.
  EXPECT_EQ((*d)[1].reservation.np, 4);
  EXPECT_EQ((*d)[1].reservation.owner, "root");
}

TEST(Qrstat, EmptyUnknownAndBroken) {
  auto empty = parse_qrstat("<?xml version='1.0'?>\n<qrstat xmlns:xsd=\"x\">\n</qrstat>\n");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  auto unknown =
      parse_qrstat("<?xml version='1.0'?>\n<qrstat><ar_unknown><id>99</id></ar_unknown></qrstat>");
  ASSERT_TRUE(unknown);
  EXPECT_TRUE(unknown->empty());
  auto broken = parse_qrstat("<qrstat><ar_summary><id>1</id>");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.err().code, errc::lrms_failure);
  auto bad_time = parse_qrstat(
      "<qrstat><ar_summary><id>1</id><start_time>soon</start_time></ar_summary></qrstat>");
  ASSERT_FALSE(bad_time);
}

constexpr const char* qstat_jobs = R"(<?xml version='1.0'?>
<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd">
  <queue_info>
    <job_list state="running">
      <JB_job_number>5</JB_job_number>
      <JAT_prio>0.25000</JAT_prio>
      <JB_name>j4</JB_name>
      <JB_owner>root</JB_owner>
      <state>r</state>
      <JAT_start_time>2026-11-22T09:05:49</JAT_start_time>
      <queue_name>arb.q@localhost</queue_name>
      <slots>1</slots>
      <full_job_name>j4</full_job_name>
      <hard_request name="h_rt" resource_contribution="0.000000">60</hard_request>
      <binding>NONE</binding>
    </job_list>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>6</JB_job_number>
      <JAT_prio>0.75000</JAT_prio>
      <JB_name>j5</JB_name>
      <JB_owner>alice</JB_owner>
      <state>qw</state>
      <JB_submission_time>2026-11-22T09:05:49</JB_submission_time>
      <queue_name></queue_name>
      <slots>8</slots>
      <full_job_name>j5</full_job_name>
      <requested_pe name="arb">8</requested_pe>
      <hard_request name="h_rt" resource_contribution="0.000000">1:00:00</hard_request>
      <binding>NONE</binding>
    </job_list>
    <job_list state="pending">
      <JB_job_number>7</JB_job_number>
      <JAT_prio>0.25000</JAT_prio>
      <JB_name>arr</JB_name>
      <JB_owner>root</JB_owner>
      <state>qw</state>
      <JB_submission_time>2026-11-22T09:06:00</JB_submission_time>
      <queue_name></queue_name>
      <slots>1</slots>
      <tasks>2</tasks>
    </job_list>
  </job_info>
</job_info>)";

TEST(Qstat, RunningThenPendingInOrder) {
  auto r = parse_qstat(qstat_jobs);
  ASSERT_TRUE(r) << r.err().message;
  ASSERT_EQ(r->size(), 3u);
  const auto& run = (*r)[0];
  EXPECT_FALSE(run.pending);
  EXPECT_EQ(run.state, "r");
  EXPECT_EQ(run.job, (lrms_job{"5", "root", 1, 60, 0, 1795338349, std::nullopt, "j4"}));
  const auto& wait = (*r)[1];
  EXPECT_TRUE(wait.pending);
  EXPECT_EQ(wait.job,
            (lrms_job{"6", "alice", 8, 3600, 1795338349, std::nullopt, std::nullopt, "j5"}));
  // An array task is "job.task"; without h_rt the walltime is unlimited.
  EXPECT_EQ((*r)[2].job.id, "7.2");
  EXPECT_EQ((*r)[2].job.walltime, time_infinity);
}

TEST(Qstat, FullFormatAndEmpty) {
  // qstat -f nests running jobs in each queue instance.
  auto f = parse_qstat(R"(<?xml version='1.0'?>
<job_info><queue_info><Queue-List><name>arb.q@localhost</name><slots_total>8</slots_total>
<job_list state="running"><JB_job_number>6</JB_job_number><JB_owner>root</JB_owner>
<state>r</state><JAT_start_time>2026-11-22T09:06:21</JAT_start_time><slots>8</slots>
</job_list></Queue-List></queue_info><job_info></job_info></job_info>)");
  ASSERT_TRUE(f) << f.err().message;
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ((*f)[0].job.np, 8);
  auto empty = parse_qstat(
      "<?xml version='1.0'?>\n<job_info><queue_info></queue_info><job_info></job_info></job_info>");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(Qstat, ClusterSlots) {
  auto s = parse_cluster_slots(R"(<?xml version='1.0'?>
<job_info  xmlns:xsd="x">
  <cluster_queue_summary>
    <name>arb.q</name><load>1.09766</load><used>8</used><resv>0</resv><available>0</available>
    <total>8</total><temp_disabled>0</temp_disabled><manual_intervention>0</manual_intervention>
  </cluster_queue_summary>
  <cluster_queue_summary><name>b.q</name><total>4</total></cluster_queue_summary>
</job_info>)");
  ASSERT_TRUE(s) << s.err().message;
  EXPECT_EQ(*s, 12);
  EXPECT_FALSE(
      parse_cluster_slots("<job_info><cluster_queue_summary><name>x</name>"
                          "</cluster_queue_summary></job_info>"));
}

TEST(Qstat, JobDetails) {
  auto m = parse_job_details(R"(Following jobs do not exist or permissions are not sufficient: 
9
<?xml version='1.0'?>
<detailed_job_info  xmlns:xsd="x">
  <djob_info>
    <element><JB_job_number>2</JB_job_number><JB_ar>1</JB_ar><JB_owner>root</JB_owner>
      <JB_execution_time>0</JB_execution_time></element>
    <element><JB_job_number>3</JB_job_number><JB_owner>root</JB_owner></element>
    <element><JB_job_number>4</JB_job_number><JB_execution_time>1795838250</JB_execution_time>
      </element>
  </djob_info>
</detailed_job_info>)");
  ASSERT_TRUE(m) << m.err().message;
  EXPECT_EQ(*m, (std::map<std::string, job_details>{{"2", {"1", 0}}, {"4", {{}, 1795838250}}}));
  auto none = parse_job_details("Following jobs do not exist: 9\n");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

// What qstat -xml -r printed (SGE 8.1.9) for jobs submitted with -hold_jid 293,294 -q arb.q
// -l hostname=localhost, with -h, and one in an error state.
constexpr const char* qstat_waiting = R"(<?xml version='1.0'?>
<job_info  xmlns:xsd="x">
  <queue_info>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>297</JB_job_number>
      <JB_name>dep2</JB_name>
      <JB_owner>root</JB_owner>
      <state>hqw</state>
      <JB_submission_time>2026-11-28T03:48:11</JB_submission_time>
      <slots>1</slots>
      <hard_request name="h_rt" resource_contribution="0.000000">120</hard_request>
      <hard_request name="hostname" resource_contribution="0.000000">localhost</hard_request>
      <hard_req_queue>arb.q</hard_req_queue>
      <predecessor_jobs_req>293</predecessor_jobs_req>
      <predecessor_jobs_req>294</predecessor_jobs_req>
      <predecessor_jobs>293</predecessor_jobs>
      <predecessor_jobs>294</predecessor_jobs>
    </job_list>
    <job_list state="pending">
      <JB_job_number>296</JB_job_number>
      <JB_owner>root</JB_owner>
      <state>hqw</state>
      <slots>2</slots>
    </job_list>
    <job_list state="pending">
      <JB_job_number>298</JB_job_number>
      <JB_owner>root</JB_owner>
      <state>Eqw</state>
      <slots>2</slots>
    </job_list>
    <job_list state="pending">
      <JB_job_number>299</JB_job_number>
      <JB_owner>root</JB_owner>
      <state>qw</state>
      <slots>2</slots>
    </job_list>
  </job_info>
</job_info>)";

TEST(Qstat, WhatPendingJobsWaitFor) {
  auto r = parse_qstat(qstat_waiting);
  ASSERT_TRUE(r) << r.err().message;
  ASSERT_EQ(r->size(), 4u);
  // Its predecessors are modelled; the queue and host it is bound to are not.
  EXPECT_EQ((*r)[0].job.after, (std::vector<std::string>{"293", "294"}));
  EXPECT_EQ((*r)[0].job.approximation,
            "bound to queue arb.q: planned on any of the cell's slots; bound to host localhost: "
            "planned on any of the cell's slots");
  EXPECT_EQ((*r)[1].job.approximation, "held (qhold or qsub -h): planned as if released now");
  EXPECT_EQ((*r)[2].job.approximation, "in error state Eqw: planned as if cleared now");
  EXPECT_EQ((*r)[3].job.approximation, "");
  EXPECT_TRUE((*r)[3].job.after.empty());
}

TEST(Qacct, LastRecordWins) {
  const char* text = R"(==============================================================
qname        arb.q
jobnumber    5
failed       0
exit_status  0
==============================================================
qname        arb.q
jobnumber    5
failed       100 : assumedly after job
exit_status  137                 (Killed)
ru_wallclock 3s
)";
  auto r = parse_qacct(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->failed, 100);
  EXPECT_EQ(r->exit_status, 137);
  EXPECT_FALSE(parse_qacct("error: job id 6 not found\n"));
}

// Which failures are the host's (the job placed again) and which the job's own.
TEST(Qacct, FailuresOfTheHostAreToldFromTheJobsOwn) {
  auto r = parse_qacct(R"(==============================================================
qname        arb.q
jobnumber    7
failed       21  : in recognizing job
exit_status  0
)");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->failed, 21);
  for (int host : {1, 7, 8, 10, 11, 16, 18, 19, 21, 24, 25, 36})
    EXPECT_TRUE(failed_by_the_host(host)) << host;
  for (int own : {0, 17, 26, 27, 28, 29, 37, 38, 100, -1})
    EXPECT_FALSE(failed_by_the_host(own)) << own;
}

TEST(Classify, ClientMessages) {
  EXPECT_EQ(classify("error: commlib error: got select error (Connection refused)\nerror: unable "
                     "to send message to qmaster using port 6444 on host \"localhost\": got send "
                     "error"),
            errc::unreachable);
  EXPECT_EQ(classify("advance_reservation: no suitable queues"), errc::busy);
  EXPECT_EQ(classify("start time is in the past"), errc::invalid_window);
  EXPECT_EQ(classify("missing value for \"end time or duration\" in advance reservation request"),
            errc::invalid_window);
  EXPECT_EQ(classify("error: arb-x is not known as a user"), errc::permission_denied);
  EXPECT_EQ(classify("denied: advance_reservation \"99\" does not exist"), errc::not_found);
  EXPECT_EQ(classify("denied: job \"99\" does not exist"), errc::not_found);
  EXPECT_EQ(classify("\"advance_reservation\" rejected: pe range must be greater than zero"),
            errc::invalid_processor_range);
  EXPECT_EQ(classify("denied: \"1bad\" is not a valid object name (cannot start with a digit)"),
            errc::invalid_parameter);
  EXPECT_EQ(classify("Unable to run job: the job duration is longer than duration of the advance "
                     "reservation id 1"),
            errc::invalid_duration);
  EXPECT_EQ(classify("job rejected: the requested parallel environment \"nope\" does not exist"),
            errc::lrms_failure);
  EXPECT_EQ(classify("something new"), errc::lrms_failure);
}

// A job's needs as qsub -l requests (issue 35 item 4).
TEST(ResourceRequests, NeedsBecomeComplexRequests) {
  EXPECT_TRUE(resource_requests({}).empty());
  EXPECT_EQ(resource_requests({2048, 0, {"ib", "ssd"}, "linux"}),
            (std::vector<std::string>{"h_vmem=2048M", "ib=TRUE", "ssd=TRUE"}));
  EXPECT_EQ(resource_requests({0, 8192, {}, ""}), std::vector<std::string>{"mem_free=8192M"});
}

// qhost -q -F -xml of the test cell (8 slots on a 2-CPU host), with the BOOL complex
// display_win_gui set TRUE on it (qconf -mattr exechost complex_values), a second host like it
// and a third with FALSE, less memory and two queues; load values cut short.
constexpr std::string_view qhost_xml = R"(<?xml version='1.0'?>
<qhost xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qhost/qhost.xsd">
 <host name='global'>
   <hostvalue name='arch_string'>-</hostvalue>
   <hostvalue name='mem_total'>-</hostvalue>
 </host>
 <host name='localhost'>
   <hostvalue name='arch_string'>lx-amd64</hostvalue>
   <hostvalue name='num_proc'>2</hostvalue>
   <hostvalue name='mem_total'>23.6G</hostvalue>
   <resourcevalue name='arch' dominance='hl'>lx-amd64</resourcevalue>
   <resourcevalue name='num_proc' dominance='hl'>2.000000</resourcevalue>
   <resourcevalue name='mem_total' dominance='hl'>23.586G</resourcevalue>
   <resourcevalue name='m_socket' dominance='hl'>1.000000</resourcevalue>
   <resourcevalue name='display_win_gui' dominance='hf'>1.000000</resourcevalue>
 <queue name='arb.q'>
   <queuevalue qname='arb.q' name='qtype_string'>BIP</queuevalue>
   <queuevalue qname='arb.q' name='slots_used'>0</queuevalue>
   <queuevalue qname='arb.q' name='slots'>8</queuevalue>
   <queuevalue qname='arb.q' name='slots_resv'>0</queuevalue>
   <queuevalue qname='arb.q' name='state_string'></queuevalue>
 </queue>
 </host>
 <host name='node2'>
   <resourcevalue name='mem_total' dominance='hl'>23.586G</resourcevalue>
   <resourcevalue name='display_win_gui' dominance='hf'>1.000000</resourcevalue>
 <queue name='arb.q'>
   <queuevalue qname='arb.q' name='slots'>8</queuevalue>
 </queue>
 </host>
 <host name='node3'>
   <resourcevalue name='mem_total' dominance='hl'>885.434M</resourcevalue>
   <resourcevalue name='display_win_gui' dominance='hf'>0.000000</resourcevalue>
   <resourcevalue name='m_socket' dominance='hf'>1.000000</resourcevalue>
 <queue name='arb.q'>
   <queuevalue qname='arb.q' name='slots'>2</queuevalue>
 </queue>
 <queue name='other.q'>
   <queuevalue qname='other.q' name='slots'>2</queuevalue>
 </queue>
 </host>
 <host name='spare'>
   <resourcevalue name='mem_total' dominance='hl'>4G</resourcevalue>
 </host>
</qhost>)";

// The head of qconf -sc, and its BOOL lines.
constexpr std::string_view qconf_sc =
    R"(#name               shortcut   type      relop requestable consumable default  urgency 
#--------------------------------------------------------------------------------------
arch                a          STRING    ==    YES         NO         NONE     0
cpu                 cpu        DOUBLE    >=    YES         NO         0        0
display_win_gui     dwg        BOOL      ==    YES         NO         0        0
m_socket            socket     INT       <=    YES         NO         0        0
rerun               re         BOOL      ==    NO          NO         0        0
# >#< starts a comment but comments are not saved across edits --------
)";

TEST(Qhost, HostsAreNodeGroupsOfTheirSlotsMemoryAndTrueBooleans) {
  EXPECT_EQ(boolean_complexes(qconf_sc), (std::set<std::string>{"display_win_gui", "rerun"}));
  auto nodes = parse_qhost_nodes(qhost_xml, boolean_complexes(qconf_sc));
  ASSERT_TRUE(nodes) << nodes.err().message;
  // localhost and node2 alike; node3: FALSE is no feature, an INT is none either; its two
  // queues' slots add up; spare is in no queue; global is no host.
  EXPECT_EQ(*nodes, (std::vector<node_group>{{2, 8, 24152, {"display_win_gui"}}, {1, 4, 885, {}}}));
  EXPECT_FALSE(parse_qhost_nodes("<qhost><host name='a'>", {}));
  EXPECT_FALSE(parse_qhost_nodes(
      "<qhost><host name='a'><queue name='q'><queuevalue name='slots'>x</queuevalue></queue>"
      "</host></qhost>",
      {}));
}

TEST(Qhost, MemoryValuesInMib) {
  EXPECT_EQ(memory_mib("23.586G"), 24152);
  EXPECT_EQ(memory_mib("885.434M"), 885);
  EXPECT_EQ(memory_mib("512K"), 0);
  EXPECT_EQ(memory_mib("2048k"), 1);  // 2,048,000 bytes
  EXPECT_EQ(memory_mib("1g"), 953);   // 10^9 bytes
  EXPECT_EQ(memory_mib("1T"), 1048576);
  EXPECT_EQ(memory_mib("1073741824"), 1024);  // bytes
  EXPECT_FALSE(memory_mib("-"));
  EXPECT_FALSE(memory_mib(""));
  EXPECT_FALSE(memory_mib("12X"));
}

}  // namespace
}  // namespace arbroker::gridengine
