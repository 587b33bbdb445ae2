// The store's promises (journal_contract.hpp), kept by the SQLite store.
#include <sqlite3.h>

#include "journal_contract.hpp"
#include "scratch_dir.hpp"

namespace arbroker::testing {
namespace {

class sqlite_place final : public store_place {
 public:
  std::string where() const override { return (dir_.path() / "arb.db").string(); }
  void set_schema_version(int version) override {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(where().c_str(), &raw), SQLITE_OK);
    const auto pragma = "PRAGMA user_version=" + std::to_string(version);
    EXPECT_EQ(sqlite3_exec(raw, pragma.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }

 private:
  scratch_dir dir_{"arb-store"};
};

INSTANTIATE_TEST_SUITE_P(backend, journal_contract,
                         ::testing::Values(store_backend{
                             "sqlite", [] { return std::make_unique<sqlite_place>(); }}),
                         backend_name);

}  // namespace
}  // namespace arbroker::testing
