#include "arbroker/store/backup.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <memory>

namespace arbroker {
namespace {

struct db_closer {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using db_ptr = std::unique_ptr<sqlite3, db_closer>;

error failure(const std::string& what, sqlite3* db) {
  return {errc::storage_failure, what + (db ? std::string(": ") + sqlite3_errmsg(db) : "")};
}

result<db_ptr> open_db(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  db_ptr db{raw};
  if (rc != SQLITE_OK) return failure("cannot open " + path, raw);
  sqlite3_busy_timeout(raw, 5000);
  return db;
}

// One number from a query, or an error naming it.
result<std::int64_t> scalar(sqlite3* db, const char* sql, const std::string& what) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return failure(what, db);
  std::int64_t v = 0;
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return failure(what, db);
  return v;
}

result<backup_report> copy(sqlite3* from, sqlite3* to, const std::string& source,
                           const std::string& destination) {
  // Not a store at all (or an empty file): refuse rather than copy something else.
  auto version = scalar(from, "PRAGMA user_version", source + " is not a database");
  if (!version) return version.err();
  if (*version == 0)
    return error{errc::storage_failure, source + " is not an arbroker store (no schema)"};
  sqlite3_backup* b = sqlite3_backup_init(to, "main", from, "main");
  if (!b) return failure("cannot start the backup to " + destination, to);
  // All pages in one step: one read transaction, so the copy is one consistent snapshot.
  const int rc = sqlite3_backup_step(b, -1);
  backup_report r;
  r.pages = sqlite3_backup_pagecount(b);
  sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE) return failure("cannot copy " + source + " to " + destination, to);
  auto check = [&](const char* sql, std::int64_t& out, const char* what) -> status {
    auto v = scalar(to, sql, destination + ": " + what);
    if (!v) return v.err();
    out = *v;
    return {};
  };
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(to, "PRAGMA integrity_check", -1, &st, nullptr) != SQLITE_OK)
    return failure(destination + ": cannot check the copy", to);
  std::string verdict;
  if (sqlite3_step(st) == SQLITE_ROW)
    verdict = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (verdict != "ok")
    return error{errc::storage_failure, destination + ": the copy fails its integrity check: " +
                                            (verdict.empty() ? "no answer" : verdict)};
  if (auto ok = check("SELECT count(*) FROM reservations", r.reservations, "no reservations table");
      !ok)
    return ok.err();
  if (auto ok = check("SELECT count(*) FROM commit_decisions", r.commit_decisions,
                      "no commit_decisions table");
      !ok)
    return ok.err();
  if (auto ok = check("SELECT count(*) FROM grid_jobs", r.grid_jobs, "no grid_jobs table"); !ok)
    return ok.err();
  return r;
}

}  // namespace

result<backup_report> backup_store(const std::string& source, const std::string& destination) {
  std::error_code ec;
  if (std::filesystem::exists(destination, ec))
    return error{
        errc::invalid_parameter,
        destination + " exists; a backup goes into a new file (remove it or name another)"};
  if (!std::filesystem::is_regular_file(source, ec))
    return error{errc::storage_failure, "no store at " + source};
  // Read-write without create: a store in WAL mode needs its -shm to read, and a missing
  // file must not be created empty.
  auto from = open_db(source, SQLITE_OPEN_READWRITE);
  if (!from) return from.err();
  auto to = open_db(destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!to) return to.err();
  auto r = copy(from->get(), to->get(), source, destination);
  if (!r) {
    to->reset();
    std::filesystem::remove(destination, ec);
    std::filesystem::remove(destination + "-wal", ec);
    std::filesystem::remove(destination + "-shm", ec);
  }
  return r;
}

}  // namespace arbroker
