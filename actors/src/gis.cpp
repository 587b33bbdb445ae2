#include "arbroker/actors/gis.hpp"

#include <algorithm>

namespace arbroker {
namespace {

using self_ptr = caf::stateful_actor<gis_state>*;

// The clusters for which `keep(info)` holds, as the GIS sends them: parallel vectors.
template <class Keep>
std::pair<std::vector<msg::cluster_info>, std::vector<caf::actor>> clusters_where(self_ptr self,
                                                                                  Keep keep) {
  std::pair<std::vector<msg::cluster_info>, std::vector<caf::actor>> out;
  for (const auto& [name, e] : self->state.clusters) {
    if (!keep(e.info)) continue;
    out.first.push_back(e.info);
    out.second.push_back(e.crs);
  }
  return out;
}

caf::message directory_message(self_ptr self) {
  auto [infos, handles] = clusters_where(self, [](const msg::cluster_info&) { return true; });
  return caf::make_message(directory_atom::value, std::move(infos), std::move(handles));
}

// Every subscriber gets the whole directory: changes are rare and the directory small, and
// a whole copy cannot be applied out of order.
void publish(self_ptr self) {
  if (self->state.subscribers.empty()) return;
  auto m = directory_message(self);
  for (const auto& s : self->state.subscribers)
    self->send(s, m);
}

}  // namespace

bool satisfies(const msg::cluster_info& c, const msg::gis_query& q) {
  auto contains = [](const auto& v, const auto& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (!q.clusters.empty() && !contains(q.clusters, c.name)) return false;
  if (c.cpus < q.np_min) return false;
  if (!q.os.empty() && q.os != c.os) return false;
  for (const auto& f : q.features)
    if (!contains(c.features, f)) return false;
  if (!c.allowed_users.empty() && !contains(c.allowed_users, q.user)) return false;
  return true;
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

std::shared_ptr<const cluster_directory> make_directory(std::vector<msg::cluster_info>& infos,
                                                        std::vector<caf::actor>& handles) {
  auto dir = std::make_shared<cluster_directory>();
  const auto n = std::min(infos.size(), handles.size());
  dir->reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    dir->push_back({std::move(infos[i]), std::move(handles[i])});
  std::sort(dir->begin(), dir->end(),
            [](const auto& a, const auto& b) { return a.info.name < b.info.name; });
  return dir;
}

caf::behavior gis_actor(self_ptr self) {
  ignore_stray_messages(self);
  self->set_down_handler([self](const caf::down_msg& dm) {
    auto& subs = self->state.subscribers;
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const caf::actor& s) { return s.address() == dm.source; }),
               subs.end());
    auto& cs = self->state.clusters;
    const auto before = cs.size();
    std::erase_if(cs, [&](const auto& kv) { return kv.second.crs.address() == dm.source; });
    if (cs.size() != before) publish(self);
  });
  return {
      [self](register_atom, msg::cluster_info& info, caf::actor& crs) -> msg::ack_reply {
        if (info.name.empty() || !crs)
          return {{static_cast<std::uint8_t>(errc::invalid_parameter),
                   "a cluster needs a name and a reservation service"}};
        self->monitor(crs);
        const std::string name = info.name;
        self->state.clusters.insert_or_assign(name, directory_entry{std::move(info), crs});
        // Subscribers learn of it before the registrant hears back, so a request sent after
        // the acknowledgement finds the cluster.
        publish(self);
        return {};
      },
      [self](const msg::gis_query& q)
          -> caf::result<std::vector<msg::cluster_info>, std::vector<caf::actor>> {
        auto [infos, handles] =
            clusters_where(self, [&](const msg::cluster_info& c) { return satisfies(c, q); });
        return {std::move(infos), std::move(handles)};
      },
      [self](subscribe_atom) -> caf::message {
        auto sender = caf::actor_cast<caf::actor>(self->current_sender());
        auto& subs = self->state.subscribers;
        if (sender && std::find(subs.begin(), subs.end(), sender) == subs.end()) {
          self->monitor(sender);
          subs.push_back(sender);
        }
        return directory_message(self);
      },
  };
}

}  // namespace arbroker
