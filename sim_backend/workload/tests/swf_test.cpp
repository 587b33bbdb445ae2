#include "arbroker/sim/swf.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "trace_files.hpp"

namespace arbroker::sim {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Two records of SDSC-BLUE and one of KTH (requested procs -1 made up for the test),
// with a header in the archive's style.
const char* const snippet =
    "; Version: 2.2\n"
    "; Computer: IBM SP\n"
    "; UnixStartTime: 956700003\n"
    "; TimeZoneString: US/Pacific\n"
    "; MaxNodes: 338 (batch partition; 512 total)\n"
    "; MaxProcs: 1152\n"
    ";\n"
    "    9   430593     13  50866  256  25381    -1  256  64800    -1  1  95  -1  -1  4 -1 -1 -1\n"
    "\n"
    "   10   430730     31  10770  256   5343.5  -1  256  28800    -1  1  95  -1  -1  4 -1 -1 "
    "-1\r\n"
    "\t17\t600476 364560 215337    5     -1    -1   -1 215400    -1  0  14  14  -1 -1 -1 -1 -1\n";

TEST(SwfRead, ParsesAllFieldsAndTheHeader) {
  auto t = read_swf_string(snippet, "snippet.swf");
  ASSERT_TRUE(t) << to_string(t.err());
  ASSERT_EQ(t->jobs.size(), 3U);

  const swf_job& a = t->jobs[0];
  EXPECT_EQ(a.job_id, 9);
  EXPECT_EQ(a.submit_time, 430593);
  EXPECT_EQ(a.wait_time, 13);
  EXPECT_EQ(a.run_time, 50866);
  EXPECT_EQ(a.allocated_procs, 256);
  EXPECT_EQ(a.avg_cpu_time, 25381.0);
  EXPECT_EQ(a.used_memory, -1.0);
  EXPECT_EQ(a.requested_procs, 256);
  EXPECT_EQ(a.requested_time, 64800);
  EXPECT_EQ(a.requested_memory, -1.0);
  EXPECT_EQ(a.status, 1);
  EXPECT_EQ(a.user_id, 95);
  EXPECT_EQ(a.group_id, -1);
  EXPECT_EQ(a.executable_id, -1);
  EXPECT_EQ(a.queue, 4);
  EXPECT_EQ(a.partition, -1);
  EXPECT_EQ(a.preceding_job, -1);
  EXPECT_EQ(a.think_time, -1);

  EXPECT_EQ(t->jobs[1].avg_cpu_time, 5343.5);  // CRLF line end
  EXPECT_EQ(t->jobs[2].job_id, 17);            // tabs
  EXPECT_EQ(t->jobs[2].status, 0);
  EXPECT_EQ(t->jobs[2].user_id, 14);
  EXPECT_EQ(t->jobs[2].group_id, 14);

  const swf_header& h = t->header;
  EXPECT_EQ(h.max_procs, 1152);
  EXPECT_EQ(h.max_nodes, 338);
  EXPECT_EQ(h.unix_start_time, 956700003);
  EXPECT_EQ(h.time_zone_string, "US/Pacific");
  ASSERT_EQ(h.comments.size(), 7U);
  EXPECT_EQ(h.comments[0], "; Version: 2.2");
  EXPECT_EQ(h.comments[4], "; MaxNodes: 338 (batch partition; 512 total)");
  EXPECT_EQ(h.comments[6], ";");
}

TEST(SwfRead, AbsentHeaderFieldsStayUnknown) {
  auto t = read_swf_string("1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->header.comments.empty());
  EXPECT_EQ(t->header.max_procs, -1);
  EXPECT_EQ(t->header.max_nodes, -1);
  EXPECT_EQ(t->header.unix_start_time, -1);
  EXPECT_EQ(t->header.time_zone_string, "");
  EXPECT_EQ(t->jobs.size(), 1U);
}

TEST(SwfRead, EmptyTextIsAnEmptyTrace) {
  auto t = read_swf_string("");
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->jobs.empty());
  EXPECT_TRUE(t->header.comments.empty());
}

TEST(SwfRead, ProcsPrefersRequestedThenAllocated) {
  swf_job j;
  j.requested_procs = 8;
  j.allocated_procs = 16;
  EXPECT_EQ(procs(j), 8);
  j.requested_procs = -1;
  EXPECT_EQ(procs(j), 16);
  j.requested_procs = 0;
  EXPECT_EQ(procs(j), 16);
  j.allocated_procs = -1;
  EXPECT_EQ(procs(j), -1);
}

// The error of reading `text` as "t.swf".
error read_error(const std::string& text) {
  auto t = read_swf_string(text, "t.swf");
  EXPECT_FALSE(t) << text;
  if (t) return {};
  return t.err();
}

const std::string good_line = "1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";

TEST(SwfRead, MalformedLinesNameFileLineAndProblem) {
  struct bad_case {
    std::string line;
    std::string message;
  };
  const bad_case cases[] = {
      {"1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1", "t.swf:3: expected 18 fields, found 17"},
      {"1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 7 8",
       "t.swf:3: expected 18 fields, found 20"},
      {"1 0 -1 1O 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 4 (run time): '1O' is not an integer"},
      {"1 0 -1 10.5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 4 (run time): '10.5' is not an integer"},
      {"1 0 -1 10 1 x -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 6 (average CPU time): 'x' is not a number"},
      {"1 0 -1 10 1 nan -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 6 (average CPU time): 'nan' is not a number"},
      {"1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -7",
       "t.swf:3: field 18 (think time) is -7; only -1 (unknown) may be negative"},
      {"1 0 -1 10 -2 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 5 (allocated procs) is -2; only -1 (unknown) may be negative"},
      {"1 0 -1 10 1 -1.5 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 6 (average CPU time) is -1.5; only -1 (unknown) may be negative"},
      {"1 0 -1 10 1 -0.5 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 6 (average CPU time) is -0.5; only -1 (unknown) may be negative"},
      {"-1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 1 (job number) is -1; a job needs a known job number"},
      {"1 -1 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 2 (submit time) is -1; a job needs a known submit time"},
      {"1 99999999999999999999 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
       "t.swf:3: field 2 (submit time): '99999999999999999999' is out of range"},
      {"; MaxProcs: many", "t.swf:3: header MaxProcs: 'many' is not an integer"},
  };
  for (const auto& c : cases) {
    // Line 3, after a comment and a good record.
    const error e = read_error("; a comment\n" + good_line + c.line + "\n" + good_line);
    EXPECT_EQ(e.code, errc::invalid_parameter) << c.line;
    EXPECT_EQ(e.message, c.message) << c.line;
  }
}

TEST(SwfRead, BadRecordsAreSkippedAndCountedByReasonWhenAsked) {
  // The kinds real traces have: a negative status code, an unknown submit time, missing
  // fields, garbage; and a second record of one reason.
  const std::string text =
      "; MaxProcs: 8\n" + good_line + "2 5 -1 10 1 -1 -1 1 -1 -1 -4 -1 -1 -1 -1 -1 -1 -1\n" +
      "3 -1 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" + "4 9 -1 10 1 -1 -1 1 -1 -1 1\n" +
      "5 9 -1 x 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
      "6 9 -1 10 1 -1 -1 1 -1 -1 -5 -1 -1 -1 -1 -1 -1 -1\n" + good_line;
  EXPECT_EQ(read_swf_string(text, "t.swf").err().code, errc::invalid_parameter);  // strict
  auto t = read_swf_string(text, "t.swf", {.skip_bad_records = true});
  ASSERT_TRUE(t) << t.err().message;
  EXPECT_EQ(t->jobs.size(), 2u);  // the two good ones
  EXPECT_EQ(t->header.max_procs, 8);
  ASSERT_EQ(t->skipped.size(), 4u);
  const auto& status = t->skipped.at("field 11 (status) is negative");
  EXPECT_EQ(status.count, 2);
  EXPECT_EQ(status.first_line, 3u);
  EXPECT_EQ(status.first, "t.swf:3: field 11 (status) is -4; only -1 (unknown) may be negative");
  EXPECT_EQ(t->skipped.at("unknown submit time").count, 1);
  EXPECT_EQ(t->skipped.at("wrong number of fields").count, 1);
  EXPECT_EQ(t->skipped.at("field 4 (run time) is not a number").first_line, 6u);
  // A bad header line is refused either way: the trace's machine is not known then.
  EXPECT_FALSE(read_swf_string("; MaxProcs: many\n" + good_line, "t", {.skip_bad_records = true}));
}

TEST(SwfRead, LongBadTokensAreShortenedInMessages) {
  const std::string junk(100, 'x');
  const error e = read_error("1 0 -1 " + junk + " 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
  EXPECT_EQ(e.message,
            "t.swf:1: field 4 (run time): '" + std::string(40, 'x') + "...' is not an integer");
}

TEST(SwfRead, ReadsAStream) {
  std::istringstream in(snippet);
  auto t = read_swf_stream(in, "in");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->jobs.size(), 3U);
  std::istringstream bad("1 2 3\n");
  auto b = read_swf_stream(bad, "in");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.err().message, "in:1: expected 18 fields, found 3");
}

TEST(SwfWrite, RoundTripsThroughText) {
  auto t = read_swf_string(snippet);
  ASSERT_TRUE(t);
  const std::string text = format_swf(*t);
  auto back = read_swf_string(text);
  ASSERT_TRUE(back) << to_string(back.err());
  EXPECT_EQ(*back, *t);
  // Single spaces, shortest numbers.
  EXPECT_TRUE(
      contains(text, "\n10 430730 31 10770 256 5343.5 -1 256 28800 -1 1 95 -1 -1 4 -1 -1 -1\n"))
      << text;
}

TEST(SwfWrite, MakesHeaderLinesWhenThereAreNoComments) {
  swf_trace t;
  t.header.max_procs = 128;
  t.header.max_nodes = 64;
  t.header.unix_start_time = 1000;
  t.header.time_zone_string = "Europe/Berlin";
  swf_job j;
  j.job_id = 1;
  j.submit_time = 0;
  j.run_time = 5;
  t.jobs.push_back(j);
  const std::string text = format_swf(t);
  EXPECT_EQ(text,
            "; Version: 2.2\n"
            "; UnixStartTime: 1000\n"
            "; TimeZoneString: Europe/Berlin\n"
            "; MaxNodes: 64\n"
            "; MaxProcs: 128\n"
            "1 0 -1 5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n");
  auto back = read_swf_string(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->header.max_procs, 128);
  EXPECT_EQ(back->header.max_nodes, 64);
  EXPECT_EQ(back->header.unix_start_time, 1000);
  EXPECT_EQ(back->header.time_zone_string, "Europe/Berlin");
  EXPECT_EQ(back->jobs, t.jobs);
}

TEST(SwfWrite, WritesToAStream) {
  auto t = read_swf_string(snippet);
  ASSERT_TRUE(t);
  std::ostringstream out;
  ASSERT_TRUE(write_swf(out, *t));
  EXPECT_EQ(out.str(), format_swf(*t));
}

class SwfFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("arb_swf_") + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

// A record is read in one go when it is sound and field by field otherwise (a 19-digit
// job number here); both give the same values, real fields included ("2.5e1", "-0" as -0.0,
// "3.25").
TEST(Swf, RecordsReadTheSameWhicheverWay) {
  const std::string tail = " 0 -1 10 1 2.5e1 -0 1 -1 3.25 1 -1 -1 -1 -1 -1 -1 -1\n";
  auto t = read_swf_string("1" + tail + "0000000000000000001" + tail);
  ASSERT_TRUE(t) << to_string(t.err());
  ASSERT_EQ(t->jobs.size(), 2U);
  EXPECT_EQ(t->jobs[0], t->jobs[1]);
  const swf_job& j = t->jobs[0];
  EXPECT_EQ(j.job_id, 1);
  EXPECT_EQ(j.avg_cpu_time, 25.0);
  EXPECT_EQ(j.used_memory, 0.0);
  EXPECT_TRUE(std::signbit(j.used_memory));
  EXPECT_EQ(j.requested_memory, 3.25);
  EXPECT_EQ(j.run_time, 10);
}

TEST_F(SwfFiles, PlainAndGzipRoundTrip) {
  auto t = read_swf_string(snippet);
  ASSERT_TRUE(t);
  for (const char* name : {"t.swf", "t.swf.gz"}) {
    const auto path = dir_ / name;
    ASSERT_TRUE(write_swf(path, *t)) << name;
    auto back = read_swf(path);
    ASSERT_TRUE(back) << to_string(back.err());
    EXPECT_EQ(*back, *t) << name;
  }
  // Compressed means compressed: the .gz file starts with the gzip magic bytes.
  std::ifstream gz(dir_ / "t.swf.gz", std::ios::binary);
  EXPECT_EQ(gz.get(), 0x1f);
  EXPECT_EQ(gz.get(), 0x8b);
}

// A regular file is mapped, anything else (here a pipe) read: both give the same trace, and
// an empty file is an empty trace.
TEST_F(SwfFiles, PipesAndEmptyFilesAreReadToo) {
  auto t = read_swf_string(snippet);
  ASSERT_TRUE(t);
  for (const char* name : {"t.swf", "t.swf.gz"}) {
    ASSERT_TRUE(write_swf(dir_ / name, *t)) << name;
    const auto fifo = dir_ / (std::string(name) + ".fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] {
      std::ifstream in(dir_ / name, std::ios::binary);
      std::ofstream out(fifo, std::ios::binary);  // blocks until the reader opens the pipe
      out << in.rdbuf();
    });
    auto back = read_swf(fifo);
    writer.join();
    ASSERT_TRUE(back) << name << ": " << to_string(back.err());
    EXPECT_EQ(*back, *t) << name;
  }
  std::ofstream(dir_ / "empty.swf").close();
  auto empty = read_swf(dir_ / "empty.swf");
  ASSERT_TRUE(empty) << to_string(empty.err());
  EXPECT_TRUE(empty->jobs.empty());
}

TEST_F(SwfFiles, CompressionIsToldByContentNotName) {
  auto t = read_swf_string(snippet);
  ASSERT_TRUE(t);
  ASSERT_TRUE(write_swf(dir_ / "a.swf.gz", *t));
  ASSERT_TRUE(write_swf(dir_ / "b.swf", *t));
  std::filesystem::rename(dir_ / "a.swf.gz", dir_ / "gzip_named_plain.swf");
  std::filesystem::rename(dir_ / "b.swf", dir_ / "plain_named_gzip.swf.gz");
  for (const char* name : {"gzip_named_plain.swf", "plain_named_gzip.swf.gz"}) {
    auto back = read_swf(dir_ / name);
    ASSERT_TRUE(back) << name << ": " << to_string(back.err());
    EXPECT_EQ(*back, *t) << name;
  }
}

TEST_F(SwfFiles, ErrorsNameTheFile) {
  auto missing = read_swf(dir_ / "missing.swf");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.err().code, errc::not_found);
  EXPECT_TRUE(contains(missing.err().message, "missing.swf")) << missing.err().message;

  const auto bad = dir_ / "bad.swf";
  std::ofstream(bad) << "; header\n" << good_line << "1 2 3\n";
  auto b = read_swf(bad);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.err().code, errc::invalid_parameter);
  EXPECT_EQ(b.err().message, bad.string() + ":3: expected 18 fields, found 3");

  EXPECT_FALSE(write_swf(dir_ / "no_such_dir" / "x.swf", swf_trace{}));
}

TEST_F(SwfFiles, TruncatedGzipIsAnError) {
  swf_trace t;
  for (int i = 1; i <= 2000; ++i) {
    swf_job j;
    j.job_id = i;
    j.submit_time = i * 7;
    j.run_time = i % 97 + 1;
    j.user_id = i % 13;
    t.jobs.push_back(j);
  }
  const auto path = dir_ / "t.swf.gz";
  ASSERT_TRUE(write_swf(path, t));
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  auto back = read_swf(path);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.err().code, errc::invalid_parameter);
  EXPECT_TRUE(contains(back.err().message, "t.swf.gz")) << back.err().message;
}

TEST(SwfRealTraces, KthPlain) {
  const swf_trace* t = testing::cached_trace(testing::kth_file);
  if (t == nullptr) return;  // the test has failed
  ASSERT_EQ(t->jobs.size(), 28476U);
  EXPECT_EQ(t->header.max_procs, 100);
  EXPECT_EQ(t->header.max_nodes, 100);
  EXPECT_EQ(t->header.unix_start_time, 843480031);
  EXPECT_EQ(t->header.time_zone_string, "Europe/Stockholm");
  EXPECT_EQ(t->header.comments.size(), 24U);
  EXPECT_EQ(t->jobs.front().job_id, 15);
  EXPECT_EQ(t->jobs.front().submit_time, 599850);
  EXPECT_EQ(t->jobs.back().job_id, 28490);
  EXPECT_EQ(t->jobs.back().requested_time, 30000);
  // Written and read again, the trace is unchanged.
  auto back = read_swf_string(format_swf(*t));
  ASSERT_TRUE(back);
  EXPECT_TRUE(*back == *t);
}

TEST(SwfRealTraces, SdscBlueGzip) {
  const swf_trace* t = testing::cached_trace(testing::blue_file);
  if (t == nullptr) return;  // the test has failed
  ASSERT_EQ(t->jobs.size(), 243306U);
  EXPECT_EQ(t->header.max_procs, 1152);
  EXPECT_EQ(t->header.max_nodes, 144);
  EXPECT_EQ(t->header.unix_start_time, 956700003);
  EXPECT_EQ(t->header.time_zone_string, "US/Pacific");
  EXPECT_EQ(t->jobs.front().job_id, 9);
  EXPECT_EQ(t->jobs.front().submit_time, 430593);
  EXPECT_EQ(t->jobs.back().job_id, 250440);
  EXPECT_EQ(t->jobs.back().avg_cpu_time, 2.12);
  std::size_t completed = 0;
  std::size_t cancelled = 0;
  std::size_t unknown = 0;
  for (const swf_job& j : t->jobs) {
    completed += j.status == 1;
    cancelled += j.status == 5;
    unknown += j.status == -1;
  }
  EXPECT_EQ(completed, 195586U);
  EXPECT_EQ(cancelled, 47718U);
  EXPECT_EQ(unknown, 2U);
}

}  // namespace
}  // namespace arbroker::sim
