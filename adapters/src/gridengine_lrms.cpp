#include "arbroker/adapters/gridengine_lrms.hpp"

#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <map>

#include "arbroker/adapters/gridengine_parse.hpp"

namespace arbroker {
namespace ge = gridengine;

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// What a client said, stderr first, on one line.
std::string said(const process_output& o) {
  std::string m(trim(o.err));
  const auto out = trim(o.out);
  if (!out.empty()) m += (m.empty() ? "" : "; ") + std::string(out);
  std::replace(m.begin(), m.end(), '\n', ' ');
  if (m.empty())
    m = o.signal != 0 ? "killed by signal " + std::to_string(o.signal)
                      : "exit status " + std::to_string(o.exit_code);
  return m;
}

error refused(const char* tool, const process_output& o) {
  const std::string m = said(o);
  return fail(ge::classify(m), std::string(tool) + ": " + m);
}

/// A job or reservation id as Grid Engine numbers them ("12", or "12.3" for an array task).
/// The clients take names and patterns too, so anything else must not reach them.
bool is_id(std::string_view id, bool task_allowed) {
  const auto dot = id.find('.');
  if (dot != std::string_view::npos && !task_allowed) return false;
  const auto all_digits = [](std::string_view s) {
    return !s.empty() && s.size() < 19 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string_view::npos) return all_digits(id);
  return all_digits(id.substr(0, dot)) && all_digits(id.substr(dot + 1));
}

std::string detect_bin_dir(const gridengine_config& c) {
  if (!c.bin_dir.empty()) return c.bin_dir;
  if (::access("/usr/lib/gridengine/qrsub", X_OK) == 0) return "/usr/lib/gridengine";
  utsname u{};
  ::uname(&u);
  const std::string_view m = u.machine;
  const std::string arch = m == "x86_64"    ? "lx-amd64"
                           : m == "aarch64" ? "lx-arm64"
                                            : "lx-" + std::string(m);
  return c.sge_root + "/bin/" + arch;
}

std::string current_user() {
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::geteuid(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
    return pw.pw_name;
  return {};
}

}  // namespace

gridengine_lrms::gridengine_lrms(gridengine_config config)
    : config_(std::move(config)), bin_dir_(detect_bin_dir(config_)) {}

std::string gridengine_lrms::lrms_name(const std::string& name) const {
  if (name.starts_with(config_.name_prefix)) return name;
  return config_.name_prefix + name;
}

gridengine_lrms::deadline gridengine_lrms::start_call() const {
  return steady_clock::now() + config_.timeout;
}

result<process_output> gridengine_lrms::run(const char* tool, std::vector<std::string> args,
                                            deadline until, std::optional<std::string> input,
                                            std::optional<process_user> user) const {
  const auto left = std::chrono::duration_cast<milliseconds>(until - steady_clock::now());
  if (left <= milliseconds(0))
    return fail(errc::timeout, std::string("Grid Engine: no time left for ") + tool + " (limit " +
                                   std::to_string(config_.timeout.count()) + " ms a call)");
  process_spec p;
  p.argv.reserve(args.size() + 1);
  p.argv.push_back(bin_dir_ + "/" + tool);
  for (auto& a : args)
    p.argv.push_back(std::move(a));
  p.env = {{"SGE_ROOT", config_.sge_root},
           {"SGE_CELL", config_.sge_cell},
           {"TZ", "UTC"},
           {"LC_ALL", "C"}};
  p.timeout = left;
  p.input = std::move(input);
  if (user) {
    p.user = std::move(user);
    p.cwd = config_.job_cwd;
  }
  auto r = run_process(p);
  if (r) return r;
  const error& e = r.err();
  if (e.code == errc::timeout)
    return fail(errc::timeout, "Grid Engine did not answer in time: " + e.message);
  if (e.code == errc::not_found && p.user && e.message.find(bin_dir_) == std::string::npos)
    return e;  // the job's working directory
  if (e.code == errc::not_found || e.code == errc::permission_denied)
    return fail(errc::unreachable, "Grid Engine client not usable: " + e.message);
  return e;
}

// --- queries ----------------------------------------------------------------------------------

result<std::vector<node_group>> gridengine_lrms::node_groups() {
  const auto until = start_call();
  auto sc = run("qconf", {"-sc"}, until);
  if (!sc) return sc.err();
  if (!sc->ok()) return refused("qconf -sc", *sc);
  auto hosts = run("qhost", {"-q", "-F", "-xml"}, until);
  if (!hosts) return hosts.err();
  if (!hosts->ok()) return refused("qhost", *hosts);
  return ge::parse_qhost_nodes(hosts->out, ge::boolean_complexes(sc->out));
}

result<int> gridengine_lrms::total_slots(deadline until) {
  auto o = run("qstat", {"-g", "c", "-xml"}, until);
  if (!o) return o.err();
  if (!o->ok()) return refused("qstat", *o);
  return ge::parse_cluster_slots(o->out);
}

result<duration> gridengine_lrms::queue_time_limit(deadline until) {
  const auto now = std::chrono::steady_clock::now();
  if (time_limit_read_ && now - *time_limit_read_ < std::chrono::minutes(10)) return time_limit_;
  auto names = run("qconf", {"-sql"}, until);
  if (!names) return names.err();
  if (!names->ok()) return refused("qconf -sql", *names);
  duration longest = 0;
  for (const auto queue : ge::lines_of(names->out)) {
    auto q = run("qconf", {"-sq", std::string(queue)}, until);
    if (!q) return q.err();
    if (!q->ok()) return refused("qconf -sq", *q);
    auto h_rt = ge::parse_queue_h_rt(q->out);
    if (!h_rt) return h_rt.err();
    if (*h_rt >= time_infinity) {
      longest = 0;  // a queue without a limit: none for the cluster
      break;
    }
    longest = std::max(longest, *h_rt);
  }
  time_limit_ = longest;
  time_limit_read_ = now;
  return longest;
}

result<std::vector<lrms_job>> gridengine_lrms::list_jobs(deadline until,
                                                         std::vector<lrms_job>* queued) {
  auto o = run("qstat", {"-xml", "-r", "-g", "d", "-u", "*"}, until);
  if (!o) return o.err();
  if (!o->ok()) return refused("qstat", *o);
  auto entries = ge::parse_qstat(o->out);
  if (!entries) return entries.err();
  // Which reservation each job is bound to, and its -a time, are only in the jobs' details.
  std::vector<std::string> numbers;
  for (const auto& e : *entries) {
    std::string n = e.job.id.substr(0, e.job.id.find('.'));
    if (std::find(numbers.begin(), numbers.end(), n) == numbers.end()) numbers.push_back(n);
  }
  std::map<std::string, ge::job_details> details;
  if (!numbers.empty()) {
    std::string list;
    for (const auto& n : numbers)
      list += (list.empty() ? "" : ",") + n;
    auto d = run("qstat", {"-j", list, "-xml"}, until);
    if (!d) return d.err();
    // A job that ended in between makes qstat -j complain and exit 1; the rest is fine.
    if (!d->ok() && ge::classify(said(*d)) == errc::unreachable) return refused("qstat", *d);
    auto b = ge::parse_job_details(d->out);
    if (!b) return b.err();
    details = std::move(*b);
  }
  std::vector<lrms_job> running;
  for (auto& e : *entries) {
    if (auto it = details.find(e.job.id.substr(0, e.job.id.find('.'))); it != details.end()) {
      e.job.reservation = it->second.reservation;
      if (e.pending) e.job.not_before = it->second.not_before;
    }
    if (e.pending) {
      if (queued != nullptr) queued->push_back(std::move(e.job));
    } else {
      running.push_back(std::move(e.job));
    }
  }
  return running;
}

result<std::vector<lrms_reservation>> gridengine_lrms::list_reservations(deadline until) {
  auto o = run("qrstat", {"-xml", "-u", "*"}, until);
  if (!o) return o.err();
  if (!o->ok()) return refused("qrstat", *o);
  auto summary = ge::parse_qrstat(o->out);
  if (!summary) return summary.err();
  std::string ids;
  for (const auto& e : *summary)
    if (e.state != "d") ids += (ids.empty() ? "" : ",") + e.reservation.id;
  std::vector<lrms_reservation> out;
  if (ids.empty()) return out;
  // The summary has no CPU counts and no access lists: ask for the details.
  auto d = run("qrstat", {"-xml", "-ar", ids}, until);
  if (!d) return d.err();
  // When every listed reservation has gone in between, qrstat exits 1 with <ar_unknown>s.
  auto details = ge::parse_qrstat(d->out);
  if (!d->ok() && (!details || ge::classify(said(*d)) == errc::unreachable))
    return refused("qrstat", *d);
  if (!details) return details.err();
  for (auto& e : *details)
    if (e.state != "d") out.push_back(std::move(e.reservation));
  return out;
}

result<lrms_snapshot> gridengine_lrms::snapshot() {
  return read(true);
}

result<lrms_snapshot> gridengine_lrms::jobs_snapshot() {
  return read(false);
}

result<lrms_snapshot> gridengine_lrms::read(bool with_reservations) {
  const auto until = start_call();
  auto s = snapshot_once(until, with_reservations);
  // A snapshot only reads: one that failed on an answer it could not use (a qmaster busy
  // restarting or under load can drop a reply: "failed receiving gdi request response") is
  // asked once more while the call's deadline allows. A qmaster that is down is not.
  if (!s && s.err().code == errc::lrms_failure && steady_clock::now() < until - config_.timeout / 2)
    s = snapshot_once(until, with_reservations);
  return s;
}

result<lrms_snapshot> gridengine_lrms::snapshot_once(deadline until, bool with_reservations) {
  lrms_snapshot s;
  s.now = static_cast<timestamp>(std::time(nullptr));
  auto slots = total_slots(until);
  if (!slots) return slots.err();
  s.cpus = *slots;
  auto limit = queue_time_limit(until);
  if (!limit) return limit.err();
  s.max_walltime = *limit;
  s.sizes = reservable_sizes{1, {}};
  // qmaster books a running job until start + h_rt + DURATION_OFFSET (adapters/README.md).
  s.job_end_margin = config_.duration_offset;
  auto running = list_jobs(until, &s.queued);
  if (!running) return running.err();
  s.running = std::move(*running);
  if (!with_reservations) return s;
  auto reservations = list_reservations(until);
  if (!reservations) return reservations.err();
  s.reservations = std::move(*reservations);
  return s;
}

result<std::vector<lrms_reservation>> gridengine_lrms::owned_reservations() {
  auto all = list_reservations(start_call());
  if (!all) return all.err();
  std::vector<lrms_reservation> mine;
  for (auto& r : *all)
    if (r.name.starts_with(config_.name_prefix)) mine.push_back(std::move(r));
  return mine;
}

// --- reservations -----------------------------------------------------------------------------

result<std::string> gridengine_lrms::create(const reservation_spec& spec, deadline until) {
  if (spec.np < 1)
    return fail(errc::invalid_processor_range,
                "a reservation needs at least one CPU, not " + std::to_string(spec.np));
  if (spec.length < 1)
    return fail(errc::invalid_window,
                "reservation length must be positive, not " + std::to_string(spec.length) + " s");
  const auto now = static_cast<timestamp>(std::time(nullptr));
  if (spec.start < now)
    return fail(errc::invalid_window, "reservation start " + std::to_string(spec.start) +
                                          " is in the past (now " + std::to_string(now) + ")");
  std::vector<std::string> args = {
      "-a",       ge::format_time(spec.start), "-d", std::to_string(spec.length), "-pe",
      config_.pe, std::to_string(spec.np),     "-N", lrms_name(spec.name)};
  if (!spec.owner.empty()) {
    args.emplace_back("-u");
    args.push_back(spec.owner);
  }
  if (!spec.account.empty()) {  // Grid Engine's account string, for its accounting
    args.emplace_back("-A");
    args.push_back(spec.account);
  }
  auto o = run("qrsub", std::move(args), until);
  if (!o) return o.err();
  if (o->ok()) {
    if (auto id = ge::granted_reservation_id(o->out)) return *id;
    return fail(errc::lrms_failure, "qrsub: unexpected answer: " + said(*o));
  }
  error e = refused("qrsub", *o);
  if (e.code == errc::busy) {
    // "no suitable queues" also means "more CPUs than there are at all".
    if (auto slots = total_slots(until); slots && spec.np > *slots)
      return fail(errc::invalid_processor_range, std::to_string(spec.np) +
                                                     " CPUs asked, the cluster has " +
                                                     std::to_string(*slots) + "; " + e.message);
  }
  return e;
}

result<std::string> gridengine_lrms::create_reservation(const reservation_spec& spec) {
  return create(spec, start_call());
}

status gridengine_lrms::remove(const std::string& id, deadline until) {
  if (!is_id(id, false)) return fail(errc::not_found, "no reservation '" + id + "'");
  auto o = run("qrdel", {id}, until);
  if (!o) return o.err();
  if (!o->ok()) return refused("qrdel", *o);
  // qrdel deleted the jobs bound to it too.
  for (const auto& [job, ar] : submitted_)
    if (ar == id) cancelled_.insert(job);
  return {};
}

status gridengine_lrms::delete_reservation(const std::string& id) {
  return remove(id, start_call());
}

result<std::string> gridengine_lrms::modify_reservation(const std::string& id,
                                                        const reservation_spec& new_terms) {
  if (!is_id(id, false)) return fail(errc::not_found, "no reservation '" + id + "'");
  const auto until = start_call();
  auto old = run("qrstat", {"-xml", "-ar", id}, until);
  if (!old) return old.err();
  if (auto listed = ge::parse_qrstat(old->out); !listed || listed->empty()) {
    if (!old->ok() && ge::classify(said(*old)) == errc::unreachable) return refused("qrstat", *old);
    return fail(errc::not_found, "no reservation " + id);
  }
  // Deleting the old reservation deletes the jobs bound to it: refuse rather than lose them.
  std::vector<lrms_job> queued;
  auto running = list_jobs(until, &queued);
  if (!running) return running.err();
  std::string bound;
  for (const auto* list : {&*running, &queued})
    for (const auto& j : *list)
      if (j.reservation == id) bound += (bound.empty() ? "" : ", ") + j.id;
  if (!bound.empty())
    return fail(errc::in_use, "reservation " + id + " has jobs bound to it (" + bound +
                                  "); replacing it would delete them");
  auto fresh = create(new_terms, until);
  if (!fresh) return fresh.err();
  if (auto s = remove(id, until); !s) {
    // Undo, so that the old terms alone stay; with a fresh time budget of its own.
    (void)remove(*fresh, start_call());
    return fail(s.err().code,
                "reservation " + id + " kept unchanged: deleting it failed: " + s.err().message);
  }
  return *fresh;
}

// --- jobs -------------------------------------------------------------------------------------

result<std::string> gridengine_lrms::submit_job(const job_spec& spec) {
  if (spec.np < 1)
    return fail(errc::invalid_processor_range,
                "a job needs at least one CPU, not " + std::to_string(spec.np));
  if (spec.walltime < 1)
    return fail(errc::invalid_duration,
                "a job needs a positive walltime, not " + std::to_string(spec.walltime) + " s");
  if (spec.command.empty()) return fail(errc::invalid_parameter, "a job needs a command");
  if (spec.reservation && !is_id(*spec.reservation, false))
    return fail(errc::not_found, "no reservation '" + *spec.reservation + "'");
  std::optional<process_user> user;
  if (!spec.owner.empty() && spec.owner != current_user()) {
    auto u = lookup_user(spec.owner);
    if (!u) return u.err();
    user = std::move(*u);
  }
  std::vector<std::string> args = {"-terse",
                                   "-N",
                                   spec.name.empty() ? "arb-job" : spec.name,
                                   "-l",
                                   "h_rt=" + std::to_string(spec.walltime),
                                   "-pe",
                                   config_.pe,
                                   std::to_string(spec.np),
                                   "-S",
                                   "/bin/sh",
                                   "-wd",
                                   config_.job_cwd,
                                   "-o",
                                   config_.job_output,
                                   "-e",
                                   config_.job_output};
  if (spec.reservation) {
    args.emplace_back("-ar");
    args.push_back(*spec.reservation);
  }
  if (!spec.account.empty()) {
    args.emplace_back("-A");
    args.push_back(spec.account);
  }
  if (spec.not_before > 0) {  // qsub -a: not eligible before then
    args.emplace_back("-a");
    args.push_back(ge::format_time(spec.not_before));
  }
  // The job's needs as resource requests: memory free on the host (mem_free, per host), a
  // memory limit per slot (h_vmem), and each feature as a boolean complex the site defines.
  for (auto& request : ge::resource_requests(spec.needs)) {
    args.emplace_back("-l");
    args.push_back(std::move(request));
  }
  // The script comes on stdin: no quoting of the command on any command line.
  auto o = run("qsub", std::move(args), start_call(), "#!/bin/sh\n" + spec.command + "\n",
               std::move(user));
  if (!o) return o.err();
  if (!o->ok()) {
    error e = refused("qsub", *o);
    // For a job, "no suitable queues" means it can never run as asked (too many CPUs for
    // the reservation, or the owner has no access to it), not that CPUs are taken.
    if (e.code == errc::busy) e.code = errc::lrms_failure;
    return e;
  }
  auto id = ge::submitted_job_id(o->out);
  if (!id) return fail(errc::lrms_failure, "qsub: unexpected answer: " + said(*o));
  submitted_.emplace(*id, spec.reservation);
  return *id;
}

status gridengine_lrms::cancel_job(const std::string& id) {
  if (!is_id(id, true)) return fail(errc::not_found, "no job '" + id + "'");
  auto o = run("qdel", {id}, start_call());
  if (!o) return o.err();
  if (!o->ok()) return refused("qdel", *o);
  cancelled_.insert(id);
  return {};
}

result<lrms_job_state> gridengine_lrms::job_status(const std::string& id) {
  if (!is_id(id, true)) return fail(errc::not_found, "no job '" + id + "'");
  const auto until = start_call();
  auto o = run("qstat", {"-xml", "-g", "d", "-u", "*"}, until);
  if (!o) return o.err();
  if (!o->ok()) return refused("qstat", *o);
  auto entries = ge::parse_qstat(o->out);
  if (!entries) return entries.err();
  const bool whole_job = id.find('.') == std::string::npos;
  for (const auto& e : *entries) {
    const bool match = e.job.id == id || (whole_job && e.job.id.starts_with(id + "."));
    if (!match) continue;
    const std::string& st = e.state;
    if (st.find('E') != std::string::npos) return lrms_job_state::failed;
    if (st.find('d') != std::string::npos) return lrms_job_state::cancelled;
    return e.pending ? lrms_job_state::queued : lrms_job_state::running;
  }
  // Gone from the queue: finished. The accounting file says how.
  const std::string number = id.substr(0, id.find('.'));
  const bool deleted = cancelled_.contains(id) || cancelled_.contains(number);
  auto a = run("qacct", {"-j", number}, until);
  if (!a) return a.err();
  if (auto rec = a->ok() ? ge::parse_qacct(a->out) : std::nullopt) {
    if (rec->failed == 0 && rec->exit_status == 0) return lrms_job_state::completed;
    if (deleted) return lrms_job_state::cancelled;
    // The host's failure, not the job's: the job may be placed again elsewhere.
    return ge::failed_by_the_host(rec->failed) ? lrms_job_state::lost : lrms_job_state::failed;
  }
  // No record: it never ran. Deleted while waiting, by qdel or by qrdel of its reservation
  // (or by someone else, for a job of ours; the cell writes accounting records at once).
  if (deleted || submitted_.contains(number)) return lrms_job_state::cancelled;
  return fail(errc::not_found, "no job " + id + " in the queue or the accounting file");
}

}  // namespace arbroker
