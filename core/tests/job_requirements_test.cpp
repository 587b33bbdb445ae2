#include "arbroker/core/job_requirements.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

// Two kinds of nodes: 4 small ones (8 CPUs, 16 GiB, no features) and 2 large ones (32 CPUs,
// 64 GiB, ib and avx512).
const std::vector<node_group> mixed = {{4, 8, 16384, {}}, {2, 32, 65536, {"ib", "avx512"}}};

// What a cluster publishes of its nodes is checked before jobs are placed by it.
TEST(JobRequirements, ANodeGroupNeedsNodesCpusAndAPossibleMemory) {
  EXPECT_TRUE(check(node_group{2, 16, 65536, {"ib", "gpu:a100"}}));  // Slurm's names as they are
  EXPECT_TRUE(check(node_group{1, 1, 0, {}}));                       // memory not known
  for (const auto& bad :
       {node_group{0, 16, 0, {}}, node_group{2, 0, 0, {}}, node_group{2, 16, -1, {}},
        node_group{2, 16, max_memory_mib + 1, {}}, node_group{2, 16, 0, {""}}})
    EXPECT_EQ(check(bad).err().code, errc::invalid_parameter);
  EXPECT_EQ(check(node_group{-3, 16, 0, {}}).err().message,
            "count -3 and cpus 16: both must be at least 1");
}

TEST(JobRequirements, NoNeedsUseEveryCpu) {
  EXPECT_EQ(usable_cpus(mixed, {}), 4 * 8 + 2 * 32);
}

TEST(JobRequirements, FeaturesCountOnlyTheNodesThatHaveThemAll) {
  EXPECT_EQ(usable_cpus(mixed, {0, 0, {"ib"}, ""}), 64);
  EXPECT_EQ(usable_cpus(mixed, {0, 0, {"ib", "avx512"}, ""}), 64);
  EXPECT_EQ(usable_cpus(mixed, {0, 0, {"ib", "gpu"}, ""}), 0);
}

TEST(JobRequirements, MemoryPerCpuLimitsTheCpusOfEachNode) {
  // 4 GiB per CPU: a small node holds 4 of its 8 CPUs, a large one 16 of its 32.
  EXPECT_EQ(usable_cpus(mixed, {4096, 0, {}, ""}), 4 * 4 + 2 * 16);
  // 16 GiB per CPU leaves the small nodes one each.
  EXPECT_EQ(usable_cpus(mixed, {16384, 0, {}, ""}), 4 * 1 + 2 * 4);
}

TEST(JobRequirements, MemoryPerNodeLeavesOutTheSmallerNodes) {
  EXPECT_EQ(usable_cpus(mixed, {0, 16384, {}, ""}), 4 * 8 + 2 * 32);  // the boundary fits
  EXPECT_EQ(usable_cpus(mixed, {0, 16385, {}, ""}), 2 * 32);
  EXPECT_EQ(usable_cpus(mixed, {0, 65537, {}, ""}), 0);
}

TEST(JobRequirements, UnknownMemoryIsLeftToTheLrms) {
  EXPECT_EQ(usable_cpus({{2, 8, 0, {}}}, {0, 1 << 20, {}, ""}), 16);
}

TEST(JobRequirements, UnmetSaysWhy) {
  const node_offer o{"linux", {"ib", "avx512"}, mixed};
  EXPECT_EQ(unmet(o, {}, 96), "");
  EXPECT_EQ(unmet(o, {}, 97), "has 96 CPUs, the job needs 97");
  EXPECT_EQ(unmet(o, {0, 0, {"gpu"}, ""}, 1), "offers no feature gpu");
  EXPECT_EQ(unmet(o, {0, 0, {"ib"}, ""}, 65), "has 64 CPUs with ib, the job needs 65");
  EXPECT_EQ(unmet(o, {4096, 0, {}, ""}, 49), "has 48 CPUs with 4096 MiB each, the job needs 49");
  EXPECT_EQ(unmet(o, {0, 0, {}, "aix"}, 1), "runs linux, not aix");
  EXPECT_EQ(unmet({}, {0, 0, {}, "linux"}, 1), "runs an unnamed OS, not linux");
}

TEST(JobRequirements, WithoutPublishedNodesTheClusterFeaturesDecide) {
  const node_offer o{"", {"ib"}, {}};
  EXPECT_EQ(unmet(o, {1 << 20, 0, {"ib"}, ""}, 1000), "");  // memory and size: the LRMS's
  EXPECT_EQ(unmet(o, {0, 0, {"gpu"}, ""}, 1), "offers no feature gpu");
}

TEST(JobRequirements, InAReservationEveryNodeMustMeetThem) {
  const node_offer o{"", {}, mixed};
  EXPECT_EQ(unmet(o, {0, 0, {"ib"}, ""}, 1, true),
            "not every node has ib (a reservation takes any node)");
  EXPECT_EQ(unmet(o, {2048, 0, {}, ""}, 1, true), "");  // 8 x 2 GiB fits a small node
  EXPECT_EQ(unmet(o, {2049, 0, {}, ""}, 1, true),
            "nodes of 16384 MiB, the job needs 16392 on each (a reservation takes any node)");
  const node_offer large{"", {}, {{2, 32, 65536, {"ib"}}}};
  EXPECT_EQ(unmet(large, {0, 0, {"ib"}, ""}, 1, true), "");
}

TEST(JobRequirements, CheckRefusesWhatNoLrmsTakes) {
  EXPECT_TRUE(check(job_requirements{}));
  EXPECT_TRUE(check(job_requirements{1024, 0, {"ib", "gpu"}, "linux"}));
  auto refused = [](const job_requirements& r) {
    auto s = check(r);
    EXPECT_FALSE(s);
    return s ? std::string() : s.err().message;
  };
  EXPECT_EQ(refused({-1, 0, {}, ""}), "mem_per_cpu: -1 MiB is outside 0..1073741824");
  EXPECT_EQ(refused({0, max_memory_mib + 1, {}, ""}),
            "mem_per_node: 1073741825 MiB is outside 0..1073741824");
  EXPECT_NE(refused({1, 1, {}, ""}).find("name one of them"), std::string::npos);
  EXPECT_EQ(refused({0, 0, {"ib", "ib"}, ""}), "features: ib named twice");
  EXPECT_EQ(refused({0, 0, {""}, ""}), "features: an empty name");
  EXPECT_EQ(refused({0, 0, {"ib|gpu"}, ""}),
            "features: 'ib|gpu' may hold letters, digits, '_', '-' and '.' only");
  EXPECT_FALSE(check(job_requirements{0, 0, {"a=TRUE"}, ""}));
}

TEST(JobRequirements, MemoryIsReadAsSlurmWritesIt) {
  EXPECT_EQ(*parse_memory_mib("4096"), 4096);
  EXPECT_EQ(*parse_memory_mib("512M"), 512);
  EXPECT_EQ(*parse_memory_mib("16G"), 16384);
  EXPECT_EQ(*parse_memory_mib("2t"), 2 * 1024 * 1024);
  EXPECT_EQ(*parse_memory_mib("1025K"), 2);  // rounded up
  for (const char* bad : {"", "G", "-1", "1.5G", "16GB", "abc", "9999999999999"})
    EXPECT_FALSE(parse_memory_mib(bad)) << bad;
  auto over = parse_memory_mib("2000T");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.err().message, "memory '2000T': above 1073741824 MiB");
}

}  // namespace
}  // namespace arbroker
