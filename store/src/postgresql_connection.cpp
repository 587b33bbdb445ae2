#include "postgresql_connection.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace arbroker::store_detail {

std::string real_text(double v) {
  char buf[32];
  // Shortest text that reads back as the same double (PostgreSQL's float8 input is exact).
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, end) : std::to_string(v);
}

pg_params& pg_params::real(double v) {
  return text(real_text(v));
}

result<pg_connection> pg_connection::connect(const std::string& uri, std::string where,
                                             const char* role) {
  // A database that went away without a word (its machine dead, the network cut) is found
  // within about 15 s, not after the kernel's two hours: a connection attempt gives up after
  // 10 s, an idle connection is probed from 10 s on, and data unacknowledged for 15 s ends
  // the connection. They come before the URI, whose own settings override them.
  const char* keys[] = {"connect_timeout",
                        "keepalives",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "tcp_user_timeout",
                        "dbname",
                        "fallback_application_name",
                        nullptr};
  const char* values[] = {"10", "1", "10", "3", "2", "15000", uri.c_str(), role, nullptr};
  PGconn* c = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!c) return fail(errc::storage_failure, "store " + where + ": cannot connect: out of memory");
  pg_connection conn(c, std::move(where));
  if (PQstatus(c) != CONNECTION_OK) return conn.failure("cannot connect");
  return conn;
}

error pg_connection::failure(std::string_view what, const PGresult* res) const {
  std::string said = res ? PQresultErrorMessage(res) : "";
  if (said.empty()) said = PQerrorMessage(conn_.get());
  while (!said.empty() && (said.back() == '\n' || said.back() == ' '))
    said.pop_back();
  if (said.empty()) said = "unknown error";
  return {errc::storage_failure, "store " + where_ + ": " + std::string(what) + ": " + said};
}

status pg_connection::exec(const char* sql, std::string_view what) {
  pg_result r(PQexec(conn_.get(), sql), &PQclear);
  const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return failure(what, r.get());
  return {};
}

status pg_connection::prepare(const char* name, const std::string& sql) {
  pg_result r(PQprepare(conn_.get(), name, sql.c_str(), 0, nullptr), &PQclear);
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK)
    return failure(std::string("cannot prepare ") + name, r.get());
  return {};
}

result<pg_result> pg_connection::run(const char* name, const pg_params& p, std::string_view what) {
  const int n = static_cast<int>(p.values_.size());
  std::vector<const char*> values(p.values_.size());
  std::vector<int> lengths(p.values_.size());
  for (std::size_t i = 0; i < p.values_.size(); ++i) {
    values[i] = p.values_[i].c_str();
    lengths[i] = static_cast<int>(p.values_[i].size());
  }
  pg_result r(
      PQexecPrepared(conn_.get(), name, n, values.data(), lengths.data(), p.binary_.data(), 0),
      &PQclear);
  const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return failure(what, r.get());
  return r;
}

status pg_connection::begin_pipeline() {
  pending_.clear();
  failed_.reset();
  if (PQenterPipelineMode(conn_.get()) != 1) return failure("cannot enter pipeline mode");
  return {};
}

status pg_connection::send(const char* name, const pg_params& p, std::string what) {
  if (failed_) return *failed_;  // nothing after a failure runs anyway
  std::vector<const char*> values(p.values_.size());
  std::vector<int> lengths(p.values_.size());
  for (std::size_t i = 0; i < p.values_.size(); ++i) {
    values[i] = p.values_[i].c_str();
    lengths[i] = static_cast<int>(p.values_[i].size());
  }
  if (PQsendQueryPrepared(conn_.get(), name, static_cast<int>(values.size()), values.data(),
                          lengths.data(), p.binary_.data(), 0) != 1)
    return *(failed_ = failure(what));
  pending_.push_back(std::move(what));
  return pending_.size() >= chunk ? sync() : status{};
}

status pg_connection::send(const char* sql, std::string what) {
  if (failed_) return *failed_;
  if (PQsendQueryParams(conn_.get(), sql, 0, nullptr, nullptr, nullptr, nullptr, 0) != 1)
    return *(failed_ = failure(what));
  pending_.push_back(std::move(what));
  return pending_.size() >= chunk ? sync() : status{};
}

status pg_connection::sync() {
  if (PQpipelineSync(conn_.get()) != 1) {
    failed_ = failure("cannot send a pipeline sync");
    pending_.clear();
    return *failed_;
  }
  return collect();
}

status pg_connection::collect() {
  // Each statement's results end with a null; the sync point's with PGRES_PIPELINE_SYNC.
  for (const auto& what : pending_) {
    while (PGresult* raw = PQgetResult(conn_.get())) {
      pg_result r(raw, &PQclear);
      const auto st = PQresultStatus(raw);
      if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !failed_)
        failed_ = failure(what, raw);  // PGRES_PIPELINE_ABORTED after it: not the cause
    }
  }
  pending_.clear();
  pg_result r(PQgetResult(conn_.get()), &PQclear);
  if (!r || PQresultStatus(r.get()) != PGRES_PIPELINE_SYNC) {
    if (!failed_) failed_ = failure("the pipeline lost its sync point", r.get());
    return *failed_;
  }
  return failed_ ? status{*failed_} : status{};
}

status pg_connection::end_pipeline() {
  auto ok = sync();
  if (PQexitPipelineMode(conn_.get()) != 1 && ok) return failure("cannot leave pipeline mode");
  return ok;
}

bool pg_connection::reset() {
  PQreset(conn_.get());
  return ok();
}

std::int64_t pg_number(const PGresult* r, int row, int col) {
  const char* v = PQgetvalue(r, row, col);
  std::int64_t n = 0;
  std::from_chars(v, v + std::strlen(v), n);
  return n;
}

double pg_real(const PGresult* r, int row, int col) {
  return std::strtod(PQgetvalue(r, row, col), nullptr);
}

std::string pg_bytes(const PGresult* r, int row, int col) {
  std::size_t n = 0;
  unsigned char* raw =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r, row, col)), &n);
  if (!raw) return {};
  std::string out(reinterpret_cast<const char*>(raw), n);
  PQfreemem(raw);
  return out;
}

}  // namespace arbroker::store_detail
