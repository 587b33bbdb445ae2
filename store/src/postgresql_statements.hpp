#pragma once

// The prepared statements of postgresql_journal (private to store/), by name: both of its
// connections prepare all of them. postgresql_journal.cpp opens the database and runs the
// write pipeline; postgresql_records.cpp reads and writes the records.

#include <string>

#include "postgresql_connection.hpp"

namespace arbroker::store_detail {

/// The columns of a reservation_row, in the order postgresql_records.cpp reads them.
inline constexpr const char* pg_reservation_columns =
    "SELECT id, cluster, owner, txn, lrms_id, start, \"end\", np, state, expiry, admitted_after, "
    "cost, account, earliest, deadline, finished, created, window_start, window_end ";
inline constexpr const char* pg_grid_job_columns =
    "SELECT id, owner, active, body, ended FROM grid_jobs ";

inline status prepare_statements(pg_connection& c) {
  const std::string res = std::string(pg_reservation_columns) + "FROM reservations ";
  const std::string jobs = pg_grid_job_columns;
  // Keyset pages, newest end first: (finished, id) below the cursor ($2, $3; $2 = 0: none).
  const std::string page =
      "finished > 0 AND ($5 = '' OR cluster = $5) AND ($2::bigint = 0 OR finished < $2::bigint "
      "OR (finished = $2::bigint AND id < $3)) ORDER BY finished DESC, id DESC LIMIT $4::bigint";
  const std::pair<const char*, std::string> statements[] = {
      // The reservations a batch saves, one statement (the last save of each id): a column
      // per array.
      {"save_many",
       "INSERT INTO reservations (id, cluster, seq, owner, txn, lrms_id, start, \"end\", np, "
       "state, expiry, admitted_after, cost, account, earliest, deadline, finished, created, "
       "window_start, window_end) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], "
       "$4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::integer[], "
       "$10::integer[], $11::bigint[], $12::bigint[], $13::double precision[], $14::text[], "
       "$15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[], $19::bigint[], "
       "$20::bigint[]) ON CONFLICT (id) DO UPDATE SET cluster = EXCLUDED.cluster, seq = "
       "EXCLUDED.seq, owner = EXCLUDED.owner, txn = EXCLUDED.txn, lrms_id = EXCLUDED.lrms_id, "
       "start = EXCLUDED.start, \"end\" = EXCLUDED.\"end\", np = EXCLUDED.np, state = "
       "EXCLUDED.state, expiry = EXCLUDED.expiry, admitted_after = EXCLUDED.admitted_after, cost "
       "= EXCLUDED.cost, account = EXCLUDED.account, earliest = EXCLUDED.earliest, deadline = "
       "EXCLUDED.deadline, finished = EXCLUDED.finished, created = EXCLUDED.created, "
       "window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end"},
      {"forget", "DELETE FROM reservations WHERE id = $1"},
      {"rows_of", res + "WHERE cluster = $1 AND finished = 0 ORDER BY seq"},
      {"last_serial", "SELECT COALESCE(MAX(seq), 0) FROM reservations WHERE cluster = $1"},
      {"find", res + "WHERE id = $1"},
      // By the primary key for each id (a join on the ids, not "id = ANY($1)": a generic plan
      // of that compares every row with every id, and a store's tables have no statistics
      // while they are new).
      {"find_many", std::string(pg_reservation_columns) +
                        "FROM unnest($1::text[]) AS wanted(id) JOIN reservations USING (id)"},
      {"highest_of",
       "SELECT cluster, (SELECT MAX(seq) FROM reservations r WHERE r.cluster = wanted.cluster) "
       "FROM unnest($1::text[]) AS wanted(cluster)"},
      {"history_of", res + "WHERE owner = $1 AND " + page},
      {"history_all", res + "WHERE $1 = '' AND " + page},
      {"purge",
       "DELETE FROM reservations WHERE cluster = $1 AND finished > 0 AND finished < $2::bigint "
       "AND seq < (SELECT MAX(seq) FROM reservations WHERE cluster = $1)"},
      {"claim_of", "SELECT prefix, lease FROM lrms_claims WHERE cluster = $1"},
      {"save_claim",
       "INSERT INTO lrms_claims (cluster, prefix, lease) VALUES ($1, $2, $3::bigint) ON CONFLICT "
       "(cluster) DO UPDATE SET prefix = EXCLUDED.prefix, lease = EXCLUDED.lease"},
      {"setting", "SELECT value FROM node_settings WHERE key = $1"},
      {"save_setting",
       "INSERT INTO node_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET "
       "value = EXCLUDED.value"},
      {"log_commit", "INSERT INTO commit_decisions (txn) VALUES ($1) ON CONFLICT DO NOTHING"},
      {"forget_commit", "DELETE FROM commit_decisions WHERE txn = $1"},
      {"commits", "SELECT txn FROM commit_decisions ORDER BY txn"},
      {"save_grid_job",
       "INSERT INTO grid_jobs (id, seq, owner, active, body, ended) VALUES ($1, $2::bigint, $3, "
       "$4::boolean, $5::bytea, $6::bigint) ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, "
       "owner = EXCLUDED.owner, active = EXCLUDED.active, body = EXCLUDED.body, ended = "
       "EXCLUDED.ended"},
      {"grid_jobs", jobs + "WHERE active ORDER BY seq"},
      {"find_grid_job", jobs + "WHERE id = $1"},
      {"last_grid_job", "SELECT COALESCE(MAX(seq), 0) FROM grid_jobs"},
      // Keyset pages of ended jobs, most recently ended first: (ended, id) below $2, $3.
      {"ended_grid_jobs",
       jobs + "WHERE NOT active AND ended > 0 AND ($1 = '' OR owner = $1) AND ($2::bigint = 0 OR "
              "ended < $2::bigint OR (ended = $2::bigint AND id < $3)) ORDER BY ended DESC, id "
              "DESC LIMIT $4::bigint"},
      {"purge_grid_jobs",
       "DELETE FROM grid_jobs WHERE NOT active AND ended > 0 AND ended < $1::bigint AND seq < "
       "(SELECT MAX(seq) FROM grid_jobs)"},
      // A batch's events in one statement, a column per array (the server parses and plans
      // one statement instead of one per event).
      {"save_events",
       "INSERT INTO events (id, at, kind, subject, owner, cluster, state, start, \"end\", np, "
       "what) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], "
       "$5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::integer[], "
       "$11::text[])"},
      {"last_event", "SELECT last FROM event_ids"},
      {"save_last_event", "UPDATE event_ids SET last = $1::bigint"},
      {"events_after",
       "SELECT id, at, kind, subject, owner, cluster, state, start, \"end\", np, what FROM events "
       "WHERE id > $1::bigint ORDER BY id LIMIT $2::bigint"},
      {"events_kept",
       "SELECT COALESCE((SELECT MIN(id) FROM events), 0), (SELECT last FROM event_ids)"},
      {"purge_events", "DELETE FROM events WHERE at < $1::bigint"},
  };
  for (const auto& [name, sql] : statements)
    if (auto ok = c.prepare(name, sql); !ok) return ok;
  return {};
}

/// The reading connection's set-up: reads are few (recovery, history pages, watchers) and
/// their best plan depends on their values (an owner's page, a cursor), so each is planned
/// for its call, not once for all; then the statements.
inline status prepare_reader(pg_connection& c) {
  if (auto ok = c.exec("SET plan_cache_mode = force_custom_plan", "cannot set plan_cache_mode");
      !ok)
    return ok;
  return prepare_statements(c);
}

}  // namespace arbroker::store_detail
