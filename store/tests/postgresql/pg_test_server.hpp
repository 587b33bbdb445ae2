#pragma once

// The PostgreSQL server of the store's tests (the ctest fixture postgresql starts it:
// scripts/postgresql/start.sh) and a schema of its own per test.

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "arbroker/store/store.hpp"
#include "store_place.hpp"
#include "test_rows.hpp"

namespace arbroker::testing {

using namespace test_rows;

// The server's URI (the fixture sets it); a run without it fails, it does not skip.
inline std::string server_uri() {
  const char* uri = std::getenv("ARB_TEST_POSTGRESQL");
  return uri ? uri : "";
}

// An administrator's session beside the store's, to set up and break things.
class admin_session {
 public:
  admin_session() : conn_(PQconnectdb(server_uri().c_str()), &PQfinish) {
    EXPECT_EQ(PQstatus(conn_.get()), CONNECTION_OK)
        << "ARB_TEST_POSTGRESQL='" << server_uri() << "': " << PQerrorMessage(conn_.get());
    PQsetNoticeProcessor(
        conn_.get(), [](void*, const char*) {}, nullptr);  // "does not exist"
  }
  void exec(const std::string& sql) {
    auto* r = PQexec(conn_.get(), sql.c_str());
    const auto st = PQresultStatus(r);
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        << sql << ": " << PQresultErrorMessage(r);
    PQclear(r);
  }
  /// The first column of the first row.
  std::string value(const std::string& sql) {
    auto* r = PQexec(conn_.get(), sql.c_str());
    std::string out = PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return out;
  }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// A fresh schema per test (a store's tables live in its connection's search_path).
class postgresql_place final : public store_place {
 public:
  postgresql_place()
      : schema_("t_" + std::to_string(::getpid()) + "_" +
                std::to_string(reinterpret_cast<std::uintptr_t>(this) % 100000)) {
    admin_.exec("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    admin_.exec("CREATE SCHEMA " + schema_);
  }
  ~postgresql_place() override { admin_.exec("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE"); }
  std::string where() const override {
    const auto uri = server_uri();
    return uri + (uri.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
           schema_;
  }
  void set_schema_version(int version) override {
    admin_.exec("UPDATE " + schema_ + ".arb_schema SET version = " + std::to_string(version));
  }
  admin_session& admin() { return admin_; }
  const std::string& schema() const { return schema_; }

 private:
  admin_session admin_;
  std::string schema_;
};

}  // namespace arbroker::testing
