#include "arbroker/adapters/slurm_lrms.hpp"

#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "arbroker/adapters/node_groups.hpp"
#include "slurm_api.hpp"

namespace arbroker {

/// What a libslurm call needs to reach one cluster. Shared with the calls in flight, so an
/// adapter may be destroyed while one of its calls still runs on the libslurm thread.
struct slurm_lrms::cluster {
  std::string conf;  ///< path of the cluster's slurm.conf
  int message_timeout_s = 3;
  std::string partition;
};

namespace {

using std::chrono::milliseconds;

/// A typed error from a Slurm error number, keeping Slurm's words.
error slurm_error(int code, std::string_view what) {
  std::string message(what);
  message += ": ";
  const char* text = slurm_strerror(code);
  message += text ? text : "unknown error";
  message += " (Slurm error " + std::to_string(code) + ")";
  return fail(slurm_errc(code), std::move(message));
}

/// When the current call on the libslurm thread started.
std::chrono::steady_clock::time_point call_started;

/// Whether the controller libslurm is configured for accepts a TCP connection (within a
/// second). On the libslurm thread.
bool controller_accepts() {
  if (!slurm_conf.control_addr || slurm_conf.control_cnt == 0 || !slurm_conf.control_addr[0])
    return false;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(slurm_conf.slurmctld_port);
  if (getaddrinfo(slurm_conf.control_addr[0], port.c_str(), &hints, &found) != 0) return false;
  bool accepted = false;
  for (addrinfo* a = found; a && !accepted; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      accepted = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof err;
      accepted = ::poll(&p, 1, 1000) == 1 &&
                 ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
    ::close(fd);
  }
  freeaddrinfo(found);
  return accepted;
}

/// The typed error of the libslurm call that just failed. Some calls (creating a
/// reservation) report a failed exchange with the controller as "Unexpected message
/// received", hiding the cause; a connection attempt and the time taken tell it again.
error last_slurm_error(std::string_view what) {
  const int code = slurm_get_errno();
  error e = slurm_error(code, what);
  if (code != SLURM_UNEXPECTED_MSG_ERROR) return e;
  const auto waited = std::chrono::steady_clock::now() - call_started;
  if (!controller_accepts()) {
    e.code = errc::unreachable;
    e.message += "; the controller refuses connections";
  } else if (waited >= std::chrono::seconds(slurm_conf.msg_timeout)) {
    e.code = errc::timeout;
    e.message += "; no reply from the controller within the message timeout";
  }
  return e;
}

/// The one thread that calls libslurm. libslurm keeps its configuration (which controller,
/// which timeouts) in process-wide state, so every call of every adapter of the process is
/// made here, one at a time, after pointing that state at the adapter's cluster.
class slurm_thread {
 public:
  static slurm_thread& instance() {
    // Never destroyed: at exit the thread may still be inside a libslurm call.
    static slurm_thread* const t = new slurm_thread;
    return *t;
  }

  void post(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

  /// On the thread: makes libslurm talk to cluster `c` (re-initialising it when the
  /// previous call was for another cluster) with c's message timeout.
  status use(const slurm_lrms::cluster& c) {
    if (current_conf_ != c.conf) {
      // slurm_init() ends the process on an unreadable configuration; check first.
      if (::access(c.conf.c_str(), R_OK) != 0)
        return fail(errc::lrms_failure,
                    "cannot read Slurm configuration " + c.conf + ": " + std::strerror(errno));
      if (!current_conf_.empty()) slurm_fini();
      slurm_init(c.conf.c_str());
      current_conf_ = c.conf;
    }
    slurm_conf.msg_timeout = static_cast<uint16_t>(std::clamp(c.message_timeout_s, 1, 3600));
    return {};
  }

 private:
  slurm_thread() {
    std::thread([this] { run(); }).detach();
  }

  [[noreturn]] void run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  std::string current_conf_;  ///< only touched on the thread
};

/// Runs `work` on the libslurm thread for cluster `c` and waits at most `timeout`. A call
/// that has not started when its caller gives up is skipped; one that has started runs to
/// its end (libslurm's message timeout bounds it) and its result is dropped.
template <class T>
result<T> on_slurm_thread(std::shared_ptr<const slurm_lrms::cluster> c, milliseconds timeout,
                          std::string_view what, std::function<result<T>()> work) {
  struct call {
    std::promise<result<T>> done;
    std::atomic<bool> abandoned{false};
  };
  auto state = std::make_shared<call>();
  auto future = state->done.get_future();
  slurm_thread::instance().post([c = std::move(c), state, work = std::move(work)] {
    if (state->abandoned.load()) return;
    call_started = std::chrono::steady_clock::now();
    auto ready = slurm_thread::instance().use(*c);
    if (!ready) {
      state->done.set_value(ready.err());
      return;
    }
    state->done.set_value(work());
  });
  if (future.wait_for(timeout) != std::future_status::ready) {
    state->abandoned = true;
    return fail(errc::timeout, std::string(what) + ": no answer from Slurm within " +
                                   std::to_string(timeout.count()) + " ms");
  }
  return future.get();
}

template <class T, void (*Free)(T*)>
struct slurm_deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};
using partitions_ptr =
    std::unique_ptr<partition_info_msg_t,
                    slurm_deleter<partition_info_msg_t, slurm_free_partition_info_msg>>;
using jobs_ptr =
    std::unique_ptr<job_info_msg_t, slurm_deleter<job_info_msg_t, slurm_free_job_info_msg>>;
using reservations_ptr =
    std::unique_ptr<reserve_info_msg_t,
                    slurm_deleter<reserve_info_msg_t, slurm_free_reservation_info_msg>>;
using nodes_ptr =
    std::unique_ptr<node_info_msg_t, slurm_deleter<node_info_msg_t, slurm_free_node_info_msg>>;
using submit_ptr =
    std::unique_ptr<submit_response_msg_t,
                    slurm_deleter<submit_response_msg_t, slurm_free_submit_response_response_msg>>;

struct account {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string home;
};

/// The local account of a user name; nullopt when there is none.
std::optional<account> find_user(const std::string& name) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwnam_r(name.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 || !found)
    return std::nullopt;
  return account{pw.pw_uid, pw.pw_gid, pw.pw_dir ? pw.pw_dir : "/"};
}

std::string user_name(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) != 0 || !found)
    return std::to_string(uid);
  return pw.pw_name;
}

/// The CPU count of a TRES string such as "cpu=6,mem=100M"; 0 when it names none.
int tres_cpus(const char* tres) {
  if (!tres) return 0;
  std::string_view s(tres);
  for (std::size_t at = 0; at < s.size();) {
    std::size_t end = s.find(',', at);
    if (end == std::string_view::npos) end = s.size();
    std::string_view item = s.substr(at, end - at);
    if (item.starts_with("cpu=")) {
      int n = 0;
      std::from_chars(item.data() + 4, item.data() + item.size(), n);
      return n;
    }
    at = end + 1;
  }
  return 0;
}

duration limit_seconds(uint32_t minutes) {
  if (minutes == INFINITE || minutes == NO_VAL) return time_infinity;
  return static_cast<duration>(minutes) * 60;
}

lrms_reservation to_reservation(const reserve_info_t& r) {
  lrms_reservation out;
  out.id = r.name ? r.name : "";
  out.name = out.id;
  out.owner = r.users ? r.users : "";
  out.start = r.start_time;
  out.end = r.end_time;
  out.np = tres_cpus(r.tres_str);
  if (out.np == 0) out.np = static_cast<int>(r.core_cnt);
  out.account = r.accounts ? r.accounts : "";
  return out;
}

lrms_job to_job(const slurm_job_info_t& j, std::string_view cluster_partition = {}) {
  lrms_job out;
  out.id = std::to_string(j.job_id);
  out.owner = j.user_name && *j.user_name ? j.user_name : user_name(j.user_id);
  out.np = static_cast<int>(j.num_cpus);
  out.walltime = limit_seconds(j.time_limit);
  out.submitted = j.submit_time;
  const uint32_t state = j.job_state & JOB_STATE_BASE;
  if (state == JOB_RUNNING || state == JOB_SUSPENDED) out.started = j.start_time;
  if (j.resv_name && *j.resv_name) out.reservation = std::string(j.resv_name);
  if (j.name) out.name = j.name;
  if (state == JOB_PENDING) {
    // What else it waits for besides CPUs: its begin time (--begin) and its dependencies.
    out.not_before = static_cast<timestamp>(j.eligible_time);  // the --begin time
    if (j.dependency) out.after = slurm_dependency_ids(j.dependency);
    const bool held =
        j.priority == 0 || j.state_reason == WAIT_HELD || j.state_reason == WAIT_HELD_USER;
    out.approximation =
        slurm_approximation({held, j.partition ? j.partition : "", cluster_partition,
                             j.req_nodes ? j.req_nodes : "", j.dependency ? j.dependency : ""});
  }
  return out;
}

lrms_job_state to_state(uint32_t job_state) {
  switch (job_state & JOB_STATE_BASE) {
    case JOB_PENDING:
      return lrms_job_state::queued;
    case JOB_RUNNING:
    case JOB_SUSPENDED:
      return lrms_job_state::running;
    case JOB_COMPLETE:
      return lrms_job_state::completed;
    case JOB_CANCELLED:
      return lrms_job_state::cancelled;
    case JOB_NODE_FAIL:
    case JOB_BOOT_FAIL:
      return lrms_job_state::lost;  // the infrastructure's failure, not the job's
    default:                        // failed, timeout, preempted, deadline, out of memory
      return lrms_job_state::failed;
  }
}

/// A Slurm job id, or nullopt when `id` is not one.
std::optional<uint32_t> parse_job_id(const std::string& id) {
  uint32_t n = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
  if (ec != std::errc() || end != id.data() + id.size() || n == 0) return std::nullopt;
  return n;
}

result<std::vector<lrms_reservation>> load_reservations() {
  reserve_info_msg_t* raw = nullptr;
  if (slurm_load_reservations(0, &raw) != SLURM_SUCCESS)
    return last_slurm_error("loading reservations");
  reservations_ptr msg(raw);
  std::vector<lrms_reservation> out;
  for (uint32_t i = 0; i < msg->record_count; ++i)
    out.push_back(to_reservation(msg->reservation_array[i]));
  return out;
}

/// Creates the reservation `name` on the libslurm thread.
result<std::string> create_on_thread(const slurm_lrms::cluster& c, const std::string& name,
                                     const reservation_spec& spec) {
  resv_desc_msg_t desc;
  slurm_init_resv_desc_msg(&desc);
  std::string name_buf = name, owner = spec.owner, partition = c.partition, account = spec.account;
  desc.name = name_buf.data();
  desc.start_time = static_cast<time_t>(spec.start);
  desc.end_time = static_cast<time_t>(spec.start + spec.length);
  desc.users = owner.data();
  if (!account.empty()) desc.accounts = account.data();
  // CPUs as a core count (what scontrol makes of TRES=cpu=N: one count, 0-terminated). A
  // node count would be cut silently to what is free.
  uint32_t cores[2] = {static_cast<uint32_t>(spec.np), 0};
  desc.core_cnt = cores;
  if (!partition.empty()) desc.partition = partition.data();
  char* created = slurm_create_reservation(&desc);
  if (!created) return last_slurm_error("creating reservation " + name);
  std::string id(created);
  std::free(created);  // strdup'ed by libslurm
  return id;
}

status delete_on_thread(const std::string& id) {
  std::string name = id;
  reservation_name_msg_t msg{};
  msg.name = name.data();
  if (slurm_delete_reservation(&msg) != SLURM_SUCCESS)
    return last_slurm_error("deleting reservation " + id);
  return {};
}

/// A reservation name without its generation suffix: arb-x~2 -> arb-x.
std::string_view generation_base(std::string_view name) {
  const auto tilde = name.rfind('~');
  if (tilde == std::string_view::npos || tilde + 1 == name.size()) return name;
  for (char ch : name.substr(tilde + 1))
    if (ch < '0' || ch > '9') return name;
  return name.substr(0, tilde);
}

std::string resolve_conf(const std::string& conf) {
  if (!conf.empty()) return conf;
  if (const char* env = std::getenv("SLURM_CONF"); env && *env) return env;
  return "/etc/slurm/slurm.conf";
}

}  // namespace

slurm_lrms::slurm_lrms(slurm_options options)
    : options_(std::move(options)), cluster_(std::make_shared<cluster>()) {
  options_.conf = resolve_conf(options_.conf);
  cluster_->conf = options_.conf;
  cluster_->message_timeout_s = options_.message_timeout_s;
  cluster_->partition = options_.partition;
}

slurm_lrms::~slurm_lrms() = default;

std::string slurm_lrms::reservation_name(std::string_view name) const {
  if (name.empty()) {
    static std::atomic<unsigned> counter{0};
    return options_.prefix + std::to_string(std::time(nullptr)) + "-" + std::to_string(::getpid()) +
           "-" + std::to_string(counter++);
  }
  if (name.starts_with(options_.prefix)) return std::string(name);
  return options_.prefix + std::string(name);
}

std::string slurm_lrms::successor_name(std::string_view id) const {
  std::string_view base = id;
  unsigned generation = 0;
  if (auto tilde = id.rfind('~'); tilde != std::string_view::npos) {
    std::string_view digits = id.substr(tilde + 1);
    unsigned n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size()) {
      base = id.substr(0, tilde);
      generation = n;
    }
  }
  return std::string(base) + "~" + std::to_string(generation + 1);
}

namespace {

// The partition arbroker submits to (`wanted`, or the default one), loaded into `parts`.
result<const partition_info_t*> load_partition(const std::string& wanted, partitions_ptr& parts,
                                               const std::string& what) {
  partition_info_msg_t* raw_parts = nullptr;
  if (slurm_load_partitions(0, &raw_parts, SHOW_ALL) != SLURM_SUCCESS)
    return last_slurm_error("loading partitions");
  parts.reset(raw_parts);
  const partition_info_t* part = nullptr;
  for (uint32_t i = 0; i < parts->record_count; ++i) {
    const partition_info_t& p = parts->partition_array[i];
    const bool chosen =
        wanted.empty() ? (p.flags & PART_FLAG_DEFAULT) != 0 : p.name && wanted == p.name;
    if (chosen) part = &p;
  }
  if (!part)
    return fail(errc::not_found, wanted.empty() ? what + ": the cluster has no default partition"
                                                : what + ": no partition " + wanted);
  return part;
}

// "ib,avx512" -> {"avx512", "ib"}: sorted, so that alike nodes group together.
std::vector<std::string> feature_list(const char* text) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = text ? text : "";; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// The partition's nodes (slurm_load_node), grouped by CPUs, RealMemory and Features.
result<std::vector<node_group>> slurm_lrms::node_groups() {
  return on_slurm_thread<std::vector<node_group>>(
      cluster_, options_.call_timeout, "loading nodes",
      [c = cluster_]() -> result<std::vector<node_group>> {
        partitions_ptr parts;
        auto part = load_partition(c->partition, parts, "loading nodes");
        if (!part) return part.err();
        node_info_msg_t* raw = nullptr;
        if (slurm_load_node(0, &raw, SHOW_ALL) != SLURM_SUCCESS)
          return last_slurm_error("loading nodes");
        nodes_ptr nodes(raw);
        std::unique_ptr<std::remove_pointer_t<hostlist_t>, void (*)(hostlist_t)> in_partition(
            slurm_hostlist_create((*part)->nodes ? (*part)->nodes : ""), slurm_hostlist_destroy);
        std::vector<node_group> out;
        for (uint32_t i = 0; i < nodes->record_count; ++i) {
          const node_info_t& n = nodes->node_array[i];
          if (!n.name || !in_partition || slurm_hostlist_find(in_partition.get(), n.name) < 0)
            continue;
          add_node(out, {1, static_cast<std::int32_t>(n.cpus),
                         static_cast<std::int64_t>(n.real_memory), feature_list(n.features)});
        }
        return out;
      });
}

result<lrms_snapshot> slurm_lrms::snapshot() {
  return read(true);
}

result<lrms_snapshot> slurm_lrms::jobs_snapshot() {
  return read(false);
}

lrms::snapshot_rest slurm_lrms::begin_snapshot() {
  // Listed on the libslurm thread as every call is; the caller goes on meanwhile, and its
  // own calls queue behind the listing there.
  return [c = cluster_, timeout = options_.call_timeout] { return read(c, timeout, true); };
}

result<lrms_snapshot> slurm_lrms::read(bool with_reservations) {
  return read(cluster_, options_.call_timeout, with_reservations);
}

result<lrms_snapshot> slurm_lrms::read(std::shared_ptr<cluster> cluster,
                                       std::chrono::milliseconds timeout, bool with_reservations) {
  auto on = cluster;
  return on_slurm_thread<lrms_snapshot>(
      std::move(on), timeout, "snapshot",
      [c = std::move(cluster), with_reservations]() -> result<lrms_snapshot> {
        lrms_snapshot s;
        s.now = std::time(nullptr);
        s.sizes.bunch = 1;  // CPUs are reserved as single cores
        // A reservation may start at a running job's EndTime + 1 s at the earliest (the
        // job's end_time counts as taken; measured on 22.05, adapters/README.md).
        s.job_end_margin = 1;

        partitions_ptr parts;
        auto found = load_partition(c->partition, parts, "snapshot");
        if (!found) return found.err();
        const partition_info_t* part = *found;
        s.cpus = static_cast<int>(part->total_cpus);
        if (part->max_time != INFINITE && part->max_time != NO_VAL)
          s.max_walltime = static_cast<duration>(part->max_time) * 60;  // minutes

        job_info_msg_t* raw_jobs = nullptr;
        if (slurm_load_jobs(0, &raw_jobs, SHOW_ALL) != SLURM_SUCCESS)
          return last_slurm_error("loading jobs");
        jobs_ptr jobs(raw_jobs);
        struct queued_job {
          uint32_t priority;
          lrms_job job;
        };
        std::vector<queued_job> queued;
        for (uint32_t i = 0; i < jobs->record_count; ++i) {
          const slurm_job_info_t& j = jobs->job_array[i];
          const lrms_job_state state = to_state(j.job_state);
          if (state == lrms_job_state::running)
            s.running.push_back(to_job(j));
          else if (state == lrms_job_state::queued)
            queued.push_back({j.priority, to_job(j, part->name ? part->name : "")});
        }
        // Queue order: Slurm starts higher priorities first, then earlier submissions.
        std::stable_sort(queued.begin(), queued.end(), [](const auto& a, const auto& b) {
          if (a.priority != b.priority) return a.priority > b.priority;
          return a.job.submitted < b.job.submitted;
        });
        for (auto& q : queued)
          s.queued.push_back(std::move(q.job));

        if (!with_reservations) return s;
        auto reservations = load_reservations();
        if (!reservations) return reservations.err();
        s.reservations = std::move(*reservations);
        return s;
      });
}

result<std::vector<lrms_reservation>> slurm_lrms::owned_reservations() {
  return on_slurm_thread<std::vector<lrms_reservation>>(
      cluster_, options_.call_timeout, "listing reservations",
      [prefix = options_.prefix]() -> result<std::vector<lrms_reservation>> {
        auto all = load_reservations();
        if (!all) return all.err();
        std::vector<lrms_reservation> mine;
        for (auto& r : *all)
          if (r.name.starts_with(prefix)) mine.push_back(std::move(r));
        return mine;
      });
}

result<std::string> slurm_lrms::create_reservation(const reservation_spec& spec) {
  if (spec.np < 1)
    return fail(errc::invalid_processor_range,
                "reservation of " + std::to_string(spec.np) + " CPUs: need at least one");
  if (spec.length <= 0)
    return fail(errc::invalid_window, "reservation of length " + std::to_string(spec.length) +
                                          " s: the interval is empty");
  if (spec.owner.empty()) return fail(errc::permission_denied, "reservation without an owner");
  const timestamp now = std::time(nullptr);
  if (spec.start < now - options_.past_start_tolerance)
    return fail(errc::invalid_window, "reservation start " + std::to_string(spec.start) +
                                          " is in the past (now " + std::to_string(now) + ")");
  return on_slurm_thread<std::string>(
      cluster_, options_.call_timeout, "creating a reservation",
      [c = cluster_, name = reservation_name(spec.name), spec]() -> result<std::string> {
        return create_on_thread(*c, name, spec);
      });
}

status slurm_lrms::delete_reservation(const std::string& id) {
  if (!id.starts_with(options_.prefix))
    return fail(errc::permission_denied, "reservation " + id + " is not arbroker's (prefix " +
                                             options_.prefix + "); not deleting it");
  return on_slurm_thread<void>(cluster_, options_.call_timeout, "deleting reservation " + id,
                               [id]() -> status { return delete_on_thread(id); });
}

result<std::string> slurm_lrms::modify_reservation(const std::string& id,
                                                   const reservation_spec& new_terms) {
  if (!id.starts_with(options_.prefix))
    return fail(errc::permission_denied, "reservation " + id + " is not arbroker's (prefix " +
                                             options_.prefix + "); not modifying it");
  // Make before break: Slurm does not check capacity when a reservation's start or length
  // is updated (it overbooks) and cannot change a core count, so the new terms become a
  // new reservation, and the old one goes only once the new one holds.
  // The same name (or none) means the next generation of `id`; another name is taken as is.
  std::string name = new_terms.name.empty() ? std::string() : reservation_name(new_terms.name);
  if (name.empty() || generation_base(name) == generation_base(id)) name = successor_name(id);
  auto created = create_reservation(reservation_spec{
      name, new_terms.owner, new_terms.start, new_terms.length, new_terms.np, new_terms.account});
  if (!created) {
    auto e = created.err();
    e.message = "modifying " + id + ": " + e.message + "; " + id + " is unchanged";
    return e;
  }
  auto deleted = delete_reservation(id);
  if (deleted) return created;
  // The old one stays (e.g. jobs are bound to it): undo the new one so nothing changed.
  auto undone = delete_reservation(*created);
  auto e = deleted.err();
  e.message =
      "modifying " + id + ": " + e.message +
      (undone ? "; " + id + " is unchanged"
              : "; and undoing its successor " + *created + " failed too: " + undone.err().message);
  return e;
}

status slurm_lrms::extend_reservation(const std::string& id, timestamp new_end) {
  if (!id.starts_with(options_.prefix))
    return fail(errc::permission_denied, "reservation " + id + " is not arbroker's (prefix " +
                                             options_.prefix + "); not extending it");
  return on_slurm_thread<void>(
      cluster_, options_.call_timeout, "extending reservation " + id, [id, new_end]() -> status {
        auto all = load_reservations();
        if (!all) return all.err();
        auto it = std::find_if(all->begin(), all->end(),
                               [&](const lrms_reservation& r) { return r.id == id; });
        if (it == all->end()) return fail(errc::not_found, "no reservation " + id);
        if (new_end <= it->end)
          return fail(errc::invalid_window, "extending reservation " + id + " to " +
                                                std::to_string(new_end) + ": it ends at " +
                                                std::to_string(it->end) + " already");
        resv_desc_msg_t desc;
        slurm_init_resv_desc_msg(&desc);
        std::string name = id;
        desc.name = name.data();
        desc.end_time = static_cast<time_t>(new_end);
        if (slurm_update_reservation(&desc) != SLURM_SUCCESS)
          return last_slurm_error("extending reservation " + id);
        // Slurm ends a job at its time limit (and one in a reservation at the reservation's
        // end): each job running in it may now run until new_end.
        job_info_msg_t* raw = nullptr;
        if (slurm_load_jobs(0, &raw, SHOW_ALL) != SLURM_SUCCESS)
          return last_slurm_error("extending the jobs of reservation " + id);
        jobs_ptr jobs(raw);
        for (uint32_t i = 0; i < jobs->record_count; ++i) {
          const slurm_job_info_t& j = jobs->job_array[i];
          if (to_state(j.job_state) != lrms_job_state::running || !j.resv_name || id != j.resv_name)
            continue;
          const timestamp started = j.start_time;
          const duration needed = new_end - started;
          const auto minutes = static_cast<uint32_t>((needed + 59) / 60);
          const duration limit = limit_seconds(j.time_limit);
          // One whose own limit ends before the old end, or covers the new one, stays as is.
          if (limit >= needed || started + limit < it->end) continue;
          job_desc_msg_t update;
          slurm_init_job_desc_msg(&update);
          update.job_id = j.job_id;
          update.time_limit = minutes;
          if (slurm_update_job(&update) != SLURM_SUCCESS) {
            auto e = last_slurm_error("raising the time limit of job " + std::to_string(j.job_id) +
                                      " in reservation " + id);
            desc.end_time = static_cast<time_t>(it->end);  // back to its old end
            if (slurm_update_reservation(&desc) != SLURM_SUCCESS)
              e.message += "; and putting the reservation's end back failed too";
            return e;
          }
        }
        return {};
      });
}

result<std::string> slurm_lrms::submit_job(const job_spec& spec) {
  if (spec.np < 1)
    return fail(errc::invalid_processor_range,
                "job of " + std::to_string(spec.np) + " CPUs: need at least one");
  if (spec.walltime <= 0)
    return fail(errc::invalid_duration,
                "job walltime " + std::to_string(spec.walltime) + " s: need a positive one");
  auto user = find_user(spec.owner);
  if (!user) return fail(errc::permission_denied, "job owner " + spec.owner + ": no such user");
  return on_slurm_thread<std::string>(
      cluster_, options_.call_timeout, "submitting a job",
      [c = cluster_, spec, user = *user, dir = options_.job_dir]() -> result<std::string> {
        job_desc_msg_t desc;
        slurm_init_job_desc_msg(&desc);
        std::string name = spec.name.empty() ? "arbroker" : spec.name;
        std::string script = "#!/bin/sh\n" + (spec.command.empty() ? "true" : spec.command) + "\n";
        std::string work_dir = dir, out = dir + "/arb-slurm-%j.out";
        std::string partition = c->partition;
        std::string reservation = spec.reservation.value_or("");
        std::string account = spec.account;
        std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + user.home,
                                        "USER=" + spec.owner};
        std::vector<char*> env_ptrs;
        for (auto& e : env)
          env_ptrs.push_back(e.data());
        desc.name = name.data();
        desc.script = script.data();
        desc.work_dir = work_dir.data();
        desc.std_out = out.data();
        desc.std_err = out.data();
        desc.environment = env_ptrs.data();
        desc.env_size = static_cast<uint32_t>(env_ptrs.size());
        desc.user_id = user.uid;
        desc.group_id = user.gid;
        // Always a time limit: a job without one never starts where it would overlap a
        // reservation. Slurm counts whole minutes.
        desc.time_limit = static_cast<uint32_t>(std::min<duration>(
            (spec.walltime + 59) / 60, std::numeric_limits<uint32_t>::max() - 2));
        desc.num_tasks = static_cast<uint32_t>(spec.np);
        desc.min_cpus = static_cast<uint32_t>(spec.np);
        desc.cpus_per_task = 1;
        if (!partition.empty()) desc.partition = partition.data();
        if (!reservation.empty()) desc.reservation = reservation.data();
        if (!account.empty()) desc.account = account.data();
        if (spec.not_before > 0) desc.begin_time = static_cast<time_t>(spec.not_before);
        // The job's needs: --constraint=a&b, --mem-per-cpu or --mem (MiB).
        std::string constraint;
        for (const auto& f : spec.needs.features)
          constraint += (constraint.empty() ? "" : "&") + f;
        if (!constraint.empty()) desc.features = constraint.data();
        if (spec.needs.mem_per_cpu > 0)
          desc.pn_min_memory = static_cast<uint64_t>(spec.needs.mem_per_cpu) | MEM_PER_CPU;
        else if (spec.needs.mem_per_node > 0)
          desc.pn_min_memory = static_cast<uint64_t>(spec.needs.mem_per_node);
        submit_response_msg_t* raw = nullptr;
        if (slurm_submit_batch_job(&desc, &raw) != SLURM_SUCCESS)
          return last_slurm_error("submitting job " + name);
        submit_ptr response(raw);
        return std::to_string(response->job_id);
      });
}

status slurm_lrms::cancel_job(const std::string& id) {
  auto job = parse_job_id(id);
  if (!job) return fail(errc::not_found, "job " + id + ": not a Slurm job id");
  // The API reports an unknown job (scancel exits 0 on one and says so only with -v).
  return on_slurm_thread<void>(cluster_, options_.call_timeout, "cancelling job " + id,
                               [id, n = *job]() -> status {
                                 if (slurm_kill_job(n, SIGKILL, 0) == SLURM_SUCCESS) return {};
                                 const int code = slurm_get_errno();
                                 if (code == ESLURM_ALREADY_DONE) return {};  // ended already
                                 return slurm_error(code, "cancelling job " + id);
                               });
}

result<lrms_job_state> slurm_lrms::job_status(const std::string& id) {
  auto job = parse_job_id(id);
  if (!job) return fail(errc::not_found, "job " + id + ": not a Slurm job id");
  return on_slurm_thread<lrms_job_state>(cluster_, options_.call_timeout, "job status " + id,
                                         [id, n = *job]() -> result<lrms_job_state> {
                                           job_info_msg_t* raw = nullptr;
                                           if (slurm_load_job(&raw, n, SHOW_ALL) != SLURM_SUCCESS)
                                             return last_slurm_error("job status " + id);
                                           jobs_ptr msg(raw);
                                           if (msg->record_count == 0)
                                             return fail(errc::not_found,
                                                         "job status " + id + ": no such job");
                                           return to_state(msg->job_array[0].job_state);
                                         });
}

}  // namespace arbroker
