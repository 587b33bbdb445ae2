#include "arbroker/store/postgresql_lease.hpp"

#include "arbroker/store/store.hpp"
#include "postgresql_connection.hpp"

namespace arbroker {

using store_detail::pg_connection;
using store_detail::pg_number;
using store_detail::pg_params;
using store_detail::pg_text;

namespace {

// The lease's row and the fence every batch of a journal under it runs first (its key-share
// lock on the row holds off a new epoch, which is taken with the row locked FOR UPDATE, until
// the batch committed; a renewal, which changes no key, does not wait for batches). Made once per
// store, under a transaction-scoped advisory lock so that two nodes starting together do not both
// make it.
constexpr const char* lease_schema = R"sql(
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('arbroker-lease:' || current_schema()));
CREATE TABLE IF NOT EXISTS arb_lease (
  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  node TEXT NOT NULL,
  address TEXT NOT NULL,
  epoch BIGINT NOT NULL,
  expires TIMESTAMPTZ NOT NULL,
  session INTEGER NOT NULL,
  writer INTEGER NOT NULL DEFAULT 0
);
-- The holder's HTTP API (made after the first release of the table).
ALTER TABLE arb_lease ADD COLUMN IF NOT EXISTS http_address TEXT NOT NULL DEFAULT '';
CREATE OR REPLACE FUNCTION arb_fence(e BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM arb_lease WHERE epoch = e FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the lease moved past epoch %', e USING ERRCODE = 'AR001';
  END IF;
END $$;
COMMIT;
)sql";

}  // namespace

result<std::unique_ptr<postgresql_lease>> postgresql_lease::connect(const std::string& uri,
                                                                    std::string node,
                                                                    addresses where,
                                                                    std::chrono::seconds term) {
  if (term.count() < 1) return fail(errc::invalid_parameter, "a lease's term must be 1 s or more");
  auto c = pg_connection::connect(uri, redact_uri(uri), "arbroker lease");
  if (!c) return c.err();
  auto conn = std::make_unique<pg_connection>(std::move(*c));
  PQsetNoticeProcessor(
      conn->raw(), [](void*, const char*) {}, nullptr);
  if (auto ok = conn->exec(lease_schema, "cannot make the lease's table"); !ok) {
    (void)conn->exec("ROLLBACK", "cannot roll back");
    return ok.err();
  }
  const std::pair<const char*, const char*> statements[] = {
      {"current",
       "SELECT node, address, epoch, expires > now(), session, writer, http_address FROM "
       "arb_lease"},
      {"first",
       "INSERT INTO arb_lease (node, address, epoch, expires, session, http_address) VALUES ($1, "
       "$2, 1, now() + make_interval(secs => $3::bigint), pg_backend_pid(), $4) ON CONFLICT DO "
       "NOTHING RETURNING epoch"},
      // The sessions of a holder whose term ran out, if they are still the store's (a pid the
      // server gave again to someone else is left alone); waits until they are gone.
      {"end_sessions",
       "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE pid IN ($1::integer, "
       "$2::integer) AND pid <> pg_backend_pid() AND application_name LIKE 'arbroker%'"},
      {"take",
       "WITH held AS (SELECT one FROM arb_lease WHERE epoch = $4::bigint AND expires <= now() "
       "FOR UPDATE) UPDATE arb_lease SET node = $1, address = $2, epoch = epoch + 1, expires = "
       "now() + make_interval(secs => $3::bigint), session = pg_backend_pid(), writer = 0, "
       "http_address = $5 FROM held WHERE arb_lease.one = held.one RETURNING arb_lease.epoch"},
      {"release",
       "UPDATE arb_lease SET expires = now() WHERE epoch = $1::bigint AND session = "
       "pg_backend_pid()"},
      {"renew",
       "UPDATE arb_lease SET expires = now() + make_interval(secs => $1::bigint) WHERE epoch = "
       "$2::bigint AND session = pg_backend_pid() RETURNING epoch"},
  };
  for (const auto& [name, sql] : statements)
    if (auto ok = conn->prepare(name, sql); !ok) return ok.err();
  if (auto ok = conn->exec("SET lock_timeout = '5s'", "cannot set lock_timeout"); !ok)
    return ok.err();
  return std::unique_ptr<postgresql_lease>(
      new postgresql_lease(std::move(conn), std::move(node), std::move(where), term));
}

postgresql_lease::postgresql_lease(std::unique_ptr<pg_connection> c, std::string node,
                                   addresses where, std::chrono::seconds term)
    : conn_(std::move(c)), node_(std::move(node)), where_(std::move(where)), term_(term) {}

postgresql_lease::~postgresql_lease() = default;

result<std::optional<postgresql_lease::holder>> postgresql_lease::current() {
  auto r = conn_->run("current", pg_params{}, "cannot read the lease");
  if (!r) return r.err();
  if (PQntuples(r->get()) == 0) return std::optional<holder>();
  const PGresult* p = r->get();
  return std::optional<holder>(holder{pg_text(p, 0, 0), pg_text(p, 0, 1), pg_text(p, 0, 6),
                                      static_cast<std::uint64_t>(pg_number(p, 0, 2)),
                                      pg_text(p, 0, 3) == "t"});
}

result<std::optional<std::uint64_t>> postgresql_lease::try_take() {
  const auto seconds = static_cast<std::int64_t>(term_.count());
  auto r = conn_->run("current", pg_params{}, "cannot read the lease");
  if (!r) return r.err();
  if (PQntuples(r->get()) == 0) {  // nobody ever held it
    auto first = conn_->run(
        "first", pg_params{}.text(node_).text(where_.api).number(seconds).text(where_.http),
        "cannot take the lease");
    if (!first) return first.err();
    if (PQntuples(first->get()) == 0) return std::optional<std::uint64_t>();  // another did
    epoch_ = static_cast<std::uint64_t>(pg_number(first->get(), 0, 0));
    return std::optional<std::uint64_t>(epoch_);
  }
  const PGresult* p = r->get();
  const auto epoch = pg_number(p, 0, 2);
  if (pg_text(p, 0, 3) == "t") {
    // Live: its holder's, or this node's own (taken before; renew() extends it).
    if (epoch_ != 0 && static_cast<std::uint64_t>(epoch) == epoch_)
      return std::optional<std::uint64_t>(epoch_);
    return std::optional<std::uint64_t>();
  }
  // Its term ran out: its holder may be paused or cut off, not gone. Its sessions end first
  // (a batch it has under way rolls back and lets go of the row), then the row is taken
  // unless another node took it meanwhile.
  auto ended =
      conn_->run("end_sessions", pg_params{}.number(pg_number(p, 0, 4)).number(pg_number(p, 0, 5)),
                 "cannot end the sessions of the lease's last holder");
  if (!ended) return ended.err();
  auto taken = conn_->run(
      "take",
      pg_params{}.text(node_).text(where_.api).number(seconds).number(epoch).text(where_.http),
      "cannot take the lease");
  if (!taken) return taken.err();
  if (PQntuples(taken->get()) == 0) return std::optional<std::uint64_t>();
  epoch_ = static_cast<std::uint64_t>(pg_number(taken->get(), 0, 0));
  return std::optional<std::uint64_t>(epoch_);
}

result<bool> postgresql_lease::renew() {
  if (epoch_ == 0) return false;
  auto r = conn_->run("renew",
                      pg_params{}
                          .number(static_cast<std::int64_t>(term_.count()))
                          .number(static_cast<std::int64_t>(epoch_)),
                      "cannot renew the lease");
  if (!r) return r.err();
  return PQntuples(r->get()) == 1;
}

status postgresql_lease::release() {
  if (epoch_ == 0) return {};
  auto r = conn_->run("release", pg_params{}.number(static_cast<std::int64_t>(epoch_)),
                      "cannot give the lease up");
  if (!r) return r.err();
  epoch_ = 0;
  return {};
}

}  // namespace arbroker
