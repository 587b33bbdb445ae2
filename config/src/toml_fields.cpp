#include "arbroker/config/toml_fields.hpp"

#include <map>
#include <set>
#include <vector>

#include "arbroker/core/time_format.hpp"

namespace arbroker::config {

field at(const toml::table& t, const std::string& parent, const char* key) {
  return {toml::node_view<const toml::node>{t.get(key)},
          parent.empty() ? std::string(key) : parent + "." + key};
}

error bad(const std::string& path, const std::string& why) {
  return {errc::invalid_parameter, path + ": " + why};
}

status only_known_keys(const toml::table& t, const std::string& path,
                       const std::vector<std::string_view>& known) {
  const std::set<std::string_view> k(known.begin(), known.end());
  for (const auto& [key, _] : t)
    if (!k.count(key.str())) {
      std::string list;
      for (auto name : known)
        list += (list.empty() ? "" : ", ") + std::string(name);
      return bad(path.empty() ? std::string(key.str()) : path + "." + std::string(key.str()),
                 "unknown key (known: " + list + ")");
    }
  return {};
}

result<std::string> text(const field& f) {
  if (auto v = f.node.value<std::string>()) return *v;
  return bad(f.path, f.present() ? "expected a string" : "missing");
}

result<double> number(const field& f) {
  if (auto v = f.node.value<double>()) return *v;
  return bad(f.path, f.present() ? "expected a number" : "missing");
}

result<int> integer(const field& f) {
  auto v = f.node.value<std::int64_t>();
  if (!v || *v < INT32_MIN || *v > INT32_MAX)
    return bad(f.path, f.present() ? "expected an integer" : "missing");
  return static_cast<int>(*v);
}

result<bool> boolean(const field& f) {
  if (auto* b = f.node.as_boolean()) return b->get();
  return bad(f.path, f.present() ? "expected true or false" : "missing");
}

result<duration> span_of(const field& f, bool allow_negative) {
  if (auto v = f.node.value<std::int64_t>()) {
    if (*v < 0 && !allow_negative) return bad(f.path, "must not be negative");
    return *v;
  }
  auto s = text(f);
  if (!s) return bad(f.path, f.present() ? "expected a duration such as \"2h\"" : "missing");
  const bool negative = allow_negative && !s->empty() && s->front() == '-';
  auto d = parse_duration(negative ? s->substr(1) : *s);
  if (!d) return bad(f.path, d.err().message);
  return negative ? -*d : *d;
}

result<timestamp> time_of(const field& f, timestamp now) {
  auto s = text(f);
  if (!s) return s.err();
  auto t = parse_time(*s, now);
  if (!t) return bad(f.path, t.err().message);
  return *t;
}

result<cost_model> cost_of(const toml::table& t, const std::string& path) {
  duration tz = 0;
  if (t.contains("tz_offset")) {
    auto v = span_of(at(t, path, "tz_offset"), true);
    if (!v) return v.err();
    tz = *v;
  }
  double unit_cost = 1.0;
  duration unit = 3600;
  if (t.contains("base_unit_cost")) {
    auto v = number(at(t, path, "base_unit_cost"));
    if (!v) return v.err();
    unit_cost = *v;
  }
  if (t.contains("base_unit")) {
    auto v = span_of(at(t, path, "base_unit"));
    if (!v) return v.err();
    unit = *v;
  }
  std::vector<day_rate> rates;
  if (t.contains("day_rates")) {
    auto* arr = t["day_rates"].as_array();
    if (!arr) return bad(path + ".day_rates", "expected an array of {from, to, factor}");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      auto* r = arr->get(i)->as_table();
      const std::string rp = path + ".day_rates[" + std::to_string(i) + "]";
      if (!r) return bad(rp, "expected a table {from, to, factor}");
      auto from = span_of(at(*r, rp, "from"));
      auto to = span_of(at(*r, rp, "to"));
      auto factor = number(at(*r, rp, "factor"));
      if (!from) return from.err();
      if (!to) return to.err();
      if (!factor) return factor.err();
      rates.push_back({*from, *to, *factor});
    }
  }
  std::map<std::string, double> agreements;
  if (t.contains("agreements")) {
    auto* ag = t["agreements"].as_table();
    if (!ag) return bad(path + ".agreements", "expected a table {user = factor}");
    for (const auto& [who, v] : *ag) {
      auto f = v.value<double>();
      if (!f) return bad(path + ".agreements." + std::string(who.str()), "expected a number");
      agreements.emplace(std::string(who.str()), *f);
    }
  }
  auto cost = cost_model::create(unit_cost, unit, std::move(rates), tz, std::move(agreements));
  if (!cost) return bad(path, cost.err().message);
  return std::move(*cost);
}

result<toml::table> parse_file(const std::string& path) {
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return error{errc::invalid_parameter, path + ":" + std::to_string(e.source().begin.line) +
                                              ": " + std::string(e.description())};
  }
}

}  // namespace arbroker::config
