#pragma once

// One libpq connection, owned (private to store/): prepared statements run with text
// parameters (a bytea one binary), results read as text, every failure an error that names
// the store and what PostgreSQL said. Not thread-safe: one thread at a time.

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"

namespace arbroker::store_detail {

/// A result, freed with it.
using pg_result = std::unique_ptr<PGresult, decltype(&PQclear)>;

/// The parameters of one statement, as libpq takes them.
/// A double as text that PostgreSQL reads back as the same double.
std::string real_text(double v);

class pg_params {
 public:
  pg_params& text(std::string v) {
    values_.push_back(std::move(v));
    binary_.push_back(0);
    return *this;
  }
  pg_params& number(std::int64_t v) { return text(std::to_string(v)); }
  pg_params& real(double v);
  pg_params& bytes(std::string v) {  ///< bytea, sent as it is
    values_.push_back(std::move(v));
    binary_.push_back(1);
    return *this;
  }

 private:
  friend class pg_connection;
  std::vector<std::string> values_;
  std::vector<int> binary_;
};

/// A one-dimensional array literal for a parameter of type T[] (`{1,2}`, `{"a","b"}`), so that
/// many rows go in one statement (unnest): text elements quoted, their quotes and backslashes
/// escaped.
class pg_array {
 public:
  pg_array& number(std::int64_t v) {
    comma();
    literal_ += std::to_string(v);
    return *this;
  }
  pg_array& real(double v) {
    comma();
    literal_ += real_text(v);
    return *this;
  }
  pg_array& text(std::string_view v) {
    comma();
    literal_ += '"';
    for (const char c : v) {
      if (c == '"' || c == '\\') literal_ += '\\';
      literal_ += c;
    }
    literal_ += '"';
    return *this;
  }
  std::string literal() const { return literal_ + '}'; }

 private:
  void comma() {
    if (literal_.size() > 1) literal_ += ',';
  }
  std::string literal_ = "{";
};

class pg_connection {
 public:
  /// Connects to `uri`; `where` names the store in errors (the URI without its password);
  /// `role` is the session's application_name unless the URI sets one ("arbroker writer").
  static result<pg_connection> connect(const std::string& uri, std::string where, const char* role);

  /// Runs `sql` (statements without parameters, several at once allowed).
  status exec(const char* sql, std::string_view what);
  /// Prepares `sql` as statement `name` on this connection.
  status prepare(const char* name, const std::string& sql);
  /// Runs prepared statement `name`: its rows (text), or an error saying `what`.
  result<pg_result> run(const char* name, const pg_params& p, std::string_view what);
  /// Pipelined statements (the writer's batches): begin_pipeline(), then send() each without
  /// waiting for its result, then end_pipeline(), which waits for them all and says the
  /// first that failed (those after it did not run). One round trip per chunk of statements
  /// instead of one per statement; every `chunk` statements the results are read, so that
  /// neither side's socket buffer fills while the other waits.
  status begin_pipeline();
  status send(const char* name, const pg_params& p, std::string what);
  /// A statement without parameters (BEGIN, COMMIT) in the pipeline.
  status send(const char* sql, std::string what);
  status end_pipeline();
  static constexpr std::size_t chunk = 256;

  /// Whether the connection is still up (a read may reconnect; the writer may not).
  bool ok() const noexcept { return PQstatus(conn_.get()) == CONNECTION_OK; }
  /// Reconnects a connection that went down, with its prepared statements gone: the caller
  /// prepares them again.
  bool reset();
  const std::string& where() const noexcept { return where_; }
  PGconn* raw() const noexcept { return conn_.get(); }

  /// A failure: "store WHERE: WHAT: what PostgreSQL said".
  error failure(std::string_view what, const PGresult* res = nullptr) const;

 private:
  pg_connection(PGconn* c, std::string where) : conn_(c, &PQfinish), where_(std::move(where)) {}
  /// Reads the results of everything sent since the last sync (after a PQpipelineSync).
  status collect();
  /// Sync point, then collect(), once `pending_` is full (or at the end).
  status sync();
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
  std::string where_;
  std::vector<std::string> pending_;  ///< what each statement sent since the last sync does
  std::optional<error> failed_;       ///< the first failure of the pipeline
};

/// The text of column `col` of row `row` ("" for NULL).
inline std::string pg_text(const PGresult* r, int row, int col) {
  return std::string(PQgetvalue(r, row, col), static_cast<std::size_t>(PQgetlength(r, row, col)));
}
/// Column `col` of row `row` as a whole number (0 for NULL).
std::int64_t pg_number(const PGresult* r, int row, int col);
double pg_real(const PGresult* r, int row, int col);
/// A bytea column, decoded.
std::string pg_bytes(const PGresult* r, int row, int col);

}  // namespace arbroker::store_detail
