#include "arbroker/actors/cluster_policy.hpp"

#include <array>

namespace arbroker {

namespace {

using ref = policy_field::ref;

// (Captureless lambdas: each is the accessor of one member.)
constexpr std::array fields{
    policy_field{"refresh", [](cluster_policy& p) -> ref { return &p.refresh; }},
    policy_field{"full_refresh", [](cluster_policy& p) -> ref { return &p.full_refresh; }},
    policy_field{"max_hold", [](cluster_policy& p) -> ref { return &p.max_hold; }},
    policy_field{"retention", [](cluster_policy& p) -> ref { return &p.retention; }},
    policy_field{"esr_static_h", [](cluster_policy& p) -> ref { return &p.esr_static_h; }},
    policy_field{"esr_history_interval", [](cluster_policy& p) -> ref { return &p.history_delta; }},
    policy_field{"acc_r", [](cluster_policy& p) -> ref { return &p.load.acc_r; }},
    policy_field{"acc_w", [](cluster_policy& p) -> ref { return &p.load.acc_w; }},
    policy_field{"ljp", [](cluster_policy& p) -> ref { return &p.ljp; }},
    policy_field{"ljp_method", [](cluster_policy& p) -> ref { return &p.ljp_check; }},
    policy_field{"after_jobs", [](cluster_policy& p) -> ref { return &p.after_jobs; }},
    policy_field{"laxity", [](cluster_policy& p) -> ref { return &p.laxity; }},
    policy_field{"overrun_quantum", [](cluster_policy& p) -> ref { return &p.overrun_quantum; }},
    policy_field{"overrun_notice", [](cluster_policy& p) -> ref { return &p.overrun_notice; }},
    policy_field{"overrun_max", [](cluster_policy& p) -> ref { return &p.overrun_max; }},
};

}  // namespace

std::span<const policy_field> policy_fields() {
  return fields;
}

}  // namespace arbroker
