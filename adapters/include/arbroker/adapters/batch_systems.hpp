#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "arbroker/adapters/lrms.hpp"

namespace arbroker {

/// How to reach one cluster's batch system: the settings of every adapter, each read only by
/// its own (a config's [[cluster]] keys of the same names).
struct batch_system_settings {
  std::string slurm_conf;                        ///< slurm: path of the cluster's slurm.conf
  std::string partition;                         ///< slurm: "" = the default partition
  std::string sge_root = "/var/lib/gridengine";  ///< gridengine
  std::string sge_cell = "default";              ///< gridengine
  std::string pe = "arb";                        ///< gridengine: parallel environment
};

/// A setting a batch system cannot do without, missing or wrong: its key and why.
struct setting_problem {
  std::string key;  ///< "slurm_conf"
  std::string message;
};

/// A batch system arbroker has an adapter for. Adapters whose library is optional (Slurm:
/// libslurm) may be left out of a build; their entry stays, so that a config naming them is
/// told what is missing rather than that the kind does not exist.
struct batch_system {
  std::string_view name;  ///< as a config names it ([[cluster]] kind = "slurm")
  bool built;             ///< this build has the adapter
  /// What a build needs to have it (shown when it is left out).
  std::string_view requires_text;
  /// The settings it cannot do without, checked when a config is read: the first one
  /// missing, if any.
  std::optional<setting_problem> (*check)(const batch_system_settings&);
  /// Makes the adapter (only when built); its reservations' names start with name_prefix.
  std::unique_ptr<lrms> (*make)(const batch_system_settings&, const std::string& name_prefix);
};

/// Every batch system arbroker knows, built or not: the one place cluster kinds are listed.
std::span<const batch_system> batch_systems();

/// The batch system named `name`, built into this build; otherwise invalid_parameter with
/// a message that says either which kinds exist or that this build lacks it and how to get
/// it (the caller prefixes the config key).
result<const batch_system*> find_batch_system(std::string_view name);

/// The adapter of `system` for one cluster, naming its reservations name_prefix + ...
result<std::unique_ptr<lrms>> make_batch_lrms(const batch_system& system,
                                              const batch_system_settings& settings,
                                              const std::string& name_prefix);

}  // namespace arbroker
