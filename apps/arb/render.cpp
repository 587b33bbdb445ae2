// Replies as aligned tables for people and as JSON for scripts.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "arbroker/core/number_text.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/time_format.hpp"
#include "cells.hpp"
#include "cli.hpp"
#include "list_view.hpp"

namespace arbroker::cli {

namespace {

using json = nlohmann::ordered_json;
using row = std::vector<std::string>;

std::string state_name(reservation_state s) {
  return std::string(to_string(s));
}

std::string code_name(std::uint8_t code) {
  return std::string(to_string(static_cast<errc>(code)));
}

// noheader: the rows alone; parsable: fields separated by '|', no padding (sacct --parsable2).
std::string table(const row& header, const std::vector<row>& rows, bool noheader = false,
                  bool parsable = false) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i)
    width[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  std::ostringstream os;
  auto line = [&](const row& r) {
    std::string text;
    for (std::size_t i = 0; i < r.size(); ++i) {
      text += r[i];
      if (i + 1 < r.size())
        text += parsable ? std::string("|") : std::string(width[i] - r[i].size() + 2, ' ');
    }
    os << text << '\n';
  };
  if (!noheader) line(header);
  for (const auto& r : rows)
    line(r);
  return os.str();
}

// The default columns of `arb list`, in every table of reservations.
const row reservation_header = list_header(default_list_fields());
row reservation_row(const msg::reservation_info& r) {
  row out;
  for (const auto& f : default_list_fields())
    out.push_back(reservation_field(r, f));
  return out;
}

json to_json(const msg::wire_error& e) {
  return json{{"code", code_name(e.code)}, {"message", e.message}};
}

json to_json(const msg::reservation_info& r) {
  json j{{"id", r.id},       {"cluster", r.cluster},
         {"owner", r.owner}, {"start", r.start},
         {"end", r.end},     {"duration", r.end - r.start},
         {"np", r.np},       {"state", state_name(r.state)},
         {"cost", r.cost}};
  if (r.expiry > 0) j["expiry"] = r.expiry;
  if (r.finished > 0) j["finished"] = r.finished;
  if (r.created > 0) j["created"] = r.created;
  if (r.window_end > 0) {  // the window the request asked for
    j["window_start"] = r.window_start;
    j["window_end"] = r.window_end;
  }
  if (r.admitted_after > 0) j["admitted_after"] = r.admitted_after;
  if (!r.account.empty()) j["account"] = r.account;
  if (r.deadline != 0) {  // movable: it runs within [earliest, deadline]
    j["earliest"] = r.earliest;
    j["deadline"] = r.deadline;
  }
  return j;
}

json to_json(const std::vector<msg::reservation_info>& rs) {
  json a = json::array();
  for (const auto& r : rs)
    a.push_back(to_json(r));
  return a;
}

json approximated_json(const std::vector<msg::queued_job_note>& notes) {
  json a = json::array();
  for (const auto& n : notes)
    a.push_back(json{{"job", n.job}, {"owner", n.owner}, {"reason", n.reason}});
  return a;
}

json to_json(const msg::slot& s) {
  json j{{"cluster", s.cluster},
         {"start", s.start},
         {"end", s.end},
         {"duration", s.end - s.start},
         {"np", s.np}};
  if (s.flags & msg::slot::has_cost) j["cost"] = s.cost;
  if (s.flags & msg::slot::has_esr) j["esr"] = s.esr;
  return j;
}

json to_json(const msg::grid_job_info& j) {
  json copies = json::array();
  for (const auto& c : j.copies)
    copies.push_back(json{{"cluster", c.cluster},
                          {"lrms_id", c.lrms_id},
                          {"state", std::string(to_string(c.state))},
                          {"submitted", c.submitted},
                          {"started", c.started},
                          {"ended", c.ended},
                          {"reason", c.reason},
                          {"lost", c.lost}});
  json history = json::array();
  for (const auto& e : j.history)
    history.push_back(json{{"at", e.at}, {"copy", e.copy}, {"what", e.what}});
  return json{{"id", j.id},
              {"owner", j.owner},
              {"name", j.name},
              {"strategy", std::string(to_string(j.strategy))},
              {"state", std::string(to_string(j.state))},
              {"np", j.np},
              {"walltime", j.walltime},
              {"submitted", j.submitted},
              {"started", j.started},
              {"ended", j.ended},
              {"winner", j.winner},
              {"migrations", j.migrations},
              {"duplicate_starts", j.duplicate_starts},
              {"migration_gain", j.migration_gain},
              {"reservation", j.reservation},
              {"resubmits", j.resubmits},
              {"max_resubmits", j.max_resubmits},
              {"retries", j.retries},
              {"retry_on_failure", j.retry_on_failure},
              {"mem_per_cpu", j.mem_per_cpu},
              {"mem_per_node", j.mem_per_node},
              {"features", j.features},
              {"os", j.os},
              {"copies", copies},
              {"history", history}};
}

// "2x32cpu/65536M(ib,avx512) 4x8cpu/16384M": a cluster's node groups ("-" when unpublished).
std::string nodes_text(const std::vector<node_group>& nodes) {
  std::string out;
  for (const auto& g : nodes) {
    out +=
        (out.empty() ? "" : " ") + std::to_string(g.count) + "x" + std::to_string(g.cpus) + "cpu";
    if (g.memory > 0) out += "/" + std::to_string(g.memory) + "M";
    std::string f;
    for (const auto& x : g.features)
      f += (f.empty() ? "" : ",") + x;
    if (!f.empty()) out += "(" + f + ")";
  }
  return out.empty() ? "-" : out;
}

json nodes_json(const std::vector<node_group>& nodes) {
  json a = json::array();
  for (const auto& g : nodes)
    a.push_back(
        json{{"count", g.count}, {"cpus", g.cpus}, {"memory", g.memory}, {"features", g.features}});
  return a;
}

// "4096 MiB per CPU, features ib,avx, OS linux": what the job needs of its nodes ("" nothing).
std::string needs_text(const msg::grid_job_info& j) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (j.mem_per_cpu > 0) add(std::to_string(j.mem_per_cpu) + " MiB per CPU");
  if (j.mem_per_node > 0) add(std::to_string(j.mem_per_node) + " MiB per node");
  if (!j.features.empty()) {
    std::string f;
    for (const auto& x : j.features)
      f += (f.empty() ? "" : ",") + x;
    add("features " + f);
  }
  if (!j.os.empty()) add("OS " + j.os);
  return out;
}

// Where a grid job is: the copy that runs, or every copy that may still.
std::string placement(const msg::grid_job_info& j) {
  if (j.winner >= 0) return j.copies[static_cast<std::size_t>(j.winner)].cluster;
  std::string where;
  for (const auto& c : j.copies)
    if (c.state == copy_state::queued || c.state == copy_state::submitting)
      where += (where.empty() ? "" : ",") + c.cluster;
  return where.empty() ? "-" : where;
}

const row grid_job_header = {"ID",      "NAME",    "STRATEGY", "STATE",     "NP",
                             "CLUSTER", "STARTED", "ENDED",    "MIGRATIONS"};
row grid_job_row(const msg::grid_job_info& j) {
  return {j.id,
          j.name.empty() ? "-" : j.name,
          std::string(to_string(j.strategy)),
          std::string(to_string(j.state)),
          std::to_string(j.np),
          placement(j),
          when(j.started),
          when(j.ended),
          std::to_string(j.migrations)};
}

struct body_renderer {
  api::operation op;

  // Tables.
  std::string text(const std::monostate&) const { return ""; }
  std::string text(const msg::elastic_reply& r) const {
    if (!r.ranked.empty() || r.reservation.id.empty()) {
      std::vector<row> rows;
      for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        const auto& s = r.ranked[i];
        rows.push_back({std::to_string(i + 1), s.cluster, when(s.start), when(s.end),
                        length(s.start, s.end), std::to_string(s.np),
                        s.flags & msg::slot::has_cost ? number(s.cost) : "-",
                        s.flags & msg::slot::has_esr ? number(s.esr) : "-"});
      }
      std::string text;
      if (rows.empty()) {
        text = "nothing fits the window on any cluster";
        if (r.earliest_alternative >= 0)
          text += "; earliest alternative start: " + when(r.earliest_alternative);
        text += "\n";
      } else {
        text = table({"RANK", "CLUSTER", "START", "END", "DURATION", "NP", "COST", "ESR"}, rows);
      }
      // Every cluster that offers nothing, and why (what it lacks, its window, its CPUs).
      for (const auto& n : r.passed_over)
        text += "passed over " + n.cluster + ": " + code_name(n.error.code) + ": " +
                n.error.message + "\n";
      return text;
    }
    std::string text = table(reservation_header, {reservation_row(r.reservation)});
    if (r.reservation.state == reservation_state::accepted && r.reservation.expiry > 0)
      text += "held until " + when(r.reservation.expiry) + ": `arb commit " + r.reservation.id +
              "` before then\n";
    return text;
  }
  std::string text(const msg::coreservation_reply& r) const {
    std::vector<row> rows;
    for (const auto& p : r.parts)
      rows.push_back(reservation_row(p));
    return "co-reservation " + r.txn + " (" + std::to_string(r.attempts) + " attempts)\n" +
           table(reservation_header, rows);
  }
  std::string text(const api::estimate_reply& r) const {
    std::vector<row> rows;
    for (const auto& e : r.estimates)
      rows.push_back({e.cluster, when(e.earliest_start), e.error.ok() ? "" : e.error.message});
    return table({"CLUSTER", "EARLIEST START", "NOTE"}, rows);
  }
  std::string text(const msg::query_reply& r) const {
    // Every field, scontrol-show style, after the row `arb list` shows; `arb show` also
    // answers in paper 001's terms (queryReservation): not started, ...
    const auto& i = r.info;
    std::string more;
    auto line = [&more](const std::string& key, const std::string& value) {
      more += key + ": " + value + "\n";
    };
    line("created", i.created > 0 ? when(i.created) : "unknown");
    line("requested window", i.window_end > 0
                                 ? when(i.window_start) + " .. " + when(i.window_end) + " (" +
                                       length(i.window_start, i.window_end) + ")"
                                 : "unknown");
    if (i.expiry > 0) line("held until", when(i.expiry));
    if (i.admitted_after > 0) line("admitted after (local jobs preferred)", when(i.admitted_after));
    if (!i.account.empty()) line("account", i.account);
    if (i.deadline != 0)  // paper 002: the cluster may still move it within its window
      line("movable", "runs within [" + when(i.earliest) + ", " + when(i.deadline) +
                          "], now planned as shown");
    if (i.finished > 0) line("finished", when(i.finished));
    line("status (paper 001)", std::string(to_string(to_query_status(i.state))));
    for (const auto& id : r.jobs)
      line("job", id);
    return table(reservation_header, {reservation_row(i)}) + more;
  }
  std::string text(const msg::ack_reply&) const { return std::string(to_string(op)) + ": ok\n"; }
  std::string text(const msg::list_reply& r) const {
    std::vector<row> rows;
    for (const auto& x : r.reservations)
      rows.push_back(reservation_row(x));
    return table(reservation_header, rows);
  }
  std::string text(const msg::bind_job_reply& r) const { return "job " + r.job_id + "\n"; }
  std::string text(const msg::bound_job_reply& r) const {
    const auto& j = r.job;
    return table({"JOB", "RESERVATION", "NAME", "STATE", "NP", "WALLTIME", "STARTED"},
                 {{j.id, j.reservation_id, j.name.empty() ? "-" : j.name,
                   std::string(to_string(j.state)), j.np > 0 ? std::to_string(j.np) : "-",
                   j.walltime > 0 ? format_duration(j.walltime) : "-", when(j.started)}});
  }
  std::string text(const msg::coallocate_reply& r) const {
    std::string out;  // parts in the order of the reservation ids given
    for (std::size_t i = 0; i < r.jobs.size(); ++i)
      for (const auto& id : r.jobs[i])
        out += "part " + std::to_string(i) + ": job " + id + "\n";
    return out;
  }
  std::string text(const api::cluster_list_reply& r) const {
    std::vector<row> rows;
    for (const auto& c : r.clusters) {
      std::string features;
      for (const auto& f : c.features)
        features += (features.empty() ? "" : ",") + f;
      rows.push_back({c.name, c.lrms, std::to_string(c.cpus), number(c.pp),
                      c.max_walltime > 0 ? format_duration(c.max_walltime) : "-",
                      c.max_hold > 0 ? format_duration(c.max_hold) : "-", c.os, features,
                      nodes_text(c.nodes)});
    }
    return table(
        {"CLUSTER", "LRMS", "CPUS", "PP", "MAX WALLTIME", "MAX HOLD", "OS", "FEATURES", "NODES"},
        rows);
  }
  std::string text(const api::status_reply& r) const {
    std::vector<row> rows;
    for (const auto& c : r.clusters)
      rows.push_back({c.cluster, when(c.now), std::to_string(c.cpus), std::to_string(c.holds),
                      std::to_string(c.committed), std::to_string(c.running_jobs),
                      std::to_string(c.queued_jobs), c.name_prefix.empty() ? "-" : c.name_prefix});
    std::string out = table(
        {"CLUSTER", "NOW", "CPUS", "HOLDS", "COMMITTED", "RUNNING", "QUEUED", "LRMS NAMES"}, rows);
    // Queued local jobs the plan (and so LJP) only approximates: what an admin should know.
    std::vector<row> notes;
    for (const auto& c : r.clusters)
      for (const auto& n : c.approximated)
        notes.push_back({c.cluster, n.job, n.owner, n.reason});
    if (!notes.empty())
      out += "\n" + table({"CLUSTER", "QUEUED JOB", "OWNER", "PLANNED APPROXIMATELY"}, notes);
    return out;
  }

  std::string text(const msg::grid_job_reply& r) const {
    const auto& j = r.job;
    std::string out = table(grid_job_header, {grid_job_row(j)});
    if (auto needs = needs_text(j); !needs.empty()) out += "needs " + needs + "\n";
    std::vector<row> copies;
    for (std::size_t i = 0; i < j.copies.size(); ++i) {
      const auto& c = j.copies[i];
      copies.push_back({std::to_string(i), c.cluster, c.lrms_id.empty() ? "-" : c.lrms_id,
                        std::string(to_string(c.state)), when(c.started), when(c.ended), c.reason});
    }
    out +=
        "\n" + table({"COPY", "CLUSTER", "LRMS ID", "STATE", "STARTED", "ENDED", "REASON"}, copies);
    if (op == api::operation::grid_query) {
      std::vector<row> events;
      for (const auto& e : j.history)
        events.push_back({when(e.at), e.copy < 0 ? "-" : std::to_string(e.copy), e.what});
      out += "\n" + table({"AT", "COPY", "EVENT"}, events);
    }
    return out;
  }
  std::string text(const msg::grid_list_reply& r) const { return jobs_table(r.jobs); }
  std::string text(const msg::grid_submit_many_reply& r) const { return jobs_table(r.jobs); }
  std::string text(const msg::watch_reply& r) const {
    std::string out;
    for (const auto& e : r.events)
      out += render_event(e, "table");
    return out;
  }
  std::string jobs_table(const std::vector<msg::grid_job_info>& jobs) const {
    std::vector<row> rows;
    for (const auto& j : jobs)
      rows.push_back(grid_job_row(j));
    return table(grid_job_header, rows);
  }

  // JSON.
  json data(const std::monostate&) const { return nullptr; }
  json data(const msg::watch_reply& r) const {
    json events = json::array();
    for (const auto& e : r.events)
      events.push_back(json::parse(render_event(e, "json")));
    return json{{"events", std::move(events)}, {"last", r.last}};
  }
  json data(const msg::grid_job_reply& r) const { return json{{"job", to_json(r.job)}}; }
  json data(const msg::bound_job_reply& r) const {
    const auto& j = r.job;
    return json{{"job",
                 {{"id", j.id},
                  {"reservation_id", j.reservation_id},
                  {"name", j.name},
                  {"state", std::string(to_string(j.state))},
                  {"np", j.np},
                  {"walltime", j.walltime},
                  {"started", j.started}}}};
  }
  json data(const msg::grid_submit_many_reply& r) const {
    return json{{"jobs", jobs_json(r.jobs)}};
  }
  static json jobs_json(const std::vector<msg::grid_job_info>& jobs) {
    json a = json::array();
    for (const auto& j : jobs)
      a.push_back(to_json(j));
    return a;
  }
  json data(const msg::grid_list_reply& r) const {
    json out{{"jobs", jobs_json(r.jobs)}};
    if (!r.next.empty()) out["next"] = r.next;  // more history: arb jobs --history --before
    return out;
  }
  json data(const msg::elastic_reply& r) const {
    json j = json::object();
    if (!r.reservation.id.empty()) j["reservation"] = to_json(r.reservation);
    json ranked = json::array();
    for (const auto& s : r.ranked)
      ranked.push_back(to_json(s));
    j["ranked"] = ranked;
    j["stats"] = json{{"clusters", r.stats.clusters},
                      {"candidates", r.stats.candidates},
                      {"above_threshold", r.stats.above_threshold},
                      {"rejected_by_service", r.stats.rejected_by_service},
                      {"rejected_by_lrms", r.stats.rejected_by_lrms}};
    if (r.earliest_alternative >= 0) j["earliest_alternative"] = r.earliest_alternative;
    if (!r.passed_over.empty()) {
      json notes = json::array();
      for (const auto& n : r.passed_over)
        notes.push_back(json{{"cluster", n.cluster}, {"error", to_json(n.error)}});
      j["passed_over"] = notes;
    }
    return j;
  }
  json data(const msg::coreservation_reply& r) const {
    return json{{"txn", r.txn}, {"parts", to_json(r.parts)}, {"attempts", r.attempts}};
  }
  json data(const api::estimate_reply& r) const {
    json a = json::array();
    for (const auto& e : r.estimates) {
      json j{{"cluster", e.cluster}, {"earliest_start", e.earliest_start}};
      if (!e.error.ok()) j["error"] = to_json(e.error);
      a.push_back(j);
    }
    return json{{"estimates", a}};
  }
  json data(const msg::query_reply& r) const {
    json out{{"reservation", to_json(r.info)},
             {"query_status", std::string(to_string(to_query_status(r.info.state)))}};
    if (!r.jobs.empty()) out["jobs"] = r.jobs;
    return out;
  }
  json data(const msg::ack_reply&) const { return json::object(); }
  json data(const msg::list_reply& r) const {
    json out{{"reservations", to_json(r.reservations)}};
    if (!r.next.empty()) out["next"] = r.next;  // more history: arb list --history --before
    return out;
  }
  json data(const msg::bind_job_reply& r) const { return json{{"job_id", r.job_id}}; }
  json data(const msg::coallocate_reply& r) const { return json{{"jobs", r.jobs}}; }
  json data(const api::cluster_list_reply& r) const {
    json a = json::array();
    for (const auto& c : r.clusters)
      a.push_back(json{{"name", c.name},
                       {"lrms", c.lrms},
                       {"cpus", c.cpus},
                       {"pp", c.pp},
                       {"max_walltime", c.max_walltime},
                       {"max_hold", c.max_hold},
                       {"os", c.os},
                       {"features", c.features},
                       {"nodes", nodes_json(c.nodes)}});
    return json{{"clusters", a}};
  }
  json data(const api::status_reply& r) const {
    json a = json::array();
    for (const auto& c : r.clusters)
      a.push_back(json{{"cluster", c.cluster},
                       {"now", c.now},
                       {"cpus", c.cpus},
                       {"holds", c.holds},
                       {"committed", c.committed},
                       {"running_jobs", c.running_jobs},
                       {"queued_jobs", c.queued_jobs},
                       {"name_prefix", c.name_prefix},
                       {"moves", c.moves},
                       {"overruns", c.overruns},
                       {"overruns_refused", c.overruns_refused},
                       {"approximated", approximated_json(c.approximated)},
                       {"reservations", to_json(c.reservations)}});
    return json{{"clusters", a}};
  }
};

}  // namespace

const std::vector<std::string>& job_fields() {
  static const std::vector<std::string> fields{"id",          "name",      "strategy",  "state",
                                               "np",          "cluster",   "started",   "ended",
                                               "migrations",  "owner",     "submitted", "walltime",
                                               "reservation", "resubmits", "retries"};
  return fields;
}

// A job's cells in job_fields() order: the default table's, then the others.
row job_cells(const msg::grid_job_info& j) {
  auto cells = grid_job_row(j);
  for (auto cell : {j.owner, when(j.submitted), std::to_string(j.walltime),
                    j.reservation.empty() ? std::string("-") : j.reservation,
                    std::to_string(j.resubmits), std::to_string(j.retries)})
    cells.push_back(std::move(cell));
  return cells;
}

result<std::string> render_jobs(const msg::grid_list_reply& r, const std::string& format,
                                bool noheader, bool parsable) {
  if (format.empty()) {
    std::vector<row> rows;
    for (const auto& j : r.jobs)
      rows.push_back(grid_job_row(j));
    return table(grid_job_header, rows, noheader, parsable);
  }
  const auto fields = split_fields(format);
  const auto& known = job_fields();
  if (fields.empty())
    return fail(errc::invalid_parameter, "--format: names no field (" + joined(known) + ")");
  std::vector<std::size_t> columns;  // of job_cells
  for (const auto& f : fields) {
    const auto at = std::find(known.begin(), known.end(), f);
    if (at == known.end())
      return fail(errc::invalid_parameter,
                  "--format: no field '" + f + "' (" + joined(known) + ")");
    columns.push_back(static_cast<std::size_t>(at - known.begin()));
  }
  std::vector<row> rows;
  for (const auto& j : r.jobs) {
    const auto cells = job_cells(j);
    rows.emplace_back();
    for (auto c : columns)
      rows.back().push_back(cells[c]);
  }
  return table(list_header(fields), rows, noheader, parsable);
}

std::string render(const api::response& r, const std::string& format) {
  body_renderer b{r.op};
  if (format == "json") {
    json j{{"ok", r.ok()}, {"operation", std::string(to_string(r.op))}};
    if (!r.ok()) j["error"] = json{{"code", code_name(r.code)}, {"message", r.message}};
    json body = std::visit([&b](const auto& x) { return b.data(x); }, r.body);
    if (!body.is_null()) j["result"] = body;
    return j.dump(2) + "\n";
  }
  if (!r.ok()) {
    // Some replies carry useful detail even on failure (the earliest alternative).
    std::string text = "error: " + code_name(r.code) + ": " + r.message + "\n";
    if (auto* e = std::get_if<msg::elastic_reply>(&r.body); e && e->earliest_alternative >= 0)
      text += "earliest alternative start: " + when(e->earliest_alternative) + "\n";
    return text;
  }
  return std::visit([&b](const auto& x) { return b.text(x); }, r.body);
}

std::string render_event(const msg::watch_event& e, const std::string& format) {
  if (format == "json")
    return json{{"id", e.id},           {"at", e.at},       {"kind", e.kind},
                {"subject", e.subject}, {"owner", e.owner}, {"cluster", e.cluster},
                {"state", e.state},     {"start", e.start}, {"end", e.end},
                {"np", e.np},           {"what", e.what}}
               .dump() +
           "\n";
  // One line an eye can follow and a pipe can cut: id, time, kind, subject, then the rest.
  std::string line = std::to_string(e.id) + "  " + when(e.at) + "  " + e.kind + "  " + e.subject;
  if (!e.cluster.empty()) line += "  " + e.cluster;
  line += "  " + e.state;
  if (e.start > 0 && e.end > 0) line += "  " + when(e.start) + " - " + when(e.end);
  if (e.np > 0) line += "  np " + std::to_string(e.np);
  if (!e.what.empty()) line += "  (" + e.what + ")";
  return line + "\n";
}

std::string render_error(const error& e, const std::string& format) {
  if (format == "json")
    return json{{"ok", false},
                {"error", json{{"code", std::string(to_string(e.code))}, {"message", e.message}}}}
               .dump(2) +
           "\n";
  return "error: " + std::string(to_string(e.code)) + ": " + e.message + "\n";
}

}  // namespace arbroker::cli
