#pragma once

// The history of reservations. A cluster service forgets a reservation once it has finished
// (completed, cancelled, expired, ...) when the node has a store: from then on it is a row
// of the store's history, kept for the cluster's `retention`. The node reads that history on
// a thread of its own (never an engine thread, never an API thread): the pages of a
// `list --history`, and a finished reservation that a request names after the engine said
// "no such reservation". Likewise grid jobs: an ended one leaves the grid-job manager's
// memory and stays in the store for `[grid_jobs] retention`.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "arbroker/core/error.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"
#include "arbroker/messages/grid_job_record.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker::detail {

/// The client's view of a row of the store.
msg::reservation_info info_of(const reservation_row& row);

/// Where a page of history ends: "<finished>:<id>" of its last row.
std::string history_cursor(timestamp finished, std::string_view id);
inline std::string history_cursor(const reservation_row& last) {
  return history_cursor(last.finished, last.id);
}
/// The (finished, id) of a cursor; invalid_parameter for text that is not one, naming
/// `field` (the request's field that held it).
result<std::pair<timestamp, std::string>> parse_history_cursor(
    std::string_view cursor, std::string_view field = "list.before");

/// One source's page of history (the node's store, an agent's for one remote cluster): its
/// finished reservations (or ended grid jobs), most recently finished first, and where its
/// next page starts ("" : it has no more).
template <class Row>
struct page_of {
  std::vector<Row> rows;
  std::string next;
};
using history_page = page_of<msg::reservation_info>;
using grid_job_page = page_of<msg::grid_job_info>;

/// The page of the union of `pages` (each read from the same cursor): the newest rows that no
/// source's unread rows can come before, at most `limit`, and the cursor of the next page
/// ("" : no source has more). Keyset paging across sources, so no row is skipped or shown twice.
history_page merge_history_pages(std::vector<history_page> pages, std::size_t limit);

/// Finished reservations per page when a list asks for none in particular.
inline constexpr std::int32_t default_history_page = 100;

class history_reader {
 public:
  explicit history_reader(std::shared_ptr<reservation_journal> journal,
                          std::shared_ptr<grid_job_journal> grid_jobs = nullptr);
  /// Waits for the reads under way (their callbacks run).
  ~history_reader();
  history_reader(const history_reader&) = delete;
  history_reader& operator=(const history_reader&) = delete;

  /// A page of `req.user`'s finished reservations (everyone's for an empty user) on `cluster`
  /// (every cluster for ""), the most recently finished first, from `req.before`: the rows
  /// and the cursor of the next page ("" when this page is the last). `done` runs on the
  /// reader's thread.
  void page(const msg::list_request& req, const std::string& cluster,
            std::function<void(result<std::pair<std::vector<reservation_row>, std::string>>)> done);

  /// The finished reservation `id`, if the store has it and `user` owns it (an empty user:
  /// anyone's, for admins); else nothing, exactly as for a reservation that never was.
  void finished(std::string id, std::string user,
                std::function<void(result<std::optional<reservation_row>>)> done);

  /// A page of `req.user`'s ended grid jobs (everyone's for an empty user) in `req.state`
  /// and with a copy on `req.cluster` (any for ""), the most recently ended first, from
  /// `req.before`: at most `req.limit` (100 for 0) and the cursor of the next page ("" when
  /// the store has no more). The store is read until the page is full or has no more rows, so
  /// filters never make a page short while more would match. storage_failure for a row that
  /// cannot be read. `done` runs on the reader's thread.
  void ended_grid_jobs(const msg::grid_list_request& req,
                       std::function<void(result<grid_job_page>)> done);

  /// The ended grid job `id` (its record), if the store has it and `user` owns it (empty:
  /// anyone's); else nothing. storage_failure for a row that cannot be read.
  void ended_grid_job(std::string id, std::string user,
                      std::function<void(result<std::optional<msg::grid_job_record>>)> done);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace arbroker::detail
