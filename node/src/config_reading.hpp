#pragma once

// How node_config's readers take values out of TOML tables: each names the key it reads in its
// errors, and a table refuses keys it does not know (a typo is never silently ignored).

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/config/toml_fields.hpp"

namespace arbroker::detail::reading {

using config::at;
using config::bad;

// A typo in a key must not be silently ignored: every table lists the keys it knows.
using config::only_known_keys;

template <class T, class Read>
status optional(const toml::table& t, const std::string& path, const char* key, T& out, Read read) {
  if (!t.contains(key)) return {};
  auto v = read(at(t, path, key));
  if (!v) return v.err();
  out = static_cast<T>(*v);
  return {};
}

inline auto as_text = [](const config::field& f) { return config::text(f); };

inline auto as_int = [](const config::field& f) { return config::integer(f); };
inline auto as_number = [](const config::field& f) { return config::number(f); };
inline auto as_bool = [](const config::field& f) { return config::boolean(f); };
inline auto as_span = [](const config::field& f) { return config::span_of(f); };

// A key whose text names one value of an enum: `from` reads it, `choices` says the names.
template <class E>
status optional_choice(const toml::table& t, const std::string& path, const char* key, E& out,
                       std::optional<E> (*from)(std::string_view) noexcept, const char* choices) {
  if (!t.contains(key)) return {};
  std::string text;
  if (auto ok = optional(t, path, key, text, as_text); !ok) return ok;
  auto v = from(text);
  if (!v) return bad(path + "." + key, "'" + text + "' is not one of " + choices);
  out = *v;
  return {};
}

inline result<std::vector<std::string>> strings(const toml::table& t, const std::string& path,
                                                const char* key) {
  std::vector<std::string> out;
  if (!t.contains(key)) return out;
  auto* arr = t[key].as_array();
  if (!arr) return bad(path + "." + key, "expected an array of strings");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    auto v = arr->get(i)->value<std::string>();
    if (!v) return bad(path + "." + key + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(*v);
  }
  return out;
}

#define ARB_TRY(expr)            \
  if (auto ok_ = (expr); !ok_) { \
    return ok_.err();            \
  }

}  // namespace arbroker::detail::reading
