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
