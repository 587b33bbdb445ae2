#include "arbroker/api/codec.hpp"

#include <utf8cpp/utf8.h>
#include <msgpack.hpp>

#include <iterator>
#include <limits>

#include "arbroker/api/protocol_versions.hpp"
#include "arbroker/messages/msgpack_codec.hpp"

namespace arbroker::api {

result<msgpack::object_handle> unpack_bounded(std::string_view bytes, std::size_t max_depth) {
  msgpack::object_handle oh;
  std::size_t off = 0;
  const std::size_t n = bytes.size();
  msgpack::unpack_limit limit(n, n, n, n, n, max_depth);
  try {
    oh = msgpack::unpack(bytes.data(), n, off, nullptr, nullptr, limit);
  } catch (const std::exception& e) {
    return fail(errc::invalid_parameter, std::string("malformed msgpack: ") + e.what());
  }
  if (off != n)
    return fail(errc::invalid_parameter,
                "trailing bytes after the message (" + std::to_string(n - off) + ")");
  return oh;
}

namespace {

template <class T>
std::string encode_value(const T& value) {
  return msg::encode(value);
}

template <class T>
result<T> read_object(const msgpack::object& o, std::string_view what,
                      msg::missing_fields missing = msg::missing_fields::refuse) {
  T value{};
  msg::msgpack_reader r(o, missing);
  inspect(r, value);
  if (r.failed()) return fail(errc::invalid_parameter, std::string(what) + ": " + r.error_text());
  return value;
}

template <class T>
result<T> decode_value(std::string_view bytes, std::string_view what,
                       msg::missing_fields missing = msg::missing_fields::refuse) {
  auto oh = unpack_bounded(bytes);
  if (!oh) return oh.err();
  return read_object<T>(oh->get(), what, missing);
}

template <class T>
void write_object(msgpack::packer<msgpack::sbuffer>& pk, const T& value) {
  T copy = value;  // inspect takes mutable references
  msg::msgpack_writer w(pk);
  inspect(w, copy);
}

bool read_u64(const msgpack::object& o, std::uint64_t& out) {
  if (o.type != msgpack::type::POSITIVE_INTEGER) return false;
  out = o.via.u64;
  return true;
}

bool read_u8(const msgpack::object& o, std::uint8_t& out) {
  if (o.type != msgpack::type::POSITIVE_INTEGER || o.via.u64 > 255) return false;
  out = static_cast<std::uint8_t>(o.via.u64);
  return true;
}

// The id and operation code at the head of a request envelope [id, op, body] whose whole
// payload does not unpack (a truncated or malformed element in the body): msgpack-c's event
// parser reads the first two elements and stops there, so the error can name the request.
struct envelope_head : msgpack::null_visitor {
  std::optional<std::uint64_t> id;
  std::optional<std::uint8_t> op;
  int depth = 0;
  std::size_t item = 0;  // of the top-level array

  // Only the top-level array is entered: an array or map where the id or op belongs means
  // there is none (and nothing deeper is walked, however the payload nests).
  bool start_array(std::uint32_t) { return depth++ == 0; }
  bool start_map(std::uint32_t) { return false; }
  bool end_array_item() { return ++item < 2; }  // stop after the op
  bool visit_positive_integer(std::uint64_t v) {
    if (depth == 1 && item == 0) id = v;  // (depth 0: a bare number, no envelope)
    if (depth == 1 && item == 1 && v <= 255) op = static_cast<std::uint8_t>(v);
    return true;
  }
  void parse_error(std::size_t, std::size_t) {}
  void insufficient_bytes(std::size_t, std::size_t) {}
};

void read_envelope_head(std::string_view payload, decoded_request& out) {
  envelope_head head;
  std::size_t off = 0;
  try {
    msgpack::parse(payload.data(), payload.size(), off, head);
  } catch (const std::exception&) {  // a size the parser refuses: nothing more to learn
  }
  out.id = head.id;
  out.op_code = head.op;
}

}  // namespace

std::string make_frame(std::string_view payload) {
  const auto n = static_cast<std::uint32_t>(payload.size());
  std::string out;
  out.reserve(frame_header_size + payload.size());
  out.push_back(static_cast<char>((n >> 24) & 0xff));
  out.push_back(static_cast<char>((n >> 16) & 0xff));
  out.push_back(static_cast<char>((n >> 8) & 0xff));
  out.push_back(static_cast<char>(n & 0xff));
  out.append(payload);
  return out;
}

result<std::optional<std::string>> frame_decoder::next() {
  if (failed_) return *failed_;
  if (buffered() < frame_header_size) return std::optional<std::string>{};
  const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + pos_);
  const std::uint32_t n = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                          (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
  if (n == 0) {
    failed_ = fail(errc::invalid_parameter, "frame of length 0");
    return *failed_;
  }
  if (n > max_frame_) {
    failed_ = fail(errc::invalid_parameter, "frame of " + std::to_string(n) +
                                                " bytes exceeds the limit of " +
                                                std::to_string(max_frame_));
    return *failed_;
  }
  if (buffered() < frame_header_size + n) return std::optional<std::string>{};
  std::string payload = buffer_.substr(pos_ + frame_header_size, n);
  pos_ += frame_header_size + n;
  // Compact once the consumed prefix dominates, so the buffer stays about one frame large.
  if (pos_ > buffer_.size() / 2) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return std::optional<std::string>{std::move(payload)};
}

std::string encode_hello(const hello& h) {
  return encode_value(h);
}
result<hello> decode_hello(std::string_view payload) {
  return decode_value<hello>(payload, "hello");
}
std::string encode_welcome(const welcome& w) {
  return encode_value(w);
}
result<welcome> decode_welcome(std::string_view payload) {
  // An older server's welcome lacks the newest fields: read it all the same, so that its
  // refusal of this client's version reaches the user in its own words.
  return decode_value<welcome>(payload, "welcome", msg::missing_fields::keep_defaults);
}

std::string encode_request(const request& r) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(r.id);
  pk.pack(static_cast<std::uint8_t>(r.op()));
  std::visit([&pk](const auto& body) { write_object(pk, body); }, r.body);
  return std::string(buf.data(), buf.size());
}

decoded_request decode_request(std::string_view payload, std::uint16_t version) {
  decoded_request out;
  auto oh = unpack_bounded(payload);
  if (!oh) {
    read_envelope_head(payload, out);
    out.value = oh.err();
    return out;
  }
  const msgpack::object& o = oh->get();
  if (o.type != msgpack::type::ARRAY || o.via.array.size < 3) {
    out.value = fail(errc::invalid_parameter, "request: expected an array [id, op, body]");
    return out;
  }
  const msgpack::object* f = o.via.array.ptr;
  std::uint64_t id = 0;
  if (!read_u64(f[0], id)) {
    out.value = fail(errc::invalid_parameter, "request.id: expected an unsigned integer");
    return out;
  }
  out.id = id;
  std::uint8_t code = 0;
  if (!read_u8(f[1], code)) {
    out.value = fail(errc::invalid_parameter, "request.op: expected an operation code");
    return out;
  }
  out.op_code = code;
  auto op = to_operation(code);
  if (!op || introduced_in(*op) > version) {
    out.value =
        fail(errc::invalid_parameter, "request.op: unknown operation " + std::to_string(code));
    return out;
  }
  request r{id, empty_request_body(*op)};
  const auto missing =
      version < protocol_version ? msg::missing_fields::keep_defaults : msg::missing_fields::refuse;
  std::string err;
  std::visit(
      [&](auto& body) {
        msg::msgpack_reader reader(f[2], missing);
        inspect(reader, body);
        if (reader.failed()) err = reader.error_text();
      },
      r.body);
  if (!err.empty()) {
    out.value =
        fail(errc::invalid_parameter, "request.body (" + std::string(to_string(*op)) + "): " + err);
    return out;
  }
  out.value = std::move(r);
  return out;
}

std::string encode_response(const response& r) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(5);
  pk.pack(r.id);
  pk.pack(static_cast<std::uint8_t>(r.op));
  pk.pack(r.code);
  // A message may quote what it refuses; a msgpack str must be UTF-8 for strict decoders.
  if (utf8::is_valid(r.message.begin(), r.message.end())) {
    pk.pack(r.message);
  } else {
    std::string clean;
    utf8::replace_invalid(r.message.begin(), r.message.end(), std::back_inserter(clean));
    pk.pack(clean);
  }
  std::visit(
      [&pk](const auto& body) {
        if constexpr (std::is_same_v<std::decay_t<decltype(body)>, std::monostate>)
          pk.pack_nil();
        else
          write_object(pk, body);
      },
      r.body);
  return std::string(buf.data(), buf.size());
}

result<response> decode_response(std::string_view payload) {
  auto oh = unpack_bounded(payload);
  if (!oh) return oh.err();
  const msgpack::object& o = oh->get();
  if (o.type != msgpack::type::ARRAY || o.via.array.size < 5)
    return fail(errc::invalid_parameter, "response: expected [id, op, code, message, body]");
  const msgpack::object* f = o.via.array.ptr;
  response r;
  std::uint8_t op_code = 0;
  if (!read_u64(f[0], r.id)) return fail(errc::invalid_parameter, "response.id: not a u64");
  if (!read_u8(f[1], op_code) || (op_code != 0 && !to_operation(op_code)))
    return fail(errc::invalid_parameter, "response.op: unknown operation");
  r.op = op_code == 0 ? operation::none : *to_operation(op_code);
  if (!read_u8(f[2], r.code)) return fail(errc::invalid_parameter, "response.code: not a u8");
  if (f[3].type != msgpack::type::STR)
    return fail(errc::invalid_parameter, "response.message: expected a string");
  r.message.assign(f[3].via.str.ptr, f[3].via.str.size);
  if (f[4].type == msgpack::type::NIL) {
    r.body = std::monostate{};
    return r;
  }
  r.body = empty_response_body(r.op);
  std::string err;
  std::visit(
      [&](auto& body) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(body)>, std::monostate>) {
          // A server of another release may know fewer fields (or more, which are skipped).
          msg::msgpack_reader reader(f[4], msg::missing_fields::keep_defaults);
          inspect(reader, body);
          if (reader.failed()) err = reader.error_text();
        }
      },
      r.body);
  if (!err.empty()) return fail(errc::invalid_parameter, "response.body: " + err);
  return r;
}

}  // namespace arbroker::api
