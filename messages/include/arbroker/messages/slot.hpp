#pragma once

#include <cstdint>
#include <string>

#include "arbroker/core/candidate.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::msg {

/// A reservation candidate on the wire: <cluster, start, end, np> with the properties the
/// probe computed (flags say which are set).
struct slot {
  static constexpr std::uint8_t has_cost = 1;
  static constexpr std::uint8_t has_esr = 2;

  std::string cluster;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t np = 0;
  double cost = 0;
  double esr = 0;
  std::uint8_t flags = 0;

  friend bool operator==(const slot&, const slot&) = default;
};

ARB_FIELDS(slot, x.cluster, x.start, x.end, x.np, x.cost, x.esr, x.flags)

inline slot to_slot(const candidate& c) {
  slot s{std::string(c.site), c.start, c.end, c.np, 0, 0, 0};
  if (c.props.cost) {
    s.cost = *c.props.cost;
    s.flags |= slot::has_cost;
  }
  if (c.props.esr) {
    s.esr = *c.props.esr;
    s.flags |= slot::has_esr;
  }
  return s;
}

/// The candidate a slot describes, of the site named `site` (which must outlive it: a name
/// of the caller's directory, say; s.cluster names the same site).
inline candidate to_candidate(const slot& s, std::string_view site) {
  candidate c{site, s.start, s.end, s.np, {}};
  if (s.flags & slot::has_cost) c.props.cost = s.cost;
  if (s.flags & slot::has_esr) c.props.esr = s.esr;
  return c;
}

}  // namespace arbroker::msg
