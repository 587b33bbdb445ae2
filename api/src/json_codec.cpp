#include "arbroker/api/json_codec.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "arbroker/messages/fields.hpp"

namespace arbroker::api {
namespace {

using json = nlohmann::json;

// ---- writing

template <class T>
json value_to_json(const T& v);

// An inspector that puts each field under its name.
struct field_writer {
  const std::vector<std::string>& names;
  json& out;
  using result_type = void;
  template <class... Ts>
  void operator()(Ts&... xs) {
    std::size_t i = 0;
    ((out[names[i++]] = value_to_json(xs)), ...);
  }
};

template <class T>
json struct_to_json(const T& x) {
  T copy = x;  // inspect takes mutable references
  const auto& names = msg::field_names<T>();
  json out = json::object();
  field_writer w{names, out};
  inspect(w, copy);
  return out;
}

template <class T>
json value_to_json(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                std::is_same_v<T, double>) {
    return v;
  } else if constexpr (msg::is_wire_list<T>) {
    json a = json::array();
    for (const auto& e : v)
      a.push_back(value_to_json(e));
    return a;
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(to_string(v));
  } else if constexpr (std::is_integral_v<T>) {
    return v;
  } else {
    return struct_to_json(v);
  }
}

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- reading: the first problem, with the path of the field it is in

/// Where a value is ("components[1].np_min"), as a chain through the callers' frames: made
/// into text only for an error, so that reading a valid body builds no path strings.
struct path_ref {
  const path_ref* parent = nullptr;
  std::string_view key;   ///< a member's name, or empty for
  std::size_t index = 0;  ///< ... an element of a list
  std::string text() const {
    if (!parent) return "";
    std::string up = parent->text();
    if (key.empty()) return up + "[" + std::to_string(index) + "]";
    return up.empty() ? std::string(key) : up + "." + std::string(key);
  }
};

struct reader_state {
  std::string error;
  bool ignore_unknown_keys = false;  ///< a client of a newer release: its new fields
  bool failed() const { return !error.empty(); }
  void fail(const path_ref& at, const std::string& what) {
    if (!error.empty()) return;
    const auto path = at.text();
    error = (path.empty() ? "body" : path) + ": " + what;
  }
};

template <class T>
void value_from_json(const json& j, T& v, const path_ref& at, reader_state& st);

// An inspector that reads each field from its name's key, when there is one, and counts the
// keys it used.
struct field_reader {
  const json& j;
  const std::vector<std::string>& names;
  const path_ref& at;
  reader_state& st;
  std::size_t used = 0;
  using result_type = void;
  template <class F>
  void one(std::size_t i, F& field) {
    if (st.failed()) return;
    if (auto it = j.find(names[i]); it != j.end()) {
      ++used;
      value_from_json(*it, field, path_ref{&at, names[i]}, st);
    }
  }
  template <class... Ts>
  void operator()(Ts&... xs) {
    std::size_t i = 0;
    (one(i++, xs), ...);
  }
};

template <class T>
void struct_from_json(const json& j, T& x, const path_ref& at, reader_state& st) {
  if (!j.is_object()) return st.fail(at, "expected an object");
  const auto& names = msg::field_names<T>();
  field_reader r{j, names, at, st};
  inspect(r, x);
  if (st.failed() || r.used == j.size() || st.ignore_unknown_keys) return;
  // A key that is no field: find it (only now, so valid bodies pay one lookup per field).
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
      std::string known;
      for (const auto& n : names)
        known += (known.empty() ? "" : ", ") + n;
      return st.fail(path_ref{&at, it.key()},
                     "no such field (" + std::string(msg::wire_name_of<T>()) + " has " +
                         (known.empty() ? std::string("none") : known) + ")");
    }
}

template <class T>
void integer_from_json(const json& j, T& v, const path_ref& at, reader_state& st) {
  using lim = std::numeric_limits<T>;
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(lim::max()))
      return st.fail(at, "integer " + std::to_string(u) + " out of range");
    v = static_cast<T>(u);
  } else if (j.is_number_integer()) {
    const auto s = j.get<std::int64_t>();
    if (s < static_cast<std::int64_t>(lim::min()) ||
        (s > 0 && static_cast<std::uint64_t>(s) > static_cast<std::uint64_t>(lim::max())))
      return st.fail(at, "integer " + std::to_string(s) + " out of range");
    v = static_cast<T>(s);
  } else {
    st.fail(at, "expected an integer");
  }
}

template <class E>
void enum_from_json(const json& j, E& v, const path_ref& at, reader_state& st) {
  if (j.is_string()) {
    const auto& name = j.get_ref<const std::string&>();
    for (std::underlying_type_t<E> n = 0;; ++n) {
      const auto value = static_cast<E>(n);
      if (name == to_string(value)) {
        v = value;
        return;
      }
      if (value == enum_bounds<E>::last) break;
    }
  }
  std::string names;
  for (std::underlying_type_t<E> n = 0;; ++n) {
    const auto value = static_cast<E>(n);
    names += (names.empty() ? "" : ", ") + std::string(to_string(value));
    if (value == enum_bounds<E>::last) break;
  }
  st.fail(at, "expected one of " + names);
}

template <class T>
void value_from_json(const json& j, T& v, const path_ref& at, reader_state& st) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return st.fail(at, "expected a string");
    v = j.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return st.fail(at, "expected true or false");
    v = j.get<bool>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!j.is_number()) return st.fail(at, "expected a number");
    v = j.get<double>();
  } else if constexpr (msg::is_wire_list<T>) {
    if (!j.is_array()) return st.fail(at, "expected an array");
    v.assign(j.size(), typename T::value_type{});
    for (std::size_t i = 0; i < j.size() && !st.failed(); ++i)
      value_from_json(j[i], v[i], path_ref{&at, {}, i}, st);
  } else if constexpr (std::is_enum_v<T>) {
    enum_from_json(j, v, at, st);
  } else if constexpr (std::is_integral_v<T>) {
    integer_from_json(j, v, at, st);
  } else {
    struct_from_json(j, v, at, st);
  }
}

}  // namespace

result<request_body> request_body_from_json(operation op, std::string_view text,
                                            unknown_keys unknown) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);  // no exceptions
  if (j.is_discarded())
    return fail(errc::invalid_parameter, "the body is not JSON (or not valid UTF-8)");
  request_body body = empty_request_body(op);
  reader_state st;
  st.ignore_unknown_keys = unknown == unknown_keys::ignore;
  const path_ref root;
  std::visit([&](auto& b) { value_from_json(j, b, root, st); }, body);
  if (st.failed()) return fail(errc::invalid_parameter, st.error);
  return body;
}

std::string to_json(const msg::watch_event& event) {
  return dump(value_to_json(event));
}

std::string to_json(const request_body& body) {
  return std::visit([](const auto& b) { return dump(value_to_json(b)); }, body);
}

std::string to_json(const response_body& body) {
  return std::visit(
      [](const auto& b) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(b)>, std::monostate>)
          return "null";
        else
          return dump(value_to_json(b));
      },
      body);
}

}  // namespace arbroker::api
