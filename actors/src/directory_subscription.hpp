#pragma once

// How the broker and its coordinators keep the GIS's directory (internal): subscribe once,
// then every change arrives as a message, so no request costs a round trip to the GIS.

#include <memory>
#include <string>
#include <vector>

#include "arbroker/actors/gis.hpp"

namespace arbroker {

/// The handler for the GIS's copies of the directory; goes into the subscriber's behavior.
inline auto directory_updates(directory_view& view) {
  return [&view](directory_atom, std::vector<msg::cluster_info>& infos,
                 std::vector<cluster_service_actor>& services) {
    view.clusters = make_directory(infos, services);
    view.error.clear();
  };
}

/// Subscribes `self` to the GIS and holds back every other message until the first copy of
/// the directory is in `view` (CAF's await), so that no request is served from an empty
/// directory. A GIS that cannot be reached leaves `view.error` set.
template <class Self>
void subscribe_directory(Self* self, const gis_actor& gis, directory_view& view) {
  if (!gis) {
    view.error = "no information service configured";
    return;
  }
  self->request(gis, caf::infinite, subscribe_atom::value)
      .await(directory_updates(view), [self, &view](caf::error& e) {
        view.error = "information service: " + self->system().render(e);
      });
}

}  // namespace arbroker
