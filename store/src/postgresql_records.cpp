// postgresql_journal's records: reservations and their history, LRMS claims, the node's
// settings, commit decisions, grid jobs and events. Each write goes through the write
// pipeline (postgresql_journal.cpp) on the writer's connection; reads run on the reading
// connection after the writes queued before them.
#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "arbroker/store/postgresql_journal.hpp"
#include "postgresql_statements.hpp"
#include "row_ids.hpp"
#include "write_pipeline.hpp"

namespace arbroker {

using store_detail::grid_job_seq_of;
using store_detail::pg_array;
using store_detail::pg_bytes;
using store_detail::pg_number;
using store_detail::pg_params;
using store_detail::pg_real;
using store_detail::pg_result;
using store_detail::pg_text;
using store_detail::seq_of;
using store_detail::wall_clock_now;

namespace {

result<std::vector<reservation_row>> rows_in(const pg_result& r, const std::string& where) {
  std::vector<reservation_row> out;
  const PGresult* p = r.get();
  const int n = PQntuples(p);
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    reservation_row row;
    row.id = pg_text(p, i, 0);
    row.cluster = pg_text(p, i, 1);
    row.owner = pg_text(p, i, 2);
    row.txn = pg_text(p, i, 3);
    row.lrms_id = pg_text(p, i, 4);
    row.start = pg_number(p, i, 5);
    row.end = pg_number(p, i, 6);
    row.np = static_cast<int>(pg_number(p, i, 7));
    const auto state = pg_number(p, i, 8);
    row.expiry = pg_number(p, i, 9);
    row.admitted_after = pg_number(p, i, 10);
    row.cost = pg_real(p, i, 11);
    row.account = pg_text(p, i, 12);
    row.earliest = pg_number(p, i, 13);
    row.deadline = pg_number(p, i, 14);
    row.finished = pg_number(p, i, 15);
    row.created = pg_number(p, i, 16);
    row.window_start = pg_number(p, i, 17);
    row.window_end = pg_number(p, i, 18);
    if (state < 0 || state > static_cast<int>(reservation_state::expired))
      return error{errc::storage_failure, "store " + where + ": reservation " + row.id +
                                              " has unknown state " + std::to_string(state)};
    row.state = static_cast<reservation_state>(state);
    out.push_back(std::move(row));
  }
  return out;
}

result<std::vector<grid_job_row>> grid_jobs_in(const pg_result& r) {
  std::vector<grid_job_row> out;
  const PGresult* p = r.get();
  for (int i = 0; i < PQntuples(p); ++i)
    out.push_back({pg_text(p, i, 0), pg_text(p, i, 1), pg_text(p, i, 2) == "t", pg_bytes(p, i, 3),
                   pg_number(p, i, 4)});
  return out;
}

template <class Row>
std::optional<Row> first_of(std::vector<Row> rows) {
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

result<std::uint64_t> count_in(const pg_result& r) {
  return PQntuples(r.get()) > 0
             ? static_cast<std::uint64_t>(std::max<std::int64_t>(pg_number(r.get(), 0, 0), 0))
             : 0;
}

// What a query of reservation rows yields: all of them, or the first (a lookup by id).
auto reservations_of(const std::string& where) {
  return [&where](const pg_result& r) { return rows_in(r, where); };
}
auto first_reservation_of(const std::string& where) {
  return [&where](const pg_result& r) -> result<std::optional<reservation_row>> {
    auto rows = rows_in(r, where);
    if (!rows) return rows.err();
    return first_of(std::move(*rows));
  };
}

}  // namespace

template <class F>
auto postgresql_journal::read_committed(F f) -> decltype(f(std::declval<connection&>())) {
  std::lock_guard lock{read_mu_};
  auto out = f(*reader_);
  // A reading session that ended (the server restarted, an administrator ended it) shows
  // only when used: reads change nothing, so it is opened again and the read made once more.
  if (out || reader_->ok()) return out;
  if (!reader_->reset()) return reader_->failure("cannot reconnect to read");
  if (auto ok = store_detail::prepare_reader(*reader_); !ok) return ok.err();
  return f(*reader_);
}

template <class F>
auto postgresql_journal::read(F f) -> decltype(f(std::declval<connection&>())) {
  if (auto ok = pipeline_->flush(); !ok) return ok.err();
  return read_committed(std::move(f));
}

template <class Convert>
auto postgresql_journal::query(const char* name, const pg_params& p, const std::string& what,
                               Convert convert) {
  return read([&](connection& c) -> decltype(convert(std::declval<const pg_result&>())) {
    auto r = c.run(name, p, what);
    if (!r) return r.err();
    return convert(*r);
  });
}

namespace {

// A text[] literal: {"a","b"}.
std::string text_array(const std::vector<std::string>& items) {
  pg_array a;
  for (const auto& item : items)
    a.text(item);
  return a.literal();
}

std::string cluster_of(const std::string& id) {
  return id.substr(0, id.rfind('/'));
}

}  // namespace

status postgresql_journal::learn_rows_before() {
  std::vector<std::string> wanted;
  {
    std::lock_guard lock{wanted_mu_};
    wanted.swap(wanted_);
  }
  std::erase_if(wanted, [&](const std::string& id) { return known_.contains(id); });
  if (wanted.empty()) return {};
  // The highest id number the store has of each cluster, once per cluster and session: a
  // row above it is new (ids are never given twice), and needs no read.
  std::vector<std::string> clusters;
  for (const auto& id : wanted)
    if (auto c = cluster_of(id); !highest_.contains(c)) clusters.push_back(std::move(c));
  if (!clusters.empty()) {
    std::sort(clusters.begin(), clusters.end());
    clusters.erase(std::unique(clusters.begin(), clusters.end()), clusters.end());
    auto r = writer_->run("highest_of", pg_params{}.text(text_array(clusters)),
                          "cannot read the last reservation ids");
    if (!r) return r.err();
    for (const auto& c : clusters)
      highest_.try_emplace(c, 0);
    for (int i = 0; i < PQntuples(r->get()); ++i)
      highest_[pg_text(r->get(), i, 0)] = pg_number(r->get(), i, 1);
  }
  std::vector<std::string> older;
  for (auto& id : wanted) {
    if (seq_of(id) > highest_[cluster_of(id)])
      known_.try_emplace(id, std::nullopt);  // new: no row before it
    else
      older.push_back(std::move(id));
  }
  if (older.empty()) return {};
  auto r = writer_->run("find_many", pg_params{}.text(text_array(older)),
                        "cannot read the reservations being saved");
  if (!r) return r.err();
  auto rows = rows_in(*r, where_);
  if (!rows) return rows.err();
  for (const auto& id : older)
    known_.try_emplace(id, std::nullopt);  // none before them
  for (auto& row : *rows) {
    auto id = row.id;
    known_[id] = std::move(row);
  }
  return {};
}

result<std::optional<reservation_row>> postgresql_journal::row_before(const std::string& id) {
  if (auto it = known_.find(id); it != known_.end()) return it->second;
  // Not written in this session (or settled since): as committed, which is all there is
  // (the writer is the only one).
  return read_committed([&](connection& c) -> result<std::optional<reservation_row>> {
    auto r = c.run("find", pg_params{}.text(id), "cannot read reservation " + id);
    if (!r) return r.err();
    auto rows = rows_in(*r, where_);
    if (!rows) return rows.err();
    return first_of(std::move(*rows));
  });
}

status postgresql_journal::save(const reservation_row& r) {
  auto t = save_pipelined(r);
  if (!t) return t.err();
  return pipeline_->wait_durable(*t);
}

result<write_ticket> postgresql_journal::save_pipelined(const reservation_row& row) {
  {
    std::lock_guard lock{wanted_mu_};
    wanted_.push_back(row.id);
  }
  return pipeline_->enqueue([this, r = row]() mutable -> status {
    auto before = row_before(r.id);  // what changed, for the events
    if (!before) return before.err();
    if (auto ok = write_events(reservation_events(*before, r, wall_clock_now())); !ok) return ok;
    known_[r.id] = r;
    if (r.finished != 0) settled_.push_back(r.id);
    auto& highest = highest_[cluster_of(r.id)];
    highest = std::max(highest, seq_of(r.id));
    pending_saves_.push_back(std::move(r));  // sent with the others: save_pending()
    return {};
  });
}

status postgresql_journal::forget(const std::string& id) {
  return pipeline_->write_later([this, id]() -> status {
    known_[id] = std::nullopt;
    settled_.push_back(id);
    if (auto ok = save_pending(); !ok) return ok;  // a save before the forget goes first
    return writer_->send("forget", pg_params{}.text(id), "cannot forget reservation " + id);
  });
}

status postgresql_journal::save_pending() {
  if (pending_saves_.empty()) return {};
  // The last save of each id: one statement may not change a row twice.
  std::unordered_set<std::string_view> seen;
  pg_array id, cluster, seq, owner, txn, lrms_id, start, end, np, state, expiry, admitted_after,
      cost, account, earliest, deadline, finished, created, window_start, window_end;
  std::size_t n = 0;
  for (auto it = pending_saves_.rbegin(); it != pending_saves_.rend(); ++it) {
    const auto& r = *it;
    if (!seen.insert(r.id).second) continue;
    ++n;
    id.text(r.id);
    cluster.text(r.cluster);
    seq.number(seq_of(r.id));
    owner.text(r.owner);
    txn.text(r.txn);
    lrms_id.text(r.lrms_id);
    start.number(r.start);
    end.number(r.end);
    np.number(r.np);
    state.number(static_cast<int>(r.state));
    expiry.number(r.expiry);
    admitted_after.number(r.admitted_after);
    cost.real(r.cost);
    account.text(r.account);
    earliest.number(r.earliest);
    deadline.number(r.deadline);
    finished.number(r.finished);
    created.number(r.created);
    window_start.number(r.window_start);
    window_end.number(r.window_end);
  }
  pg_params p;
  for (const auto* a :
       {&id,       &cluster, &seq,          &owner,          &txn,  &lrms_id, &start,    &end,
        &np,       &state,   &expiry,       &admitted_after, &cost, &account, &earliest, &deadline,
        &finished, &created, &window_start, &window_end})
    p.text(a->literal());
  pending_saves_.clear();
  return writer_->send("save_many", p, "cannot save " + std::to_string(n) + " reservations");
}

result<std::vector<reservation_row>> postgresql_journal::rows_of(const std::string& cluster) {
  return query("rows_of", pg_params{}.text(cluster), "cannot read reservations",
               reservations_of(where_));
}

result<std::uint64_t> postgresql_journal::last_serial(const std::string& cluster) {
  return query("last_serial", pg_params{}.text(cluster), "cannot read the last reservation id",
               count_in);
}

result<std::optional<reservation_row>> postgresql_journal::find(const std::string& id) {
  return query("find", pg_params{}.text(id), "cannot read reservation " + id,
               first_reservation_of(where_));
}

result<std::vector<reservation_row>> postgresql_journal::finished_rows(const history_query& q) {
  return query(q.owner.empty() ? "history_all" : "history_of",
               pg_params{}
                   .text(q.owner)
                   .number(q.before)
                   .text(q.before_id)
                   .number(static_cast<std::int64_t>(q.limit))
                   .text(q.cluster),
               "cannot read reservation history", reservations_of(where_));
}

status postgresql_journal::purge_finished(const std::string& cluster, timestamp before) {
  return pipeline_->write_later([this, cluster, before]() -> status {
    if (auto ok = save_pending(); !ok) return ok;
    return writer_->send("purge", pg_params{}.text(cluster).number(before),
                         "cannot purge finished reservations of " + cluster);
  });
}

result<std::optional<lrms_claim>> postgresql_journal::claim_of(const std::string& cluster) {
  return query("claim_of", pg_params{}.text(cluster), "cannot read the claim of " + cluster,
               [](const pg_result& r) -> result<std::optional<lrms_claim>> {
                 if (PQntuples(r.get()) == 0) return std::optional<lrms_claim>();
                 return std::optional<lrms_claim>(lrms_claim{
                     pg_text(r.get(), 0, 0), static_cast<std::uint64_t>(std::max<std::int64_t>(
                                                 pg_number(r.get(), 0, 1), 0))});
               });
}

status postgresql_journal::save_claim(const std::string& cluster, const lrms_claim& claim) {
  return pipeline_->write_and_wait([this, cluster, claim]() -> status {
    return writer_->send(
        "save_claim",
        pg_params{}.text(cluster).text(claim.prefix).number(static_cast<std::int64_t>(claim.lease)),
        "cannot save the claim of cluster " + cluster);
  });
}

result<std::string> postgresql_journal::node_id() {
  return query("setting", pg_params{}.text("id"), "cannot read the node id",
               [](const pg_result& r) -> result<std::string> {
                 return PQntuples(r.get()) > 0 ? pg_text(r.get(), 0, 0) : std::string();
               });
}

status postgresql_journal::save_node_id(const std::string& id) {
  return pipeline_->write_and_wait([this, id]() -> status {
    return writer_->send("save_setting", pg_params{}.text("id").text(id),
                         "cannot save the node id " + id);
  });
}

status postgresql_journal::log_commit(const std::string& txn) {
  auto t = log_commit_pipelined(txn);
  if (!t) return t.err();
  return pipeline_->wait_durable(*t);
}

result<write_ticket> postgresql_journal::log_commit_pipelined(const std::string& txn) {
  return pipeline_->enqueue([this, txn]() -> status {
    return writer_->send("log_commit", pg_params{}.text(txn), "cannot log a commit decision");
  });
}

status postgresql_journal::forget_commit(const std::string& txn) {
  return pipeline_->write_later([this, txn]() -> status {
    auto ok =
        writer_->send("forget_commit", pg_params{}.text(txn), "cannot forget a commit decision");
    return ok;
  });
}

result<std::vector<std::string>> postgresql_journal::commits() {
  return query("commits", pg_params{}, "cannot read commit decisions",
               [](const pg_result& r) -> result<std::vector<std::string>> {
                 std::vector<std::string> out;
                 for (int i = 0; i < PQntuples(r.get()); ++i)
                   out.push_back(pg_text(r.get(), i, 0));
                 return out;
               });
}

status postgresql_journal::save_grid_job(const grid_job_row& row) {
  return save_grid_jobs(std::span(&row, 1));
}

// One queued write, so one transaction: the writer commits a batch of writes at once, and a
// failed write breaks the store before anything after it is committed.
status postgresql_journal::save_grid_jobs(std::span<const grid_job_row> rows) {
  return pipeline_->write_and_wait(
      [this, rs = std::vector<grid_job_row>(rows.begin(), rows.end())]() -> status {
        for (const auto& r : rs) {
          auto ok = writer_->send("save_grid_job",
                                  pg_params{}
                                      .text(r.id)
                                      .number(grid_job_seq_of(r.id))
                                      .text(r.owner)
                                      .text(r.active ? "true" : "false")
                                      .bytes(r.body)
                                      .number(r.ended),
                                  "cannot save grid job " + r.id);
          if (!ok) return ok;
          if (auto written = write_events(r.events); !written) return written;
        }
        return status{};
      });
}

result<std::vector<grid_job_row>> postgresql_journal::grid_jobs() {
  return query("grid_jobs", pg_params{}, "cannot read grid jobs", grid_jobs_in);
}

result<std::optional<grid_job_row>> postgresql_journal::find_grid_job(const std::string& id) {
  return query("find_grid_job", pg_params{}.text(id), "cannot read grid job " + id,
               [](const pg_result& r) -> result<std::optional<grid_job_row>> {
                 return first_of(std::move(*grid_jobs_in(r)));
               });
}

result<std::vector<grid_job_row>> postgresql_journal::ended_grid_jobs(const history_query& q) {
  return query("ended_grid_jobs",
               pg_params{}
                   .text(q.owner)
                   .number(q.before)
                   .text(q.before_id)
                   .number(static_cast<std::int64_t>(q.limit)),
               "cannot read grid job history", grid_jobs_in);
}

result<std::uint64_t> postgresql_journal::last_grid_job_serial() {
  return query("last_grid_job", pg_params{}, "cannot read the last grid job id", count_in);
}

status postgresql_journal::purge_grid_jobs(timestamp before) {
  return pipeline_->write_later([this, before]() -> status {
    return writer_->send("purge_grid_jobs", pg_params{}.number(before),
                         "cannot purge ended grid jobs");
  });
}

result<std::vector<event_row>> postgresql_journal::events_after(std::uint64_t after,
                                                                std::size_t limit) {
  return query(
      "events_after",
      pg_params{}.number(static_cast<std::int64_t>(after)).number(static_cast<std::int64_t>(limit)),
      "cannot read events", [](const pg_result& r) -> result<std::vector<event_row>> {
        const PGresult* p = r.get();
        std::vector<event_row> out;
        for (int i = 0; i < PQntuples(p); ++i)
          out.push_back({static_cast<std::uint64_t>(pg_number(p, i, 0)), pg_number(p, i, 1),
                         pg_text(p, i, 2), pg_text(p, i, 3), pg_text(p, i, 4), pg_text(p, i, 5),
                         pg_text(p, i, 6), pg_number(p, i, 7), pg_number(p, i, 8),
                         static_cast<std::int32_t>(pg_number(p, i, 9)), pg_text(p, i, 10)});
        return out;
      });
}

result<event_span> postgresql_journal::events_kept() {
  return query("events_kept", pg_params{}, "cannot read the events kept",
               [](const pg_result& r) -> result<event_span> {
                 event_span span;
                 const auto first = static_cast<std::uint64_t>(pg_number(r.get(), 0, 0));
                 span.last = static_cast<std::uint64_t>(pg_number(r.get(), 0, 1));
                 span.first = first == 0 ? span.last + 1 : first;
                 return span;
               });
}

status postgresql_journal::purge_events(timestamp before) {
  return pipeline_->write_later([this, before]() -> status {
    return writer_->send("purge_events", pg_params{}.number(before), "cannot purge events");
  });
}

void postgresql_journal::set_event_listener(std::function<void(std::vector<event_row>)> listener) {
  pipeline_->set_listener(std::move(listener));
}

}  // namespace arbroker
