#include "list_view.hpp"

#include <algorithm>
#include <functional>
#include <sstream>

#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/time_format.hpp"
#include "cells.hpp"

namespace arbroker::cli {
namespace {

error bad(const std::string& option, const std::string& problem) {
  return {errc::invalid_parameter, "--" + option + ": " + problem};
}

// Orders two reservations by one field (numbers as numbers, times as times).
bool less_by(const std::string& f, const msg::reservation_info& a, const msg::reservation_info& b) {
  if (f == "start") return a.start < b.start;
  if (f == "end") return a.end < b.end;
  if (f == "duration") return a.end - a.start < b.end - b.start;
  if (f == "np") return a.np < b.np;
  if (f == "cost") return a.cost < b.cost;
  if (f == "expiry") return a.expiry < b.expiry;
  if (f == "finished") return a.finished < b.finished;
  if (f == "created") return a.created < b.created;
  if (f == "window") return a.window_start < b.window_start;
  if (f == "state") return a.state < b.state;
  return reservation_field(a, f) < reservation_field(b, f);
}

bool known_field(const std::string& f) {
  const auto& all = list_fields();
  return std::find(all.begin(), all.end(), f) != all.end();
}

}  // namespace

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string reservation_field(const msg::reservation_info& r, const std::string& f) {
  if (f == "id") return r.id;
  if (f == "cluster") return r.cluster;
  if (f == "owner") return r.owner;
  if (f == "start") return when(r.start);
  if (f == "end") return when(r.end);
  if (f == "duration") return length(r.start, r.end);
  if (f == "np") return std::to_string(r.np);
  if (f == "state") return std::string(to_string(r.state));
  if (f == "cost") return number(r.cost);
  if (f == "expiry") return r.expiry > 0 ? when(r.expiry) : "-";
  if (f == "account") return r.account.empty() ? "-" : r.account;
  if (f == "finished") return r.finished > 0 ? when(r.finished) : "-";
  if (f == "created") return r.created > 0 ? when(r.created) : "-";
  if (f == "window")
    return r.window_end > 0 ? when(r.window_start) + ".." + when(r.window_end) : "-";
  return {};
}

const std::vector<std::string>& default_list_fields() {
  static const std::vector<std::string> fields = {"id",       "cluster", "owner", "start", "end",
                                                  "duration", "np",      "state", "cost"};
  return fields;
}

std::vector<std::string> list_header(const std::vector<std::string>& fields) {
  std::vector<std::string> out;
  for (auto h : fields) {
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::toupper(c); });
    out.push_back(std::move(h));
  }
  return out;
}

const std::vector<std::string>& list_fields() {
  static const std::vector<std::string> fields = {
      "id",    "cluster", "owner",  "start",   "end",      "duration", "np",
      "state", "cost",    "expiry", "account", "finished", "created",  "window"};
  return fields;
}

bool asks_for_history(const list_view& v) {
  if (v.history || !v.before.empty()) return true;
  for (const auto& name : v.states)
    for (int i = 0; i <= static_cast<int>(enum_bounds<reservation_state>::last); ++i)
      if (to_string(static_cast<reservation_state>(i)) == name &&
          is_terminal(static_cast<reservation_state>(i)))
        return true;
  return false;
}

status apply_list_view(const list_view& v, timestamp now, msg::list_reply& reply) {
  std::vector<reservation_state> states;
  for (const auto& name : v.states) {
    std::optional<reservation_state> s;
    for (int i = 0; i <= static_cast<int>(enum_bounds<reservation_state>::last); ++i)
      if (to_string(static_cast<reservation_state>(i)) == name)
        s = static_cast<reservation_state>(i);
    if (!s) return bad("state", "no state '" + name + "'");
    states.push_back(*s);
  }
  std::optional<timestamp> from, to;
  if (!v.from.empty()) {
    auto t = parse_time(v.from, now);
    if (!t) return bad("from", t.err().message);
    from = *t;
  }
  if (!v.to.empty()) {
    auto t = parse_time(v.to, now);
    if (!t) return bad("to", t.err().message);
    to = *t;
  }
  const bool descending = !v.sort.empty() && v.sort.front() == '-';
  const std::string key = descending ? v.sort.substr(1) : v.sort;
  if (!known_field(key))
    return bad("sort", "no field '" + key + "' (" + joined(list_fields()) + ")");

  auto shown = [&](const msg::reservation_info& r) {
    if (!states.empty()) {
      if (std::find(states.begin(), states.end(), r.state) == states.end()) return false;
    } else if (!asks_for_history(v) &&
               (is_terminal(r.state) || r.state == reservation_state::requested)) {
      return false;  // live ones by default: held, committed, being changed, running
    }
    if (!v.clusters.empty() &&
        std::find(v.clusters.begin(), v.clusters.end(), r.cluster) == v.clusters.end())
      return false;
    if (!v.owners.empty() && std::find(v.owners.begin(), v.owners.end(), r.owner) == v.owners.end())
      return false;
    if (from && r.end <= *from) return false;
    if (to && r.start >= *to) return false;
    return true;
  };
  auto& rs = reply.reservations;
  rs.erase(std::remove_if(rs.begin(), rs.end(), [&](const auto& r) { return !shown(r); }),
           rs.end());
  std::stable_sort(rs.begin(), rs.end(), [&](const auto& a, const auto& b) {
    return descending ? less_by(key, b, a) : less_by(key, a, b);
  });
  return {};
}

result<std::string> render_list(const list_view& v, const msg::list_reply& reply) {
  std::vector<std::string> fields =
      v.format.empty() ? std::vector<std::string>{"id",       "cluster", "owner", "start", "end",
                                                  "duration", "np",      "state", "cost"}
                       : split_fields(v.format);
  if (fields.empty()) return bad("format", "names no field (" + joined(list_fields()) + ")");
  for (const auto& f : fields)
    if (!known_field(f))
      return bad("format", "no field '" + f + "' (" + joined(list_fields()) + ")");
  std::vector<std::vector<std::string>> rows;
  if (!v.noheader) {
    rows.emplace_back();
    for (const auto& f : fields) {
      std::string h = f;
      std::transform(h.begin(), h.end(), h.begin(),
                     [](unsigned char c) { return std::toupper(c); });
      rows.back().push_back(h);
    }
  }
  for (const auto& r : reply.reservations) {
    rows.emplace_back();
    for (const auto& f : fields)
      rows.back().push_back(reservation_field(r, f));
  }
  std::vector<std::size_t> width(fields.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 == row.size()) break;
      out += v.parsable ? std::string("|") : std::string(width[i] - row[i].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

}  // namespace arbroker::cli
