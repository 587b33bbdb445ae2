// The keys of a [[cluster]] table are listed once (cluster_keys: the description, then
// policy_fields): the reading accepts exactly them, every policy key reaches its setting, and
// docs/config.md's table documents exactly them.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "arbroker/node/node_config.hpp"

namespace arbroker {
namespace {

const std::string one_cluster = "[[cluster]]\nname = \"c\"\ncpus = 8\n";

// A value of the setting's type that no default has, as TOML, and a check that it arrived.
struct probe {
  std::string toml;
  bool (*arrived)(policy_field::ref);
};
probe probe_for(policy_field::ref r) {
  return std::visit(
      [](auto* v) -> probe {
        using T = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<T, duration>)
          return {"\"77s\"", [](policy_field::ref x) { return *std::get<duration*>(x) == 77; }};
        if constexpr (std::is_same_v<T, double>)
          return {"0.125", [](policy_field::ref x) { return *std::get<double*>(x) == 0.125; }};
        if constexpr (std::is_same_v<T, int>)
          return {"7", [](policy_field::ref x) { return *std::get<int*>(x) == 7; }};
        if constexpr (std::is_same_v<T, bool>)
          return {"true", [](policy_field::ref x) { return *std::get<bool*>(x); }};
        if constexpr (std::is_same_v<T, ljp_policy>)
          return {"\"off\"",
                  [](policy_field::ref x) { return *std::get<ljp_policy*>(x) == ljp_policy::off; }};
        if constexpr (std::is_same_v<T, ljp_method>)
          return {"\"twkl\"", [](policy_field::ref x) {
                    return *std::get<ljp_method*>(x) == ljp_method::twkl;
                  }};
        if constexpr (std::is_same_v<T, job_end_policy>)
          return {"\"release\"", [](policy_field::ref x) {
                    return *std::get<job_end_policy*>(x) == job_end_policy::release;
                  }};
      },
      r);
}

TEST(ClusterKeys, EveryPolicyKeyReachesItsSettingAndItAlone) {
  for (const auto& f : policy_fields()) {
    cluster_entry defaults;
    const auto p = probe_for(f.of(defaults));
    ASSERT_FALSE(p.arrived(f.of(defaults))) << f.key << ": the probe is a default";
    auto cfg = parse_node_config(one_cluster + std::string(f.key) + " = " + p.toml + "\n", "t");
    ASSERT_TRUE(cfg) << f.key << ": " << to_string(cfg.err());
    auto& c = cfg->clusters.at(0);
    EXPECT_TRUE(p.arrived(f.of(c))) << f.key;
    for (const auto& other : policy_fields())  // nothing else moved
      if (other.key != f.key) {
        const auto q = probe_for(other.of(c));
        EXPECT_EQ(q.arrived(other.of(c)), q.arrived(other.of(defaults)))
            << f.key << " also set " << other.key;
      }
  }
}

TEST(ClusterKeys, AKeyOutsideTheListIsRefusedNamingIt) {
  auto cfg = parse_node_config(one_cluster + "refresh_every = \"1s\"\n", "t");
  ASSERT_FALSE(cfg);
  EXPECT_NE(cfg.err().message.find("cluster[0].refresh_every: unknown key"), std::string::npos)
      << cfg.err().message;
}

// The first cells of the table under "## `[[cluster]]`" in docs/config.md.
std::set<std::string> documented_keys() {
  std::ifstream in(ARB_SOURCE_DIR "/docs/config.md");
  std::string line;
  bool in_section = false;
  std::set<std::string> keys;
  const std::regex key("`([a-z_]+)`");
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0 || line.rfind("### ", 0) == 0) {
      in_section = line == "## `[[cluster]]`";
      continue;
    }
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    const std::string first = line.substr(0, line.find(" |", 2));
    for (std::sregex_iterator it(first.begin(), first.end(), key), end; it != end; ++it)
      keys.insert((*it)[1]);
  }
  return keys;
}

TEST(ClusterKeys, TheDocsTableListsExactlyTheKeysTheReadingAccepts) {
  std::set<std::string> known;
  for (auto k : cluster_keys())
    known.insert(std::string(k));
  const auto documented = documented_keys();
  ASSERT_FALSE(documented.empty()) << "no table under ## `[[cluster]]` in docs/config.md";
  for (const auto& k : known)
    EXPECT_TRUE(documented.contains(k)) << "docs/config.md does not document `" << k << "`";
  for (const auto& k : documented)
    EXPECT_TRUE(known.contains(k)) << "docs/config.md documents `" << k << "`, not a key";
}

}  // namespace
}  // namespace arbroker
