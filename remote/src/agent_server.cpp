#include "arbroker/remote/agent_server.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <thread>

#include <caf/all.hpp>

#include "arbroker/actors/broker_scope.hpp"
#include "arbroker/messages/msgpack_codec.hpp"
#include "arbroker/remote/agent_protocol.hpp"
#include "interface_table.hpp"
#include "link.hpp"

namespace arbroker::remote {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

using services_map = std::map<std::string, caf::actor>;
using finished_fn = decltype(agent_server_config::finished);
using history_page_fn = decltype(agent_server_config::history_page);

// A query through the agent: from the service, or, when it no longer holds the reservation
// (finished), from the agent's store (agent_server_config::finished).
void serve_query(caf::event_based_actor* self, const caf::actor& service,
                 const detail::calling_broker& broker, const finished_fn& finished,
                 std::string_view body, detail::answer_fn reply) {
  auto in = detail::unpack_values<msg::query_request>(body);
  if (!in)
    return reply(static_cast<std::uint8_t>(errc::invalid_parameter),
                 "undecodable call: " + in.err().message);
  auto q = std::get<0>(std::move(*in));
  detail::scope(q, broker);
  self->request(service, caf::infinite, q)
      .then(
          [reply, finished, q](msg::query_reply& r) {
            if (r.error.err() != errc::not_found)
              return reply(0, detail::pack_values(std::move(r)));
            finished(q.reservation_id, q.user,
                     [reply, r](std::optional<msg::reservation_info> info) mutable {
                       if (info) r = {std::move(*info), {}, {}};
                       reply(0, detail::pack_values(std::move(r)));
                     });
          },
          [reply, self](caf::error& e) {
            reply(static_cast<std::uint8_t>(errc::unreachable),
                  "the cluster service is gone: " + self->system().render(e));
          });
}

// A list with history through the agent: a page of the agent's store (the services keep
// only what is live when the store keeps the rest).
void serve_history_page(const std::string& cluster, const detail::calling_broker& broker,
                        const history_page_fn& history_page, msg::list_request req,
                        detail::answer_fn reply) {
  detail::scope(req, broker);
  history_page(cluster, req,
               [reply](msg::list_reply page) { reply(0, detail::pack_values(std::move(page))); });
}

// One connection's calls, on the engine's side: each goes to its cluster's service; the
// answer goes back through `answer` (to the connection's io thread).
caf::behavior bridge(caf::event_based_actor* self, std::shared_ptr<const services_map> services,
                     detail::calling_broker broker, finished_fn finished,
                     history_page_fn history_page, std::function<void(agent_answer)> answer) {
  return {
      [=](std::uint64_t id, std::uint32_t op, const std::string& cluster, const std::string& body) {
        const auto reply = [answer, id, cluster](std::uint8_t code, std::string out) {
          answer(agent_answer{id, cluster, code, std::move(out)});
        };
        const auto it = services->find(cluster);
        if (it == services->end())
          return reply(static_cast<std::uint8_t>(errc::not_found),
                       "this agent serves no cluster '" + cluster + "'");
        if (op >= detail::operation_count)
          return reply(static_cast<std::uint8_t>(errc::invalid_parameter),
                       "unknown operation " + std::to_string(op));
        if (op == detail::query_op && finished)
          return serve_query(self, it->second, broker, finished, body, reply);
        if (op == detail::list_op && history_page) {
          auto in = detail::unpack_values<msg::list_request>(body);
          if (in && std::get<0>(*in).history)
            return serve_history_page(cluster, broker, history_page, std::get<0>(std::move(*in)),
                                      reply);
        }
        detail::serve_table[op](self, it->second, broker, body, reply);
      },
  };
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_loopback(const tcp::endpoint& ep) {
  return ep.address().is_loopback();
}

}  // namespace

class agent_server::impl : public std::enable_shared_from_this<impl> {
 public:
  impl(caf::actor_system& sys, agent_server_config cfg, std::vector<agent_served_cluster> clusters)
      : sys_(sys),
        cfg_(std::move(cfg)),
        acceptor_(io_),
        work_(asio::make_work_guard(io_)),
        services_(std::make_shared<services_map>()) {
    for (auto& c : clusters) {
      (*services_)[c.info.name] = caf::actor_cast<caf::actor>(c.service);
      infos_.push_back(std::move(c.info));
    }
  }

  status listen() {
    if (!cfg_.tls && !is_loopback(cfg_.endpoint))
      return fail(errc::invalid_parameter,
                  "agent: plain text is allowed on loopback only, not on " +
                      cfg_.endpoint.address().to_string());
    boost::system::error_code ec;
    acceptor_.open(cfg_.endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(cfg_.endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      return fail(errc::unreachable,
                  "agent: cannot listen on " + cfg_.endpoint.address().to_string() + ":" +
                      std::to_string(cfg_.endpoint.port()) + ": " + ec.message());
    endpoint_ = acceptor_.local_endpoint();
    accept();
    thread_ = std::thread([this] { io_.run(); });
    return {};
  }

  void stop() {
    std::promise<void> done;
    asio::post(io_, [this, &done] {
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      for (auto& [n, s] : sessions_)
        s.link->close("the agent stops");
      done.set_value();
    });
    done.get_future().wait();
    work_.reset();
    thread_.join();  // returns once every link has ended
    for (auto& [n, s] : sessions_)
      if (s.bridge) caf::anon_send_exit(s.bridge, caf::exit_reason::user_shutdown);
    sessions_.clear();
  }

  tcp::endpoint endpoint_;
  std::atomic<std::size_t> open_{0}, refused_{0}, calls_{0};

 private:
  struct session {
    std::shared_ptr<detail::link> link;
    caf::actor bridge;  // once welcomed
    std::string broker;
    std::string peer;  // address:port
  };

  void event(const std::string& what) {
    if (cfg_.on_event) cfg_.on_event(what);
  }

  void accept() {
    acceptor_.async_accept(
        [self = shared_from_this()](boost::system::error_code ec, tcp::socket s) {
          if (ec == asio::error::operation_aborted || !self->acceptor_.is_open()) return;
          if (!ec) self->open(std::move(s));
          self->accept();
        });
  }

  void open(tcp::socket s) {
    if (sessions_.size() >= cfg_.max_connections) {
      ++refused_;
      event("refused a connection: " + std::to_string(sessions_.size()) + " open already");
      return;  // the socket closes here
    }
    const std::uint64_t n = ++next_session_;
    boost::system::error_code ec;
    const auto ep = s.remote_endpoint(ec);
    std::string peer = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
    api::detail::stream st =
        cfg_.tls ? api::detail::stream(std::move(s), *cfg_.tls) : api::detail::stream(std::move(s));
    auto l = std::make_shared<detail::link>(
        io_, std::move(st), cfg_.max_frame,
        detail::link_timing{cfg_.opening, std::chrono::milliseconds(0), cfg_.silence},
        [self = shared_from_this(), n](const std::string& why) { self->closed(n, why); });
    sessions_[n] = session{l, nullptr, "", std::move(peer)};
    ++open_;
    l->handshake(false, [self = shared_from_this(), n, l](const std::string& failed) {
      if (!failed.empty()) return self->refuse(n, failed);
      std::string name;
      if (auto* tls = l->stream().tls()) name = api::peer_common_name(tls->native_handle());
      l->start([self, n](std::string frame) { self->frame(n, std::move(frame)); }, "");
      self->sessions_[n].broker = name;  // "" in plain text: the hello names the broker
    });
  }

  void refuse(std::uint64_t n, const std::string& why) {
    auto it = sessions_.find(n);
    if (it != sessions_.end()) it->second.link->close(why);  // closed() counts and logs it
  }

  // The refusal of a hello, said to the broker before the link closes.
  void refuse_hello(std::uint64_t n, errc code, const std::string& why) {
    auto& s = sessions_[n];
    agent_welcome w{
        agent_protocol_version, interface_fingerprint(), cfg_.name, {}, msg::wire(code, why)};
    s.link->send(msg::encode(w));
    s.link->close_after_flush(why);
  }

  void frame(std::uint64_t n, std::string payload) {
    auto it = sessions_.find(n);
    if (it == sessions_.end()) return;
    auto& s = it->second;
    if (!s.bridge) return hello(n, payload);
    auto call = msg::decode<agent_call>(payload);
    if (!call) return s.link->close("unreadable call: " + call.err().message);
    if (call->op == ping_op) return s.link->send(msg::encode(agent_answer{call->id, "", 0, ""}));
    ++calls_;
    caf::anon_send(s.bridge, call->id, call->op, std::move(call->cluster), std::move(call->body));
  }

  void hello(std::uint64_t n, const std::string& payload) {
    auto& s = sessions_[n];
    auto h = msg::decode<agent_hello>(payload);
    if (!h || h->magic != agent_magic)
      return refuse(n, "the first frame is not an arbroker agent hello");
    if (h->version != agent_protocol_version || h->fingerprint != interface_fingerprint())
      return refuse_hello(
          n, errc::invalid_parameter,
          "protocol skew: the broker speaks agent protocol " + std::to_string(h->version) +
              " (interface " + std::to_string(h->fingerprint) + "), this agent " +
              std::to_string(agent_protocol_version) + " (interface " +
              std::to_string(interface_fingerprint()) + "); run the same arbroker release");
    if (s.broker.empty()) s.broker = h->broker;  // plain text (loopback): its word
    if (s.broker != h->broker)
      return refuse_hello(
          n, errc::permission_denied,
          "the hello names broker '" + h->broker + "', the certificate '" + s.broker + "'");
    const bool admin = listed(cfg_.admin_brokers, s.broker);
    if (!admin && !listed(cfg_.brokers, s.broker))
      return refuse_hello(n, errc::permission_denied,
                          "'" + s.broker + "' is not a broker this agent serves");
    s.link->opened();
    std::weak_ptr<detail::link> weak = s.link;
    detail::calling_broker caller{s.broker, admin};
    s.bridge = sys_.spawn(bridge, services_, std::move(caller), cfg_.finished, cfg_.history_page,
                          [weak](agent_answer a) {
                            if (auto l = weak.lock()) l->send(msg::encode(a));
                          });
    s.link->send(msg::encode(
        agent_welcome{agent_protocol_version, interface_fingerprint(), cfg_.name, infos_, {}}));
    event("broker '" + s.broker + "' connected from " + s.peer);
  }

  void closed(std::uint64_t n, const std::string& why) {
    auto it = sessions_.find(n);
    if (it == sessions_.end()) return;
    if (it->second.bridge) {
      event("broker '" + it->second.broker + "' disconnected: " + why);
      caf::anon_send_exit(it->second.bridge, caf::exit_reason::user_shutdown);
    } else {
      ++refused_;
      event("refused " + it->second.peer +
            (it->second.broker.empty() ? "" : " ('" + it->second.broker + "')") + ": " + why);
    }
    sessions_.erase(it);
    --open_;
  }

  caf::actor_system& sys_;
  agent_server_config cfg_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  std::shared_ptr<services_map> services_;
  std::vector<msg::cluster_info> infos_;
  std::map<std::uint64_t, session> sessions_;  // on the io thread
  std::uint64_t next_session_ = 0;
};

result<std::unique_ptr<agent_server>> agent_server::start(
    caf::actor_system& sys, agent_server_config config,
    std::vector<agent_served_cluster> clusters) {
  for (const auto* names : {&config.brokers, &config.admin_brokers})
    for (const auto& b : *names)
      if (!broker_scope::valid_broker_name(b))
        return fail(
            errc::invalid_parameter,
            "agent: '" + b + "' cannot name a broker (1-64 letters, digits, '.', '_', '-')");
  auto p = std::make_shared<impl>(sys, std::move(config), std::move(clusters));
  if (auto ok = p->listen(); !ok) return ok.err();
  return std::unique_ptr<agent_server>(new agent_server(std::move(p)));
}

agent_server::agent_server(std::shared_ptr<impl> p) : impl_(std::move(p)) {}

agent_server::~agent_server() {
  impl_->stop();
}

tcp::endpoint agent_server::local_endpoint() const {
  return impl_->endpoint_;
}

agent_server_counters agent_server::counters() const {
  return {impl_->open_.load(), impl_->refused_.load(), impl_->calls_.load()};
}

}  // namespace arbroker::remote
