#include "arbroker/actors/gis.hpp"

#include <algorithm>
#include <map>

#include "arbroker/core/job_requirements.hpp"

namespace arbroker {
namespace {

/// The GIS: its clusters by name and who wants to hear of every change.
class gis_state {
 public:
  using self_pointer = gis_actor::stateful_pointer<gis_state>;
  static inline const char* name = "arb.gis";

  explicit gis_state(self_pointer self) : self_(self) {}

  gis_actor::behavior_type make_behavior() {
    ignore_stray_messages(self_);
    self_->set_down_handler([this](const caf::down_msg& dm) { on_down(dm); });
    return {
        [this](register_atom, msg::cluster_info& info, cluster_service_actor& service)
            -> msg::ack_reply { return enter(std::move(info), std::move(service)); },
        [this](subscribe_atom) { return subscribe(); },
    };
  }

 private:
  using directory_message = std::tuple<directory_atom, std::vector<msg::cluster_info>,
                                       std::vector<cluster_service_actor>>;

  msg::ack_reply enter(msg::cluster_info info, cluster_service_actor service) {
    if (info.name.empty() || !service)
      return {
          msg::wire(errc::invalid_parameter, "a cluster needs a name and a reservation service")};
    // What a cluster publishes of its nodes decides where jobs go: an agent's (remote/) is
    // checked here as a node's own config is when it is read.
    for (std::size_t i = 0; i < info.nodes.size(); ++i)
      if (auto ok = check(info.nodes[i]); !ok)
        return {msg::wire(
            errc::invalid_parameter,
            "cluster " + info.name + ": nodes[" + std::to_string(i) + "]: " + ok.err().message)};
    self_->monitor(service);
    const std::string cluster = info.name;
    clusters_.insert_or_assign(cluster,
                               directory_entry{std::move(info), std::move(service), {}, {}});
    // Subscribers learn of it before the registrant hears back, so a request sent after the
    // acknowledgement finds the cluster.
    publish();
    return {};
  }

  caf::result<directory_atom, std::vector<msg::cluster_info>, std::vector<cluster_service_actor>>
  subscribe() {
    auto sender = caf::actor_cast<directory_subscriber>(self_->current_sender());
    if (sender &&
        std::find(subscribers_.begin(), subscribers_.end(), sender) == subscribers_.end()) {
      self_->monitor(sender);
      subscribers_.push_back(sender);
    }
    auto [atom, infos, services] = directory();
    return {atom, std::move(infos), std::move(services)};
  }

  directory_message directory() const {
    directory_message out{directory_atom::value, {}, {}};
    for (const auto& [cluster, e] : clusters_) {
      std::get<1>(out).push_back(e.info);
      std::get<2>(out).push_back(e.service);
    }
    return out;
  }

  // Every subscriber gets the whole directory: changes are rare and the directory small, and
  // a whole copy cannot be applied out of order.
  void publish() {
    if (subscribers_.empty()) return;
    auto [atom, infos, services] = directory();
    auto m = caf::make_message(atom, std::move(infos), std::move(services));
    for (const auto& s : subscribers_)
      caf::anon_send(caf::actor_cast<caf::actor>(s), m);
  }

  // A subscriber or a cluster's service ended.
  void on_down(const caf::down_msg& dm) {
    std::erase_if(subscribers_, [&](const auto& s) { return s.address() == dm.source; });
    const auto before = clusters_.size();
    std::erase_if(clusters_,
                  [&](const auto& kv) { return kv.second.service.address() == dm.source; });
    if (clusters_.size() != before) publish();
  }

  self_pointer self_;
  std::map<std::string, directory_entry> clusters_;  ///< by name
  std::vector<directory_subscriber> subscribers_;
};

gis_actor::behavior_type gis_behavior(gis_actor::stateful_pointer<gis_state> self) {
  return self->state.make_behavior();
}

}  // namespace

gis_actor spawn_gis(caf::actor_system& sys) {
  return sys.spawn(gis_behavior);
}

std::string why_not(const msg::cluster_info& c, const msg::gis_query& q) {
  auto contains = [](const auto& v, const auto& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (!q.clusters.empty() && !contains(q.clusters, c.name)) return "not asked for";
  if (!c.allowed_users.empty() && !contains(c.allowed_users, q.user))
    return "not open to " + q.user;
  if (c.cpus < q.np_min) return "has " + std::to_string(c.cpus) + " CPUs";
  // Most requests name no needs: no copy of the cluster's nodes for them (an adaptation
  // round asks this of every job and cluster).
  if (q.os.empty() && q.features.empty() && q.mem_per_cpu == 0 && q.mem_per_node == 0) return {};
  return unmet(msg::offer_of(c), msg::needs_of(q), q.np_min, q.every_node);
}

bool satisfies(const msg::cluster_info& c, const msg::gis_query& q) {
  return why_not(c, q).empty();
}

std::vector<const directory_entry*> fit(const cluster_directory& dir, const msg::gis_query& q) {
  std::vector<const directory_entry*> out;
  out.reserve(dir.size());
  for (const auto& e : dir)
    if (satisfies(e.info, q)) out.push_back(&e);
  return out;
}

const directory_entry* find_cluster(const cluster_directory& dir, const std::string& name) {
  auto it = std::lower_bound(
      dir.begin(), dir.end(), name,
      [](const directory_entry& e, const std::string& n) { return e.info.name < n; });
  return it != dir.end() && it->info.name == name ? &*it : nullptr;
}

std::shared_ptr<const cluster_directory> make_directory(
    std::vector<msg::cluster_info>& infos, std::vector<cluster_service_actor>& services) {
  auto dir = std::make_shared<cluster_directory>();
  const auto n = std::min(infos.size(), services.size());
  dir->reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto site = msg::site_of(infos[i]);
    auto benchmarks = msg::published_benchmarks(infos[i]);
    dir->push_back(
        {std::move(infos[i]), std::move(services[i]), std::move(site), std::move(benchmarks)});
  }
  std::sort(dir->begin(), dir->end(),
            [](const auto& a, const auto& b) { return a.info.name < b.info.name; });
  return dir;
}

}  // namespace arbroker
