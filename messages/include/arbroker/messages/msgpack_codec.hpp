#pragma once

// msgpack encoding of every message type, driven by the same inspect() field list CAF uses:
// a struct is an array of its fields in inspect order, an enum its number. Decoding checks
// every type and range (an enum against its enum_bounds) and reports the first problem; it
// never throws.

#include <msgpack.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/error.hpp"

namespace arbroker::msg {

/// Packs fields in inspect order.
class msgpack_writer {
 public:
  using result_type = void;
  explicit msgpack_writer(msgpack::packer<msgpack::sbuffer>& out) : out_(out) {}

  template <class... Ts>
  void operator()(Ts&... xs) {
    out_.pack_array(sizeof...(Ts));
    (write(xs), ...);
  }

 private:
  void write(std::string& s) { out_.pack(s); }
  void write(bool& b) { out_.pack(b); }
  void write(double& d) { out_.pack(d); }
  template <class T>
  void write(std::vector<T>& v) {
    out_.pack_array(static_cast<std::uint32_t>(v.size()));
    for (auto& e : v)
      write(e);
  }
  template <class T>
  void write(T& x) {
    if constexpr (std::is_enum_v<T>) {
      static_assert(bounded_enum<T>, "an enum on the wire needs enum_bounds (enum_bounds.hpp)");
      out_.pack(static_cast<std::underlying_type_t<T>>(x));
    } else if constexpr (std::is_integral_v<T>) {
      out_.pack(x);
    } else {
      inspect(*this, x);
    }
  }
  msgpack::packer<msgpack::sbuffer>& out_;
};

/// What a reader does with a struct that has fewer fields than this build's. Fields are only
/// ever appended, so the missing ones are the newest.
enum class missing_fields {
  refuse,         ///< messages: a peer of this protocol sends every field
  keep_defaults,  ///< stored records an older release wrote: the new fields keep defaults
};

/// Reads fields in inspect order from a msgpack object; the first error sticks.
class msgpack_reader {
 public:
  using result_type = void;
  explicit msgpack_reader(const msgpack::object& in, missing_fields m = missing_fields::refuse)
      : cur_(&in), missing_(m) {}

  template <class... Ts>
  void operator()(Ts&... xs) {
    if (failed()) return;
    if (cur_->type != msgpack::type::ARRAY) return set_error("expected an array (a struct)");
    // Newer senders may append fields; older ones may not omit any (but older records may).
    const std::size_t n = cur_->via.array.size;
    if (n < sizeof...(Ts) && missing_ == missing_fields::refuse)
      return set_error("struct has " + std::to_string(n) + " fields, expected " +
                       std::to_string(sizeof...(Ts)));
    [[maybe_unused]] const msgpack::object* fields = cur_->via.array.ptr;
    [[maybe_unused]] std::size_t i = 0;
    (read_present(fields, n, i++, xs), ...);
  }

  bool failed() const noexcept { return !error_.empty(); }
  const std::string& error_text() const noexcept { return error_; }

 private:
  template <class T>
  void read_present(const msgpack::object* fields, std::size_t n, std::size_t i, T& x) {
    if (i < n) read_at(fields[i], x);
  }
  template <class T>
  void read_at(const msgpack::object& o, T& x) {
    if (failed()) return;
    const msgpack::object* saved = cur_;
    cur_ = &o;
    read(x);
    cur_ = saved;
  }

  void read(std::string& s) {
    if (cur_->type != msgpack::type::STR) return set_error("expected a string");
    s.assign(cur_->via.str.ptr, cur_->via.str.size);
  }
  void read(bool& b) {
    if (cur_->type != msgpack::type::BOOLEAN) return set_error("expected a boolean");
    b = cur_->via.boolean;
  }
  void read(double& d) {
    switch (cur_->type) {
      case msgpack::type::FLOAT32:
      case msgpack::type::FLOAT64:
        d = cur_->via.f64;
        return;
      case msgpack::type::POSITIVE_INTEGER:
        d = static_cast<double>(cur_->via.u64);
        return;
      case msgpack::type::NEGATIVE_INTEGER:
        d = static_cast<double>(cur_->via.i64);
        return;
      default:
        return set_error("expected a number");
    }
  }
  template <class T>
  void read(std::vector<T>& v) {
    if (cur_->type != msgpack::type::ARRAY) return set_error("expected an array");
    v.clear();
    v.resize(cur_->via.array.size);
    for (std::size_t i = 0; i < v.size() && !failed(); ++i)
      read_at(cur_->via.array.ptr[i], v[i]);
  }
  template <class T>
  void read(T& x) {
    if constexpr (std::is_enum_v<T>) {
      static_assert(bounded_enum<T>, "an enum on the wire needs enum_bounds (enum_bounds.hpp)");
      std::underlying_type_t<T> v{};
      read_integer(v);
      if (failed()) return;
      if (!is_enum_value<T>(v))
        return set_error(
            "enum value " + std::to_string(+v) + " out of range (0.." +
            std::to_string(+static_cast<std::underlying_type_t<T>>(enum_bounds<T>::last)) + ")");
      x = static_cast<T>(v);
    } else if constexpr (std::is_integral_v<T>) {
      read_integer(x);
    } else {
      inspect(*this, x);
    }
  }
  template <class T>
  void read_integer(T& x) {
    using lim = std::numeric_limits<T>;
    if (cur_->type == msgpack::type::POSITIVE_INTEGER) {
      if (cur_->via.u64 > static_cast<std::uint64_t>(lim::max()))
        return set_error("integer " + std::to_string(cur_->via.u64) + " out of range");
      x = static_cast<T>(cur_->via.u64);
    } else if (cur_->type == msgpack::type::NEGATIVE_INTEGER) {
      if constexpr (lim::is_signed) {
        if (cur_->via.i64 < static_cast<std::int64_t>(lim::min()))
          return set_error("integer " + std::to_string(cur_->via.i64) + " out of range");
        x = static_cast<T>(cur_->via.i64);
      } else {
        return set_error("negative integer where an unsigned one is expected");
      }
    } else {
      set_error("expected an integer");
    }
  }
  void set_error(std::string what) {
    if (error_.empty()) error_ = std::move(what);
  }

  const msgpack::object* cur_;
  missing_fields missing_;
  std::string error_;
};

/// msgpack bytes of a message.
template <class T>
std::string encode(const T& value) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  msgpack_writer w(pk);
  T copy = value;  // inspect takes mutable references
  inspect(w, copy);
  return std::string(buf.data(), buf.size());
}

/// A message from msgpack bytes; invalid_parameter with the reason when the bytes are not a
/// well-formed T (trailing bytes are an error too).
template <class T>
result<T> decode(std::string_view bytes, missing_fields missing = missing_fields::refuse) {
  msgpack::object_handle oh;
  std::size_t off = 0;
  try {
    oh = msgpack::unpack(bytes.data(), bytes.size(), off);
  } catch (const std::exception& e) {
    return fail(errc::invalid_parameter, std::string("malformed msgpack: ") + e.what());
  }
  if (off != bytes.size())
    return fail(errc::invalid_parameter,
                "trailing bytes after the message (" + std::to_string(bytes.size() - off) + ")");
  T value{};
  msgpack_reader r(oh.get(), missing);
  inspect(r, value);
  if (r.failed()) return fail(errc::invalid_parameter, "bad message: " + r.error_text());
  return value;
}

}  // namespace arbroker::msg
