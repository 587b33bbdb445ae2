#include "arbroker/core/preference.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace arbroker {
namespace {

struct attribute_name {
  objective_attribute attribute;
  std::string_view name;
};

constexpr std::array<attribute_name, 7> attribute_names{{
    {objective_attribute::end, "end"},
    {objective_attribute::start, "start"},
    {objective_attribute::np, "np"},
    {objective_attribute::cost, "cost"},
    {objective_attribute::esr, "esr"},
    {objective_attribute::length, "duration"},
    {objective_attribute::site, "site"},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// Three-way comparison of two candidates under one objective, "better" first (< 0).
int compare(const candidate& x, const candidate& y, const objective& o) {
  auto cmp = [](const auto& a, const auto& b) { return a < b ? -1 : (b < a ? 1 : 0); };
  int c = 0;
  switch (o.attribute) {
    case objective_attribute::end:
      c = cmp(x.end, y.end);
      break;
    case objective_attribute::start:
      c = cmp(x.start, y.start);
      break;
    case objective_attribute::np:
      c = cmp(x.np, y.np);
      break;
    case objective_attribute::cost:
      c = cmp(*x.props.cost, *y.props.cost);
      break;
    case objective_attribute::esr:
      c = cmp(*x.props.esr, *y.props.esr);
      break;
    case objective_attribute::length:
      c = cmp(x.length(), y.length());
      break;
    case objective_attribute::site:
      c = x.site.compare(y.site);
      c = c < 0 ? -1 : (c > 0 ? 1 : 0);
      break;
  }
  return o.descending ? -c : c;
}

status check_properties(const std::vector<candidate>& candidates, const preferences& prefs) {
  for (const auto& o : prefs) {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto& p = candidates[i].props;
      // NaN would break the strict weak order the sort relies on: treat it as missing.
      const bool missing =
          (o.attribute == objective_attribute::cost && !(p.cost && *p.cost == *p.cost)) ||
          (o.attribute == objective_attribute::esr && !(p.esr && *p.esr == *p.esr));
      if (missing)
        return fail(errc::invalid_parameter, "preference '" + std::string(to_string(o.attribute)) +
                                                 "' needs a property that candidate #" +
                                                 std::to_string(i) + " (site '" +
                                                 std::string(candidates[i].site) + "') lacks");
    }
  }
  return {};
}

int compare_all(const candidate& x, const candidate& y, const preferences& prefs) {
  for (const auto& o : prefs)
    if (int c = compare(x, y, o); c != 0) return c;
  return 0;
}

}  // namespace

std::string_view to_string(objective_attribute a) noexcept {
  for (const auto& an : attribute_names)
    if (an.attribute == a) return an.name;
  return "?";
}

status validate(const preferences& prefs) {
  for (std::size_t i = 0; i < prefs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (prefs[j].attribute == prefs[i].attribute)
        return fail(
            errc::invalid_parameter,
            "preference '" + std::string(to_string(prefs[i].attribute)) + "' is named twice");
  return {};
}

result<preferences> parse_preferences(std::string_view text) {
  preferences out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    auto item = trim(text.substr(pos, comma == text.npos ? text.npos : comma - pos));
    pos = comma == text.npos ? text.size() + 1 : comma + 1;
    objective o;
    if (!item.empty() && (item.front() == '-' || item.front() == '+')) {
      o.descending = item.front() == '-';
      item.remove_prefix(1);
    }
    if (item.empty())
      return fail(errc::invalid_parameter, "empty item in preferences '" + std::string(text) + "'");
    auto it = std::find_if(attribute_names.begin(), attribute_names.end(),
                           [&](const attribute_name& an) { return an.name == item; });
    if (it == attribute_names.end())
      return fail(errc::invalid_parameter,
                  "unknown preference '" + std::string(item) +
                      "' (known: end, start, np, cost, esr, duration, site)");
    o.attribute = it->attribute;
    out.push_back(o);
  }
  if (auto ok = validate(out); !ok) return ok.err();
  return out;
}

std::string to_string(const preferences& prefs) {
  std::string out;
  for (const auto& o : prefs) {
    if (!out.empty()) out += ',';
    if (o.descending) out += '-';
    out += to_string(o.attribute);
  }
  return out;
}

result<std::vector<std::vector<std::size_t>>> preference_leaves(
    const std::vector<candidate>& candidates, const preferences& prefs) {
  if (auto ok = check_properties(candidates, prefs); !ok) return ok.err();
  // Depth-first traversal of the tree whose level i splits by objective i, children in
  // preference order, is exactly a lexicographic order; equal keys form one leaf.
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return compare_all(candidates[a], candidates[b], prefs) < 0;
  });
  std::vector<std::vector<std::size_t>> leaves;
  for (std::size_t i : order) {
    if (leaves.empty() || compare_all(candidates[leaves.back().front()], candidates[i], prefs) != 0)
      leaves.emplace_back();
    leaves.back().push_back(i);
  }
  return leaves;
}

preferences slot_prefix(const preferences& prefs) {
  preferences out;
  for (const auto& o : prefs) {
    if (o.attribute == objective_attribute::cost || o.attribute == objective_attribute::esr) break;
    out.push_back(o);
  }
  return out;
}

std::optional<std::int64_t> slot_value(const candidate& c, const objective& o) {
  std::int64_t x = 0;
  switch (o.attribute) {
    case objective_attribute::end:
      x = c.end;
      break;
    case objective_attribute::start:
      x = c.start;
      break;
    case objective_attribute::np:
      x = c.np;
      break;
    case objective_attribute::length:
      x = c.length();
      break;
    default:
      return std::nullopt;
  }
  return o.descending ? -x : x;
}

slot_key slot_key_of(const candidate& c, const preferences& prefix) {
  slot_key k;
  std::size_t i = 0;
  for (const auto& o : prefix) {
    auto x = slot_value(c, o);
    if (!x) continue;  // site: the same for all of one site's candidates
    if (i == k.v.size()) break;
    k.v[i++] = *x;
  }
  return k;
}

int compare_candidates(const candidate& a, const candidate& b, const preferences& prefs) {
  return compare_all(a, b, prefs);
}

result<std::vector<std::size_t>> preference_order(const std::vector<candidate>& candidates,
                                                  const preferences& prefs, std::size_t limit) {
  if (auto ok = check_properties(candidates, prefs); !ok) return ok.err();
  // The leaves flattened are the stable lexicographic order; ties broken by index make it a
  // total order, so a partial sort gives the same first `limit` as the full stable sort.
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto better = [&](std::size_t a, std::size_t b) {
    const int c = compare_all(candidates[a], candidates[b], prefs);
    return c != 0 ? c < 0 : a < b;
  };
  if (limit < order.size()) {
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit),
                      order.end(), better);
    order.resize(limit);
  } else {
    std::sort(order.begin(), order.end(), better);
  }
  return order;
}

}  // namespace arbroker
