#include "arbroker/adapters/gridengine_parse.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>

#include <pugixml.hpp>

#include "arbroker/adapters/node_groups.hpp"

namespace arbroker::gridengine {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

template <class T>
std::optional<T> to_number(std::string_view s) {
  s = trim(s);
  T v{};
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view text_of(const pugi::xml_node& n, const char* child) {
  return trim(n.child(child).text().get());
}

result<pugi::xml_document> load(std::string_view xml, const char* what) {
  pugi::xml_document doc;
  const auto r = doc.load_buffer(xml.data(), xml.size());
  if (!r)
    return fail(errc::lrms_failure, std::string("cannot read ") + what + " output: " +
                                        r.description() + " at offset " + std::to_string(r.offset));
  return doc;
}

/// Two-digit field of a date at pos, or -1.
int two_digits(std::string_view s, std::size_t pos) {
  if (pos + 2 > s.size()) return -1;
  const auto v = to_number<int>(s.substr(pos, 2));
  return v ? *v : -1;
}

}  // namespace

result<timestamp> parse_time(std::string_view text) {
  const std::string_view s = trim(text);
  // YYYY-MM-DDThh:mm:ss[.fff]
  const auto bad = [&] {
    return fail(errc::lrms_failure, "unreadable time '" + std::string(s) + "'");
  };
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
    return bad();
  if (s.size() > 19 && s[19] != '.') return bad();
  const auto year = to_number<int>(s.substr(0, 4));
  const int mon = two_digits(s, 5), day = two_digits(s, 8), hour = two_digits(s, 11),
            min = two_digits(s, 14), sec = two_digits(s, 17);
  if (!year || mon < 1 || mon > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || min < 0 ||
      min > 59 || sec < 0 || sec > 60)
    return bad();
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  return static_cast<timestamp>(::timegm(&tm));
}

std::string format_time(timestamp t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M.%S", &tm);
  return buf;
}

result<duration> parse_duration(std::string_view text) {
  const std::string_view s = trim(text);
  if (s == "INFINITY" || s == "infinity") return time_infinity;
  if (auto v = to_number<duration>(s)) return *v;
  // h:m:s
  duration total = 0;
  int parts = 0;
  std::string_view rest = s;
  while (true) {
    const auto colon = rest.find(':');
    const auto v = to_number<duration>(rest.substr(0, colon));
    if (!v || *v < 0) break;
    total = total * 60 + *v;
    ++parts;
    if (colon == std::string_view::npos) {
      if (parts == 3) return total;
      break;
    }
    rest.remove_prefix(colon + 1);
  }
  return fail(errc::lrms_failure, "unreadable time value '" + std::string(s) + "'");
}

std::optional<std::string> granted_reservation_id(std::string_view out) {
  constexpr std::string_view head = "Your advance reservation ";
  const auto p = out.find(head);
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view rest = out.substr(p + head.size());
  const auto end = rest.find(' ');
  if (end == std::string_view::npos || rest.substr(end).find("has been granted") != 1)
    return std::nullopt;
  if (!to_number<long>(rest.substr(0, end))) return std::nullopt;
  return std::string(rest.substr(0, end));
}

std::optional<std::string> submitted_job_id(std::string_view out) {
  std::string_view s = trim(out);
  // -terse prints the id on the last line; warnings may come before it.
  if (const auto nl = s.rfind('\n'); nl != std::string_view::npos) s = s.substr(nl + 1);
  s = s.substr(0, s.find('.'));
  if (s.empty() || !to_number<long>(s)) return std::nullopt;
  return std::string(s);
}

result<std::vector<qrstat_entry>> parse_qrstat(std::string_view xml) {
  auto doc = load(xml, "qrstat -xml");
  if (!doc) return doc.err();
  std::vector<qrstat_entry> out;
  for (const auto& ar : doc->child("qrstat").children("ar_summary")) {
    qrstat_entry e;
    auto& r = e.reservation;
    r.id = std::string(text_of(ar, "id"));
    r.name = std::string(text_of(ar, "name"));
    r.owner = std::string(text_of(ar, "owner"));
    e.state = std::string(text_of(ar, "state"));
    if (r.id.empty()) return fail(errc::lrms_failure, "qrstat -xml: reservation without an id");
    auto start = parse_time(text_of(ar, "start_time"));
    if (!start) return start.err();
    auto end = parse_time(text_of(ar, "end_time"));
    if (!end) return end.err();
    r.start = *start;
    r.end = *end;
    if (const auto pe = ar.child("granted_parallel_environment"); pe) {
      r.np = to_number<int>(text_of(pe, "slots")).value_or(0);
    } else {
      for (const auto& g : ar.child("granted_slots_list").children("granted_slots"))
        r.np += g.attribute("slots").as_int();
    }
    if (const auto acl = ar.child("acl_list").child("acl"); acl) {
      const std::string_view user = trim(acl.attribute("user").value());
      if (!user.empty()) r.owner = std::string(user);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string_view> lines_of(std::string_view out) {
  std::vector<std::string_view> lines;
  while (!out.empty()) {
    const auto nl = out.find('\n');
    std::string_view line = out.substr(0, nl);
    out = nl == std::string_view::npos ? std::string_view() : out.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

result<duration> parse_queue_h_rt(std::string_view qconf_sq) {
  for (std::string_view line : lines_of(qconf_sq)) {
    if (line.substr(0, 5) != "h_rt " && line.substr(0, 5) != "h_rt\t") continue;
    line.remove_prefix(4);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
      line.remove_prefix(1);
    while (!line.empty() && line.back() == ' ')
      line.remove_suffix(1);
    auto d = parse_duration(line);
    if (!d) return fail(errc::invalid_parameter, "qconf -sq: h_rt '" + std::string(line) + "'");
    return d;
  }
  return fail(errc::invalid_parameter, "qconf -sq: no h_rt line");
}

result<int> parse_cluster_slots(std::string_view xml) {
  auto doc = load(xml, "qstat -g c -xml");
  if (!doc) return doc.err();
  int total = 0;
  for (const auto& q : doc->child("job_info").children("cluster_queue_summary")) {
    const auto t = to_number<int>(text_of(q, "total"));
    if (!t) return fail(errc::lrms_failure, "qstat -g c -xml: queue without a slot total");
    total += *t;
  }
  return total;
}

std::optional<std::int64_t> memory_mib(std::string_view value) {
  auto s = trim(value);
  if (s.empty()) return std::nullopt;
  double unit = 1.0 / (1024.0 * 1024.0);  // bytes
  const char last = s.back();
  const std::string_view specifiers = "KMGTkmgt";
  if (const auto k = specifiers.find(last); k != std::string_view::npos) {
    const double base = k < 4 ? 1024.0 : 1000.0;
    double scale = 1;
    for (std::size_t i = 0; i <= k % 4; ++i)
      scale *= base;
    unit = scale / (1024.0 * 1024.0);
    s.remove_suffix(1);
  }
  // (from_chars for double: GCC 12 has it)
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !(v >= 0)) return std::nullopt;
  return static_cast<std::int64_t>(v * unit);
}

std::set<std::string> boolean_complexes(std::string_view qconf_sc) {
  std::set<std::string> out;
  for (const auto line : lines_of(qconf_sc)) {
    if (line.front() == '#') continue;
    // name shortcut type relop requestable consumable default urgency
    const auto name_end = line.find_first_of(" \t");
    if (name_end == std::string_view::npos) continue;
    const auto rest = trim(line.substr(name_end));
    const auto shortcut_end = rest.find_first_of(" \t");
    if (shortcut_end == std::string_view::npos) continue;
    const auto type = trim(rest.substr(shortcut_end));
    if (type.substr(0, type.find_first_of(" \t")) == "BOOL") out.emplace(line.substr(0, name_end));
  }
  return out;
}

result<std::vector<node_group>> parse_qhost_nodes(std::string_view xml,
                                                  const std::set<std::string>& booleans) {
  auto doc = load(xml, "qhost -q -F -xml");
  if (!doc) return doc.err();
  std::vector<node_group> out;
  for (const auto& h : doc->child("qhost").children("host")) {
    if (std::string_view(h.attribute("name").value()) == "global") continue;
    node_group g{1, 0, 0, {}};
    for (const auto& q : h.children("queue"))
      for (const auto& v : q.children("queuevalue"))
        if (std::string_view(v.attribute("name").value()) == "slots") {
          const auto n = to_number<int>(v.text().get());
          if (!n) return fail(errc::lrms_failure, "qhost: a queue without a slot count");
          g.cpus += *n;
        }
    if (g.cpus < 1) continue;  // in no queue: it runs nothing of the cluster's
    for (const auto& r : h.children("resourcevalue")) {
      const std::string_view name = r.attribute("name").value();
      const std::string_view dominance = r.attribute("dominance").value();
      if (name == "mem_total") {
        g.memory = memory_mib(r.text().get()).value_or(0);
      } else if (dominance == "hf" && booleans.contains(std::string(name))) {
        const auto v = to_number<double>(r.text().get());
        if (v && *v != 0) g.features.emplace_back(name);
      }
    }
    std::sort(g.features.begin(), g.features.end());
    add_node(out, std::move(g));
  }
  return out;
}

namespace {

/// A pending job's predecessors (-hold_jid: qstat -r lists those not finished yet), and why
/// the plan only approximates it, if it does.
void read_what_it_waits_for(const pugi::xml_node& j, qstat_entry& e) {
  for (const auto& p : j.children("predecessor_jobs"))
    if (const auto id = trim(p.text().get()); !id.empty()) e.job.after.emplace_back(id);
  std::string why;
  const auto add = [&why](const std::string& reason) { why += (why.empty() ? "" : "; ") + reason; };
  // 'h' is also the hold of -hold_jid while a predecessor runs: that one the plan models. A
  // user hold on top of it cannot be told apart in qstat's XML.
  if (e.state.find('h') != std::string::npos && e.job.after.empty())
    add("held (qhold or qsub -h): planned as if released now");
  if (e.state.find('E') != std::string::npos)
    add("in error state " + e.state + ": planned as if cleared now");
  if (const auto q = text_of(j, "hard_req_queue"); !q.empty())
    add("bound to queue " + std::string(q) + ": planned on any of the cell's slots");
  for (const auto& req : j.children("hard_request"))
    if (std::string_view(req.attribute("name").value()) == "hostname")
      add("bound to host " + std::string(trim(req.text().get())) +
          ": planned on any of the cell's slots");
  e.job.approximation = std::move(why);
}

}  // namespace

result<std::vector<qstat_entry>> parse_qstat(std::string_view xml) {
  auto doc = load(xml, "qstat -xml");
  if (!doc) return doc.err();
  std::vector<qstat_entry> running, pending;
  const auto read = [](const pugi::xml_node& j) -> result<qstat_entry> {
    qstat_entry e;
    e.job.id = std::string(text_of(j, "JB_job_number"));
    if (e.job.id.empty()) return fail(errc::lrms_failure, "qstat -xml: job without a number");
    if (const auto task = text_of(j, "tasks"); !task.empty() && to_number<long>(task))
      e.job.id += "." + std::string(task);
    e.job.owner = std::string(text_of(j, "JB_owner"));
    e.job.name = std::string(text_of(j, "JB_name"));
    e.job.np = to_number<int>(text_of(j, "slots")).value_or(1);
    e.state = std::string(text_of(j, "state"));
    e.pending = std::string_view(j.attribute("state").value()) == "pending";
    e.job.walltime = time_infinity;
    for (const auto& req : j.children("hard_request"))
      if (std::string_view(req.attribute("name").value()) == "h_rt") {
        auto d = parse_duration(req.text().get());
        if (!d) return d.err();
        e.job.walltime = *d;
      }
    if (const auto sub = text_of(j, "JB_submission_time"); !sub.empty()) {
      auto t = parse_time(sub);
      if (!t) return t.err();
      e.job.submitted = *t;
    }
    if (const auto st = text_of(j, "JAT_start_time"); !st.empty()) {
      auto t = parse_time(st);
      if (!t) return t.err();
      e.job.started = *t;
    }
    if (e.pending) read_what_it_waits_for(j, e);
    return e;
  };
  const auto root = doc->child("job_info");
  // Running jobs are under queue_info (or, with -f, under each Queue-List); pending ones under
  // the inner job_info.
  for (const auto& section : {root.child("queue_info"), root.child("job_info")}) {
    for (const auto& node : section.select_nodes(".//job_list")) {
      auto e = read(node.node());
      if (!e) return e.err();
      (e->pending ? pending : running).push_back(std::move(*e));
    }
  }
  running.insert(running.end(), std::make_move_iterator(pending.begin()),
                 std::make_move_iterator(pending.end()));
  return running;
}

result<std::map<std::string, job_details>> parse_job_details(std::string_view xml) {
  // qstat -j prints complaints about vanished jobs before the XML; start at the XML.
  const auto start = xml.find("<?xml");
  if (start == std::string_view::npos) return std::map<std::string, job_details>{};
  auto doc = load(xml.substr(start), "qstat -j -xml");
  if (!doc) return doc.err();
  std::map<std::string, job_details> out;
  for (const auto& el : doc->child("detailed_job_info").child("djob_info").children("element")) {
    const auto id = text_of(el, "JB_job_number");
    if (id.empty()) continue;
    job_details d;
    if (const auto ar = text_of(el, "JB_ar"); !ar.empty() && ar != "0") d.reservation = ar;
    // qsub -a: seconds since the epoch (0: none).
    d.not_before = to_number<timestamp>(text_of(el, "JB_execution_time")).value_or(0);
    if (d.reservation || d.not_before > 0) out.emplace(id, std::move(d));
  }
  return out;
}

std::optional<accounting_record> parse_qacct(std::string_view text) {
  std::optional<accounting_record> last;
  accounting_record cur;
  bool have_failed = false;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.starts_with("=====")) {
      have_failed = false;
      continue;
    }
    const auto sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) continue;
    const auto key = line.substr(0, sp);
    std::string_view value = trim(line.substr(sp));
    value = value.substr(0, value.find_first_of(" \t:"));
    if (key == "failed") {
      cur.failed = to_number<int>(value).value_or(-1);
      have_failed = true;
    } else if (key == "exit_status" && have_failed) {
      cur.exit_status = to_number<int>(value).value_or(-1);
      last = cur;
    }
  }
  return last;
}

bool failed_by_the_host(int failed) noexcept {
  return (failed >= 1 && failed <= 16) || (failed >= 18 && failed <= 21) || failed == 24 ||
         failed == 25 || failed == 36;
}

errc classify(std::string_view m) {
  const auto has = [&](std::string_view s) { return m.find(s) != std::string_view::npos; };
  if (has("unable to contact qmaster") || has("unable to send message to qmaster") ||
      has("commlib error") || has("Connection refused") || has("can't connect"))
    return errc::unreachable;
  if (has("no suitable queues")) return errc::busy;
  if (has("job duration is longer than duration of the advance reservation"))
    return errc::invalid_duration;
  if (has("time is in the past") || has("end time or duration") || has("date/time format") ||
      has("start time") || has("end time"))
    return errc::invalid_window;
  if (has("parallel environment") && has("does not exist")) return errc::lrms_failure;  // set-up
  if (has("does not exist")) return errc::not_found;
  if (has("is not known as a user") || has("no permission") || has("not allowed") ||
      has("no access"))
    return errc::permission_denied;
  if (has("pe range must be greater than zero") || has("slot range"))
    return errc::invalid_processor_range;
  if (has("is not a valid object name")) return errc::invalid_parameter;
  return errc::lrms_failure;
}

std::vector<std::string> resource_requests(const job_requirements& needs) {
  std::vector<std::string> out;
  if (needs.mem_per_node > 0) out.push_back("mem_free=" + std::to_string(needs.mem_per_node) + "M");
  if (needs.mem_per_cpu > 0) out.push_back("h_vmem=" + std::to_string(needs.mem_per_cpu) + "M");
  for (const auto& f : needs.features)
    out.push_back(f + "=TRUE");
  return out;
}

}  // namespace arbroker::gridengine
