#include "arbroker/adapters/batch_systems.hpp"

#include <array>

#include "arbroker/adapters/gridengine_lrms.hpp"
#if ARB_HAVE_SLURM
#include "arbroker/adapters/slurm_lrms.hpp"
#endif

// The only file that names the adapters' classes for the rest of the house: adding a batch
// system is an entry here (and its settings in batch_system_settings), not a case in node/
// or apps/. ARB_HAVE_SLURM comes from adapters/slurm.cmake.

namespace arbroker {
namespace {

std::optional<setting_problem> slurm_check(const batch_system_settings& s) {
  if (s.slurm_conf.empty())
    return setting_problem{"slurm_conf", "a slurm cluster needs the path of its slurm.conf"};
  return std::nullopt;
}

std::optional<setting_problem> nothing_needed(const batch_system_settings&) {
  return std::nullopt;
}

#if ARB_HAVE_SLURM
std::unique_ptr<lrms> make_slurm(const batch_system_settings& s, const std::string& prefix) {
  slurm_options o;
  o.conf = s.slurm_conf;
  o.prefix = prefix;
  o.partition = s.partition;
  return std::make_unique<slurm_lrms>(std::move(o));
}
constexpr bool slurm_built = true;
#else
constexpr auto make_slurm = nullptr;
constexpr bool slurm_built = false;
#endif

std::unique_ptr<lrms> make_gridengine(const batch_system_settings& s, const std::string& prefix) {
  gridengine_config g;
  g.sge_root = s.sge_root;
  g.sge_cell = s.sge_cell;
  g.pe = s.pe;
  g.name_prefix = prefix;
  return std::make_unique<gridengine_lrms>(std::move(g));
}

const std::array<batch_system, 2> systems{{
    {"slurm", slurm_built,
     "libslurm: install Debian's libslurm-dev (scripts/slurm/install.sh does) and build again "
     "(cmake finds it; -DARB_WITH_SLURM=OFF leaves it out)",
     slurm_check, make_slurm},
    {"gridengine", true, "", nothing_needed, make_gridengine},
}};

error not_in_this_build(const batch_system& b) {
  return {errc::invalid_parameter, "'" + std::string(b.name) +
                                       "' is not in this build of arbroker; it needs " +
                                       std::string(b.requires_text)};
}

}  // namespace

std::span<const batch_system> batch_systems() {
  return systems;
}

result<const batch_system*> find_batch_system(std::string_view name) {
  std::string known;
  for (const auto& b : systems) {
    if (b.name == name) {
      if (b.built) return &b;
      return not_in_this_build(b);
    }
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  }
  return fail(errc::not_found,
              "'" + std::string(name) + "' is no batch system arbroker knows (" + known + ")");
}

result<std::unique_ptr<lrms>> make_batch_lrms(const batch_system& system,
                                              const batch_system_settings& settings,
                                              const std::string& name_prefix) {
  if (!system.built || !system.make) return not_in_this_build(system);
  if (auto problem = system.check(settings))
    return fail(errc::invalid_parameter, problem->key + ": " + problem->message);
  return system.make(settings, name_prefix);
}

}  // namespace arbroker
