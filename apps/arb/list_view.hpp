#pragma once

// `arb list` as squeue users expect it: filters, sort order and output format, applied by
// the client to the node's list reply (the node answers with the caller's reservations, an
// admin's --all with everyone's).

#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/messages/cluster_protocol.hpp"

namespace arbroker::cli {

struct list_view {
  std::vector<std::string> states;    ///< shown states; empty: live ones (or all, history)
  bool history = false;               ///< also finished, cancelled and expired ones
  int limit = 0;                      ///< finished ones per page (0: the node's default)
  std::string before;                 ///< the page of history after this cursor
  std::vector<std::string> clusters;  ///< empty: any
  std::vector<std::string> owners;    ///< empty: any
  std::string from, to;               ///< only reservations overlapping [from, to)
  std::string sort = "start";         ///< a field, "-field" for descending
  std::string format;                 ///< comma-separated fields; empty: the default table
  bool noheader = false;
  bool parsable = false;  ///< fields separated by '|', no padding (sacct --parsable2)
};

/// The fields of a --format ("id,start,np"), empty ones dropped.
std::vector<std::string> split_fields(const std::string& text);
/// Names as a list for a message: "id, start, np".
std::string joined(const std::vector<std::string>& names);

/// Whether the view needs finished reservations from the node (they live in its store):
/// --history, --before, or a --state that only finished ones have.
bool asks_for_history(const list_view& v);

/// The fields --format and --sort know, in the default table's order.
const std::vector<std::string>& list_fields();

/// The columns of the default table (every table of reservations arb prints).
const std::vector<std::string>& default_list_fields();

/// One field of a reservation as its table shows it; "" for an unknown field.
std::string reservation_field(const msg::reservation_info& r, const std::string& field);

/// The header of those fields: their names in capitals.
std::vector<std::string> list_header(const std::vector<std::string>& fields);

/// Filters and sorts `reply` in place; invalid_parameter naming the option for a bad state,
/// field or time.
status apply_list_view(const list_view& v, timestamp now, msg::list_reply& reply);

/// The reservations as the view's table (or delimited lines), one per line.
result<std::string> render_list(const list_view& v, const msg::list_reply& reply);

}  // namespace arbroker::cli
