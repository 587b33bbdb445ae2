#include "arbroker/actors/gis.hpp"

#include <algorithm>

namespace arbroker {

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

caf::behavior gis_actor(caf::stateful_actor<gis_state>* self) {
  ignore_stray_messages(self);
  self->set_down_handler([self](const caf::down_msg& dm) {
    auto& cs = self->state.clusters;
    for (auto it = cs.begin(); it != cs.end();) {
      if (it->second.crs.address() == dm.source)
        it = cs.erase(it);
      else
        ++it;
    }
  });
  return {
      [self](register_atom, msg::cluster_info& info, caf::actor& crs) -> msg::ack_reply {
        if (info.name.empty() || !crs)
          return {{static_cast<std::uint8_t>(errc::invalid_parameter),
                   "a cluster needs a name and a reservation service"}};
        self->monitor(crs);
        const std::string name = info.name;
        self->state.clusters.insert_or_assign(name, gis_state::entry{std::move(info), crs});
        return {};
      },
      [self](const msg::gis_query& q)
          -> caf::result<std::vector<msg::cluster_info>, std::vector<caf::actor>> {
        std::vector<msg::cluster_info> infos;
        std::vector<caf::actor> handles;
        for (const auto& [name, e] : self->state.clusters) {
          if (!satisfies(e.info, q)) continue;
          infos.push_back(e.info);
          handles.push_back(e.crs);
        }
        return {std::move(infos), std::move(handles)};
      },
  };
}

}  // namespace arbroker
