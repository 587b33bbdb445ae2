#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/candidate.hpp"
#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/error.hpp"

namespace arbroker {

/// A candidate attribute a user can optimise for (paper 000, Sec. 3.3.1). `length` is the
/// reservation's duration (named "duration" in preference strings).
enum class objective_attribute : std::uint8_t { end, start, np, cost, esr, length, site };
template <>
struct enum_bounds<objective_attribute> {
  static constexpr auto last = objective_attribute::site;
  static constexpr const char* name = "objective_attribute";
};

/// "end", "start", "np", "cost", "esr", "duration", "site".
std::string_view to_string(objective_attribute a) noexcept;

/// One prioritised user preference: an attribute and a direction.
struct objective {
  objective_attribute attribute = objective_attribute::end;
  bool descending = false;  ///< "-esr": larger is better
  friend bool operator==(const objective&, const objective&) = default;
};

/// An ordered list of objectives, most important first.
using preferences = std::vector<objective>;

/// invalid_parameter when an attribute is named twice (the second could never decide).
status validate(const preferences& prefs);

/// Parses "end,cost,-esr" ('-' = descending; also accepts "+end"). Rejects unknown names,
/// empty items and an attribute named twice.
result<preferences> parse_preferences(std::string_view text);

/// Inverse of parse_preferences().
std::string to_string(const preferences& prefs);

/// The preference tree of Sec. 3.3.1 traversed depth-first: candidate indices grouped in
/// leaf sets (candidates equal under every objective), best leaf first. Within a leaf the
/// input order is kept. Fails with `invalid_parameter` when an objective needs a property
/// (cost, esr) that a candidate lacks.
result<std::vector<std::vector<std::size_t>>> preference_leaves(
    const std::vector<candidate>& candidates, const preferences& prefs);

/// The same order flattened: the sequence in which the reserve phase tries candidates;
/// only its first `limit` entries when there are more (O(n log limit)).
result<std::vector<std::size_t>> preference_order(const std::vector<candidate>& candidates,
                                                  const preferences& prefs,
                                                  std::size_t limit = SIZE_MAX);

/// The leading objectives of `prefs` that a candidate's slot decides by itself (end, start,
/// np, duration, site), up to the first that needs a computed property (cost, esr). Whoever
/// wants only the best few of many candidates can order them by this prefix first and
/// compute properties only as far down as the prefix still ties (cluster_service::probe).
preferences slot_prefix(const preferences& prefs);

/// A candidate under a slot-only prefix (slot_prefix()) as numbers, smaller is better: for
/// candidates of one site, comparing their keys lexicographically is comparing them under
/// the prefix (the site decides nothing among them), without a comparison per objective.
struct slot_key {
  std::array<std::int64_t, 4> v{};
  friend auto operator<=>(const slot_key&, const slot_key&) = default;
};

/// A candidate's value under one objective on its slot (end, start, np, duration), negated
/// when descending so that smaller is better; nullopt for the others (site, cost, esr).
std::optional<std::int64_t> slot_value(const candidate& c, const objective& o);

/// Precondition: `prefix` names only end, start, np, duration and site.
slot_key slot_key_of(const candidate& c, const preferences& prefix);

/// Three-way comparison under `prefs`, better first (< 0); 0 when equal under every
/// objective. The properties `prefs` names must be present.
int compare_candidates(const candidate& a, const candidate& b, const preferences& prefs);

}  // namespace arbroker
