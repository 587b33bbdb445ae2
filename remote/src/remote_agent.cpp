#include "arbroker/remote/remote_agent.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <caf/all.hpp>

#include "arbroker/api/client.hpp"
#include "arbroker/messages/msgpack_codec.hpp"
#include "arbroker/remote/agent_protocol.hpp"
#include "interface_table.hpp"
#include "link.hpp"

namespace arbroker::remote {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using steady = std::chrono::steady_clock;

namespace {

/// The agent's answer to call `id` (code 0: body holds the outputs; else the error's text).
using answer_atom = caf::atom_constant<caf::atom("answer")>;
/// The link to the agent was lost (why): every call in flight is answered unreachable.
using lost_atom = caf::atom_constant<caf::atom("lost")>;
/// Look for calls past their deadline.
using tick_atom = caf::atom_constant<caf::atom("tick")>;
/// Call `id` could not go out (no link; why).
using unsent_atom = caf::atom_constant<caf::atom("unsent")>;
/// The link is up (again): settling calls waiting for it go out.
using up_atom = caf::atom_constant<caf::atom("up")>;

using proxy_actor = cluster_service_actor::extend<
    caf::reacts_to<answer_atom, std::uint64_t, std::uint8_t, std::string>,
    caf::reacts_to<lost_atom, std::string>, caf::reacts_to<tick_atom>,
    caf::reacts_to<unsent_atom, std::uint64_t, std::string>, caf::reacts_to<up_atom>>;

bool loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const auto a = asio::ip::make_address(host, ec);
  return !ec && a.is_loopback();
}

}  // namespace

class remote_agent::impl : public std::enable_shared_from_this<impl> {
 public:
  impl(remote_agent_config cfg, std::string host, std::string port)
      : cfg_(std::move(cfg)),
        host_(std::move(host)),
        port_(std::move(port)),
        resolver_(io_),
        connect_timer_(io_),
        retry_timer_(io_),
        work_(asio::make_work_guard(io_)),
        backoff_(cfg_.backoff_min) {}

  void run(caf::actor_system& sys);
  void stop();

  /// A proxy's call: out on the link, or answered unreachable at once when there is none.
  void send_call(const proxy_actor& from, agent_call c) {
    asio::post(io_, [self = shared_from_this(), from, c = std::move(c)]() mutable {
      if (self->link_ && self->welcomed_) return self->link_->send(msg::encode(c));
      caf::anon_send(from, unsent_atom::value, c.id, self->not_connected());
    });
  }

  const remote_agent_config& config() const { return cfg_; }
  std::string describe() const { return "agent '" + cfg_.agent_name + "' (" + cfg_.address + ")"; }

  cluster_service_actor cluster(const std::string& name) const {
    auto it = proxies_.find(name);
    if (it == proxies_.end()) return {};
    return caf::actor_cast<cluster_service_actor>(it->second);
  }
  bool connected() const {
    std::lock_guard lock{mu_};
    return up_;
  }
  bool wait_until(bool up, std::chrono::milliseconds limit) const {
    std::unique_lock lock{mu_};
    return changed_.wait_for(lock, limit, [&] { return up_ == up; });
  }
  bool wait_settled(std::chrono::milliseconds limit) const {
    std::unique_lock lock{mu_};
    return changed_.wait_for(lock, limit, [&] { return up_ || !last_error_.empty(); });
  }
  std::string last_error() const {
    std::lock_guard lock{mu_};
    return last_error_;
  }

 private:
  std::string not_connected() const {
    std::lock_guard lock{mu_};
    return describe() + " is not connected" + (last_error_.empty() ? "" : ": " + last_error_);
  }
  void event(const std::string& what) {
    if (cfg_.on_event) cfg_.on_event(what);
  }
  void set_state(bool up, const std::string& why) {
    {
      std::lock_guard lock{mu_};
      up_ = up;
      if (!why.empty()) last_error_ = why;
    }
    changed_.notify_all();
  }

  void attempt();
  void connected_tcp(std::shared_ptr<tcp::socket> socket);
  void welcome(const std::string& payload);
  void answer(const std::string& payload);
  void lost(const std::string& why);

  remote_agent_config cfg_;
  std::string host_, port_;
  asio::io_context io_;
  tcp::resolver resolver_;
  asio::steady_timer connect_timer_, retry_timer_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  std::map<std::string, proxy_actor> proxies_;  // made before the thread starts, then fixed
  // On the io thread:
  std::shared_ptr<detail::link> link_;
  bool welcomed_ = false;
  bool stopping_ = false;
  std::chrono::milliseconds backoff_;
  std::string reported_;  // the last failure logged (the same one is not logged again)
  // Shared with callers:
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  bool up_ = false;
  std::string last_error_;
};

namespace {

// A remote cluster as the engine sees it: the cluster service's interface, each message sent
// to the agent and its answer delivered to the sender (or an error reply of the right type).
// The second phase of a transaction (commit, abort, release: settling calls) is delivered,
// not merely sent: lost with the link or made while it is down, it waits and goes out again,
// in order, when the link is back, until `settle_timeout`. A coordinator that decided commit
// so reaches every part, and a compensation its release, whatever the link did meanwhile.
class proxy_state {
 public:
  using self_pointer = proxy_actor::stateful_pointer<proxy_state>;
  static inline const char* name = "arb.remote_cluster";

  explicit proxy_state(self_pointer self) : self_(self) {}

  self_pointer self() const { return self_; }

  void call(std::uint32_t op, std::string body, detail::finish_fn finish) {
    const auto what = detail::effect_of(op);
    const auto& may_change = agent_->config().may_change;
    if (what == detail::effect::changes && may_change)
      if (auto ok = may_change(); !ok)
        return finish(error{ok.err().code, cluster_ + ": " + ok.err().message});
    const std::uint64_t id = ++next_;
    const bool settles = what == detail::effect::settles;
    auto& p = pending_
                  .emplace(id, pending_call{steady::now() + (settles ? settle_ : timeout_), op,
                                            settles, std::move(finish), std::move(body), false})
                  .first->second;
    // Behind settling calls that wait for the link, a new one waits too (order per txn).
    if (settles && waiting_ > 0) {
      p.waiting = true;
      ++waiting_;
    } else {
      send(id, p);
    }
    arm();
  }

  proxy_actor::behavior_type make_behavior(std::shared_ptr<remote_agent::impl> agent,
                                           std::string cluster) {
    agent_ = std::move(agent);
    cluster_ = std::move(cluster);
    timeout_ = agent_->config().call_timeout;
    settle_ = std::max(agent_->config().settle_timeout, timeout_);
    tick_ =
        std::clamp(timeout_ / 10, std::chrono::milliseconds(10), std::chrono::milliseconds(500));
    return detail::make_proxy_behavior<proxy_actor::behavior_type>(
        detail::signatures{}, std::make_index_sequence<detail::operation_count>{}, this,
        [this](answer_atom, std::uint64_t id, std::uint8_t code, std::string& body) {
          auto it = pending_.find(id);
          if (it == pending_.end() || it->second.waiting) return;  // answered already, or resent
          auto finish = std::move(it->second.finish);
          pending_.erase(it);
          if (code == 0) return finish(std::move(body));
          // (The agent's code, as any errc on the wire: the reply passes it on as it is.)
          finish(msg::from_wire({code, cluster_ + " at " + agent_->describe() + ": " + body}));
        },
        [this](unsent_atom, std::uint64_t id, const std::string& why) {
          auto it = pending_.find(id);
          if (it == pending_.end() || it->second.waiting) return;
          if (it->second.settles) return wait(it->second);
          auto finish = std::move(it->second.finish);
          pending_.erase(it);
          finish(error{errc::unreachable, cluster_ + ": " + why});
        },
        [this](lost_atom, const std::string& why) {
          for (auto& [id, p] : pending_)
            if (p.settles && !p.waiting) wait(p);
          fail_all([&](const pending_call& p) { return !p.settles; }, errc::unreachable,
                   "lost the connection to " + agent_->describe() + ": " + why);
        },
        [this](up_atom) {
          waiting_ = 0;
          for (auto& [id, p] : pending_)  // in id order: as they were made
            if (p.waiting) {
              p.waiting = false;
              send(id, p);
            }
        },
        [this](tick_atom) {
          armed_ = false;
          const auto now = steady::now();
          fail_all([&](const pending_call& p) { return p.deadline <= now; }, errc::timeout,
                   "no answer from " + agent_->describe() +
                       " in time (the call may still be "
                       "executed there: it is idempotent)");
          arm();
        });
  }

 private:
  struct pending_call {
    steady::time_point deadline;
    std::uint32_t op = 0;
    bool settles = false;
    detail::finish_fn finish;
    std::string body;      // kept to go out again (settling calls only)
    bool waiting = false;  // for the link, to be sent again when it is back
  };

  void send(std::uint64_t id, pending_call& p) {
    // A settling call keeps its body to go out again; another gives it away.
    agent_->send_call(self_,
                      agent_call{id, p.op, cluster_, p.settles ? p.body : std::move(p.body)});
  }

  void wait(pending_call& p) {
    p.waiting = true;
    ++waiting_;
  }

  template <class Pred>
  void fail_all(Pred which, errc code, const std::string& why) {
    std::vector<detail::finish_fn> failed;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (which(it->second)) {
        if (it->second.waiting) --waiting_;
        failed.push_back(std::move(it->second.finish));
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& f : failed)
      f(error{code, cluster_ + ": " + why});
  }

  void arm() {
    if (armed_ || pending_.empty()) return;
    armed_ = true;
    self_->delayed_send(self_, tick_, tick_atom::value);
  }

  self_pointer self_;
  std::shared_ptr<remote_agent::impl> agent_;
  std::string cluster_;
  std::chrono::milliseconds timeout_{0}, settle_{0}, tick_{0};
  std::map<std::uint64_t, pending_call> pending_;  // by id: the order they were made
  std::size_t waiting_ = 0;                        // settling calls waiting for the link
  std::uint64_t next_ = 0;
  bool armed_ = false;
};

proxy_actor::behavior_type proxy_behavior(proxy_actor::stateful_pointer<proxy_state> self,
                                          std::shared_ptr<remote_agent::impl> agent,
                                          std::string cluster) {
  return self->state.make_behavior(std::move(agent), std::move(cluster));
}

}  // namespace

void remote_agent::impl::run(caf::actor_system& sys) {
  for (const auto& c : cfg_.clusters)
    proxies_.emplace(c, sys.spawn(proxy_behavior, shared_from_this(), c));
  asio::post(io_, [self = shared_from_this()] { self->attempt(); });
  thread_ = std::thread([this] { io_.run(); });
}

void remote_agent::impl::stop() {
  asio::post(io_, [self = shared_from_this()] {
    self->stopping_ = true;
    self->resolver_.cancel();
    self->connect_timer_.cancel();
    self->retry_timer_.cancel();
    if (self->link_) self->link_->close("the node stops");
  });
  work_.reset();
  thread_.join();
  for (auto& [name, p] : proxies_)
    caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
}

void remote_agent::impl::attempt() {
  if (stopping_) return;
  resolver_.async_resolve(
      host_, port_,
      [self = shared_from_this()](boost::system::error_code ec, tcp::resolver::results_type found) {
        if (self->stopping_) return;
        if (ec) return self->lost("cannot resolve " + self->host_ + ": " + ec.message());
        auto socket = std::make_shared<tcp::socket>(self->io_);
        self->connect_timer_.expires_after(self->cfg_.opening);
        self->connect_timer_.async_wait([socket](boost::system::error_code e) {
          if (!e) {
            boost::system::error_code ignored;
            socket->close(ignored);  // the connect below fails with operation_aborted
          }
        });
        asio::async_connect(
            *socket, found, [self, socket](boost::system::error_code e, const tcp::endpoint&) {
              self->connect_timer_.cancel();
              if (self->stopping_) return;
              if (e)
                return self->lost(e == asio::error::operation_aborted
                                      ? "no connection within " +
                                            std::to_string(self->cfg_.opening.count()) + " ms"
                                      : "connect: " + e.message());
              self->connected_tcp(socket);
            });
      });
}

void remote_agent::impl::connected_tcp(std::shared_ptr<tcp::socket> socket) {
  api::detail::stream st = cfg_.tls ? api::detail::stream(std::move(*socket), *cfg_.tls)
                                    : api::detail::stream(std::move(*socket));
  link_ = std::make_shared<detail::link>(
      io_, std::move(st), cfg_.max_frame,
      detail::link_timing{cfg_.opening, cfg_.heartbeat, cfg_.silence},
      [self = shared_from_this()](const std::string& why) { self->lost(why); });
  link_->handshake(true, [self = shared_from_this(), l = link_](const std::string& failed) {
    if (!failed.empty()) return l->close(failed);
    if (auto* tls = l->stream().tls()) {
      const auto name = api::peer_common_name(tls->native_handle());
      if (name != self->cfg_.agent_name)
        return l->close("the agent's certificate names '" + name + "', not '" +
                        self->cfg_.agent_name + "'");
    }
    l->start(
        [self](std::string frame) {
          if (!self->welcomed_) return self->welcome(frame);
          self->answer(frame);
        },
        msg::encode(agent_call{0, ping_op, "", ""}));
    l->send(msg::encode(agent_hello{std::string(agent_magic), agent_protocol_version,
                                    interface_fingerprint(), self->cfg_.broker_name}));
  });
}

void remote_agent::impl::welcome(const std::string& payload) {
  auto w = msg::decode<agent_welcome>(payload);
  if (!w) return link_->close("an unreadable welcome: " + w.err().message);
  if (!w->error.ok()) return link_->close("refused by the agent: " + w->error.message);
  if (w->version != agent_protocol_version || w->fingerprint != interface_fingerprint())
    return link_->close("protocol skew: the agent speaks agent protocol " +
                        std::to_string(w->version) + " (interface " +
                        std::to_string(w->fingerprint) + "), this node " +
                        std::to_string(agent_protocol_version) + " (interface " +
                        std::to_string(interface_fingerprint()) + ")");
  welcomed_ = true;
  link_->opened();
  backoff_ = cfg_.backoff_min;
  reported_.clear();
  event("connected to " + describe());
  for (const auto& [name, proxy] : proxies_) {
    auto it = std::find_if(w->clusters.begin(), w->clusters.end(),
                           [&](const msg::cluster_info& c) { return c.name == name; });
    if (it == w->clusters.end()) {
      event(describe() + " serves no cluster '" + name + "'");
      continue;
    }
    if (cfg_.on_cluster) cfg_.on_cluster(*it, proxy);
  }
  for (const auto& [name, proxy] : proxies_)
    caf::anon_send(proxy, up_atom::value);
  set_state(true, "");
}

void remote_agent::impl::answer(const std::string& payload) {
  auto a = msg::decode<agent_answer>(payload);
  if (!a) return link_->close("an unreadable answer: " + a.err().message);
  if (a->id == 0 && a->cluster.empty()) return;  // a heartbeat's
  auto it = proxies_.find(a->cluster);
  if (it != proxies_.end())
    caf::anon_send(it->second, answer_atom::value, a->id, a->code, std::move(a->body));
}

void remote_agent::impl::lost(const std::string& why) {
  const bool was_up = welcomed_;
  welcomed_ = false;
  link_.reset();
  set_state(false, why);
  if (was_up) {
    event("lost " + describe() + ": " + why);
    for (const auto& [name, proxy] : proxies_)
      caf::anon_send(proxy, lost_atom::value, why);
  } else if (why != reported_) {
    event("cannot reach " + describe() + ": " + why);
  }
  reported_ = why;
  if (stopping_) return;
  retry_timer_.expires_after(backoff_);
  retry_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->attempt();
  });
  backoff_ = std::min(backoff_ * 2, cfg_.backoff_max);
}

// -- remote_agent -----------------------------------------------------------------------------

result<std::unique_ptr<remote_agent>> remote_agent::start(caf::actor_system& sys,
                                                          remote_agent_config config) {
  auto where = api::parse_host_port(config.address);  // also [v6 address]:port
  if (!where) return fail(errc::invalid_parameter, "agent address: " + where.err().message);
  std::string host = where->first;
  std::string port = std::to_string(where->second);
  if (!config.tls && !loopback_host(host))
    return fail(errc::invalid_parameter,
                "agent " + config.address + ": plain text is allowed on loopback only");
  if (config.tls && config.agent_name.empty())
    return fail(errc::invalid_parameter,
                "agent " + config.address + ": the agent's certificate name must be given");
  auto p = std::make_shared<impl>(std::move(config), std::move(host), std::move(port));
  p->run(sys);
  return std::unique_ptr<remote_agent>(new remote_agent(std::move(p)));
}

remote_agent::remote_agent(std::shared_ptr<impl> p) : impl_(std::move(p)) {}

remote_agent::~remote_agent() {
  impl_->stop();
}

cluster_service_actor remote_agent::cluster(const std::string& name) const {
  return impl_->cluster(name);
}
bool remote_agent::connected() const {
  return impl_->connected();
}
bool remote_agent::wait_connected(std::chrono::milliseconds limit) const {
  return impl_->wait_until(true, limit);
}
bool remote_agent::wait_disconnected(std::chrono::milliseconds limit) const {
  return impl_->wait_until(false, limit);
}
bool remote_agent::wait_settled(std::chrono::milliseconds limit) const {
  return impl_->wait_settled(limit);
}
std::string remote_agent::last_error() const {
  return impl_->last_error();
}

}  // namespace arbroker::remote
