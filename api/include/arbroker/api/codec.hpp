#pragma once

// Frames (4-byte big-endian length + msgpack payload) and the msgpack form of the protocol
// envelopes. Decoding never throws and never trusts a length: the unpacker's container and
// string sizes are bounded by the payload, its nesting by a small depth.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <msgpack.hpp>

#include "arbroker/api/protocol.hpp"
#include "arbroker/core/error.hpp"

namespace arbroker::api {

inline constexpr std::size_t frame_header_size = 4;
inline constexpr std::size_t default_max_frame = std::size_t{1} << 20;  // 1 MiB
/// Frames before authentication (the hello) are small; strangers get no more.
inline constexpr std::size_t max_hello_frame = 4096;

/// The frame carrying `payload`. Precondition: payload.size() < 2^32.
std::string make_frame(std::string_view payload);

/// Splits a byte stream into frame payloads. An announced length above the limit (or zero)
/// is an error that sticks: the stream cannot be resynchronised after it.
class frame_decoder {
 public:
  explicit frame_decoder(std::size_t max_frame = default_max_frame) : max_frame_(max_frame) {}

  void feed(std::string_view bytes) { buffer_.append(bytes); }

  /// The next complete payload; nullopt when more bytes are needed.
  result<std::optional<std::string>> next();

  /// Applies to frames not yet returned (a connection raises it after the handshake).
  void set_max_frame(std::size_t max_frame) noexcept { max_frame_ = max_frame; }

  std::size_t buffered() const noexcept { return buffer_.size() - pos_; }
  std::size_t max_frame() const noexcept { return max_frame_; }

 private:
  std::size_t max_frame_;
  std::string buffer_;
  std::size_t pos_ = 0;
  std::optional<error> failed_;
};

/// One msgpack value that must span all of `bytes`. Sizes the unpacker may allocate for are
/// bounded by the payload itself (every element takes at least a byte), its nesting by a
/// depth (the API's deepest message, status_reply, nests 5). Maps and ext values unpack too: the
/// readers refuse them where a message has a struct, so that a request gets its own error rather
/// than a refused envelope.
result<msgpack::object_handle> unpack_bounded(std::string_view bytes, std::size_t max_depth = 12);

std::string encode_hello(const hello& h);
result<hello> decode_hello(std::string_view payload);
std::string encode_welcome(const welcome& w);
result<welcome> decode_welcome(std::string_view payload);

/// Request envelope: [id, op, body].
std::string encode_request(const request& r);

/// What decoding a request payload found. When the envelope's id and operation could be
/// read but the body could not, the connection can answer that request with an error and
/// go on; without an id the stream is corrupt.
struct decoded_request {
  std::optional<std::uint64_t> id;
  std::optional<std::uint8_t> op_code;
  result<request> value = error{errc::invalid_parameter, "not decoded"};
};
/// A request of a session of protocol `version` (protocol_versions.hpp): an operation newer
/// than that version is unknown to it; a client of an older version may send structs with
/// fewer trailing fields (the missing ones keep their defaults), one of this version may not.
decoded_request decode_request(std::string_view payload, std::uint16_t version = protocol_version);

/// Response envelope: [id, op, code, message, body or nil].
std::string encode_response(const response& r);
result<response> decode_response(std::string_view payload);

}  // namespace arbroker::api
