#include "arbroker/messages/caf_types.hpp"

#include <gtest/gtest.h>
#include <caf/all.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "arbroker/messages/all_types.hpp"
#include "field_randomizer.hpp"

namespace arbroker::msg {
namespace {

struct config : caf::actor_system_config {
  config() {
    register_message_types(*this);
    set("scheduler.policy", caf::atom("testing"));
  }
};

// A caf::message holding T, serialized and read back as CAF does between nodes: this fails
// (empty or undecodable bytes) for a type that is not registered.
template <class T>
void check_round_trip(caf::actor_system& sys, const char* name, std::uint64_t seed) {
  const T original = testing::random_message<T>(seed);
  auto msg = caf::make_message(original);
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto err = sink(msg);
  ASSERT_FALSE(err) << name << ": " << sys.render(err);
  ASSERT_GT(buf.size(), std::string_view(name).size()) << name << " serialized to nothing";
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  err = source(back);
  ASSERT_FALSE(err) << name << ": " << sys.render(err);
  ASSERT_TRUE(back.match_elements<T>()) << name;
  EXPECT_TRUE(back.get_as<T>(0) == original) << name << " seed " << seed;
}

TEST(CafTypes, EveryMessageTypeIsRegisteredAndRoundTrips) {
  config cfg;
  caf::actor_system sys{cfg};
  std::apply(
      [&sys](const auto&... named) {
        (
            [&sys](const auto& n) {
              using T = typename std::decay_t<decltype(n)>::type;
              for (std::uint64_t seed = 1; seed <= 5; ++seed)
                check_round_trip<T>(sys, n.name, seed);
            }(named),
            ...);
      },
      all_types);
}

TEST(CafTypes, AnUnregisteredTypeIsCaught) {
  // The failure mode the test above guards against: a config without the registration.
  caf::actor_system_config bare;
  bare.set("scheduler.policy", caf::atom("testing"));
  caf::actor_system sys{bare};
  auto msg = caf::make_message(testing::random_message<probe_request>(1));
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto err = sink(msg);
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  auto err2 = source(back);
  EXPECT_TRUE(err || err2 || !back.match_elements<probe_request>());
}

}  // namespace
}  // namespace arbroker::msg
