#include "history.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <charconv>
#include <optional>

namespace arbroker::detail {

msg::reservation_info info_of(const reservation_row& row) {
  return {row.id,
          row.cluster,
          row.owner,
          row.start,
          row.end,
          row.np,
          row.state,
          0,  // a finished reservation holds nothing any more
          row.admitted_after,
          row.cost,
          row.account,
          row.deadline != 0 ? row.earliest : 0,
          row.deadline,
          row.finished,
          row.created,
          row.window_start,
          row.window_end};
}

std::string history_cursor(timestamp finished, std::string_view id) {
  std::string out = std::to_string(finished);
  out += ':';
  out += id;
  return out;
}

result<std::pair<timestamp, std::string>> parse_history_cursor(std::string_view cursor,
                                                               std::string_view field) {
  const auto colon = cursor.find(':');
  timestamp finished = 0;
  const char* end = cursor.data() + (colon == std::string_view::npos ? 0 : colon);
  auto [at, ec] = std::from_chars(cursor.data(), end, finished);
  if (colon == std::string_view::npos || ec != std::errc{} || at != end || finished <= 0 ||
      colon + 1 == cursor.size())
    return fail(errc::invalid_parameter,
                std::string(field) + ": '" + std::string(cursor) +
                    "' is not where a page of history ends (use the `next` of the previous page)");
  return std::pair{finished, std::string(cursor.substr(colon + 1))};
}

history_page merge_history_pages(std::vector<history_page> pages, std::size_t limit) {
  using key = std::pair<timestamp, std::string>;  // (finished, id): pages are descending
  const auto key_of = [](const msg::reservation_info& r) { return key{r.finished, r.id}; };
  // A source with more rows may still have any row older than its last: only rows up to the
  // latest such cursor (inclusive: a next page starts strictly after it) are in their place.
  std::optional<key> cut;
  for (const auto& p : pages)
    if (!p.next.empty())
      if (auto c = parse_history_cursor(p.next); c && (!cut || *c > *cut)) cut = *c;
  history_page out;
  for (auto& p : pages)
    for (auto& r : p.rows)
      if (!cut || key_of(r) >= *cut) out.rows.push_back(std::move(r));
  std::sort(out.rows.begin(), out.rows.end(),
            [&](const auto& a, const auto& b) { return key_of(a) > key_of(b); });
  if (out.rows.size() > limit) {
    out.rows.resize(limit);
    cut = key_of(out.rows.back());
  }
  if (cut) out.next = history_cursor(cut->first, cut->second);
  return out;
}

struct history_reader::impl {
  std::shared_ptr<reservation_journal> journal;
  std::shared_ptr<grid_job_journal> grid_jobs;
  boost::asio::thread_pool thread{1};  // one reader: SQLite serializes reads anyway
};

history_reader::history_reader(std::shared_ptr<reservation_journal> journal,
                               std::shared_ptr<grid_job_journal> grid_jobs)
    : impl_(std::make_unique<impl>()) {
  impl_->journal = std::move(journal);
  impl_->grid_jobs = std::move(grid_jobs);
}

history_reader::~history_reader() {
  impl_->thread.join();
}

void history_reader::page(
    const msg::list_request& req, const std::string& cluster,
    std::function<void(result<std::pair<std::vector<reservation_row>, std::string>>)> done) {
  history_query q;
  q.owner = req.user;
  q.cluster = cluster;
  q.limit = static_cast<std::size_t>(req.limit > 0 ? req.limit : default_history_page);
  if (!req.before.empty()) {
    auto c = parse_history_cursor(req.before);
    if (!c) return done(c.err());
    q.before = c->first;
    q.before_id = c->second;
  }
  boost::asio::post(impl_->thread, [journal = impl_->journal, q, done = std::move(done)] {
    auto rows = journal->finished_rows(q);
    if (!rows) return done(rows.err());
    std::string next = rows->size() == q.limit ? history_cursor(rows->back()) : "";
    done(std::pair{std::move(*rows), std::move(next)});
  });
}

void history_reader::finished(std::string id, std::string user,
                              std::function<void(result<std::optional<reservation_row>>)> done) {
  boost::asio::post(impl_->thread, [journal = impl_->journal, id = std::move(id),
                                    user = std::move(user), done = std::move(done)] {
    auto row = journal->find(id);
    if (!row) return done(row.err());
    if (*row && ((*row)->finished == 0 || (!user.empty() && (*row)->owner != user)))
      return done(std::optional<reservation_row>());  // live (the engine's), or another's
    done(std::move(*row));
  });
}

void history_reader::ended_grid_jobs(const msg::grid_list_request& req,
                                     std::function<void(result<grid_job_page>)> done) {
  if (!impl_->grid_jobs) return done(grid_job_page{});
  history_query q;
  q.owner = req.user;
  q.limit = static_cast<std::size_t>(req.limit > 0 ? req.limit : default_history_page);
  if (!req.before.empty()) {
    auto c = parse_history_cursor(req.before, "grid_list.before");
    if (!c) return done(c.err());
    q.before = c->first;
    q.before_id = c->second;
  }
  std::optional<grid_job_state> only;
  if (!req.state.empty()) {
    only = grid_job_state_from(req.state);
    if (!only)  // as the grid-job manager answers the first page
      return done(
          fail(errc::invalid_parameter,
               "state: '" + req.state +
                   "' is not one of pending, queued, running, completed, failed, cancelled"));
  }
  boost::asio::post(impl_->thread, [journal = impl_->grid_jobs, q, only, cluster = req.cluster,
                                    done = std::move(done)]() mutable {
    grid_job_page out;
    for (;;) {
      auto rows = journal->ended_grid_jobs(q);
      if (!rows) return done(rows.err());
      for (const auto& row : *rows) {
        q.before = row.ended;  // the next read starts after this row, taken or not
        q.before_id = row.id;
        auto rec = msg::decode_record(row.body);
        if (!rec)
          return done(
              error{errc::storage_failure, "grid job " + row.id + ": " + rec.err().message});
        const auto& j = rec->job;
        const bool on_cluster = cluster.empty() || std::any_of(j.copies.begin(), j.copies.end(),
                                                               [&](const grid_copy& c) {
                                                                 return c.cluster == cluster;
                                                               });
        if ((!only || j.state == *only) && on_cluster) out.rows.push_back(msg::info_of(j));
        if (out.rows.size() == q.limit) {
          out.next = history_cursor(q.before, q.before_id);
          return done(std::move(out));
        }
      }
      if (rows->size() < q.limit) return done(std::move(out));  // the store has no more
    }
  });
}

void history_reader::ended_grid_job(
    std::string id, std::string user,
    std::function<void(result<std::optional<msg::grid_job_record>>)> done) {
  if (!impl_->grid_jobs) return done(std::optional<msg::grid_job_record>());
  boost::asio::post(impl_->thread, [journal = impl_->grid_jobs, id = std::move(id),
                                    user = std::move(user), done = std::move(done)] {
    auto row = journal->find_grid_job(id);
    if (!row) return done(row.err());
    if (!*row || (*row)->active || (!user.empty() && (*row)->owner != user))
      return done(std::optional<msg::grid_job_record>());  // active (the engine's), or another's
    auto rec = msg::decode_record((*row)->body);
    if (!rec)
      return done(error{errc::storage_failure, "grid job " + id + ": " + rec.err().message});
    done(std::optional<msg::grid_job_record>(std::move(*rec)));
  });
}

}  // namespace arbroker::detail
