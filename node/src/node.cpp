// A node's life: started from its config, stopped with a grace period.
#include "arbroker/node/node.hpp"

#include "node_impl.hpp"

namespace arbroker {

result<std::unique_ptr<node>> node::start(node_config cfg, node_hooks hooks) {
  if (auto ok = validate(cfg); !ok) return ok.err();
  auto p = std::make_unique<impl>();
  p->cfg = std::move(cfg);
  p->hooks = std::move(hooks);
  if (auto ok = p->start(); !ok) {
    p->stop_engine();
    return ok.err();
  }
  return std::unique_ptr<node>(new node(std::move(p)));
}

node::node(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

node::~node() {
  shutdown(0);
}

const node_config& node::config() const noexcept {
  return impl_->cfg;
}

const node_recovery& node::recovery() const noexcept {
  return impl_->recovered;
}

std::string node::broker_instance_of(const std::string& user) const {
  auto i = impl_->routes.of(user);
  return i ? impl_->routes.instances()[*i].name : std::string();
}

unsigned short node::agent_port() const {
  return impl_->agent ? impl_->agent->local_endpoint().port() : 0;
}

std::vector<msg::cluster_info> node::clusters() const {
  auto out = impl_->infos;
  std::lock_guard lock{impl_->remote_mu};
  for (const auto& [name, info] : impl_->remote_infos)  // those whose agents answered
    out.push_back(info);
  return out;
}

std::size_t node::shutdown(duration grace) {
  std::size_t left = 0;
  {
    std::unique_lock lock{impl_->mu};
    impl_->stopping = true;
    impl_->idle.wait_for(lock, std::chrono::seconds(std::max<duration>(grace, 0)),
                         [&] { return impl_->in_flight == 0; });
    left = impl_->in_flight;
  }
  impl_->stop_engine();
  return left;
}

std::size_t node::in_flight() const {
  std::lock_guard lock{impl_->mu};
  return impl_->in_flight;
}

}  // namespace arbroker

namespace arbroker {

result<std::shared_ptr<watch_handle>> node::watch(const msg::watch_request& r, watch_sink sink) {
  if (auto ok = msg::check(r); !ok) return ok.err();
  if (!sink.events) return fail(errc::invalid_parameter, "watch: the sink takes no events");
  return impl_->feed->open({r.user, r.kinds}, r.since, std::move(sink));
}

result<std::shared_ptr<watch_handle>> node::watch(
    const msg::watch_request& r, std::function<void(const msg::watch_event&)> on_event,
    std::function<void(error)> on_end) {
  if (!on_event) return fail(errc::invalid_parameter, "watch: no callback for the events");
  watch_sink sink;
  sink.events = [on_event = std::move(on_event)](msg::watch_reply page,
                                                 std::function<void()> more) {
    for (const auto& e : page.events)
      on_event(e);
    more();
  };
  sink.ended = std::move(on_end);
  return watch(r, std::move(sink));
}

std::size_t node::watchers() const {
  return impl_->feed->watchers();
}

}  // namespace arbroker
