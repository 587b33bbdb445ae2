#pragma once

// One connection of the agent protocol, on either side: a TLS (or, on loopback, plain) byte
// stream cut into frames, a queue of frames to write, a deadline for the opening exchange,
// heartbeats while idle and a limit on silence. Lives on one io_context run by one thread:
// its handlers run there; send() and close() may be called from anywhere.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "arbroker/api/codec.hpp"
#include "arbroker/api/stream.hpp"

namespace arbroker::remote::detail {

struct link_timing {
  /// The TLS handshake and the hello/welcome exchange must be over by then (0: no limit).
  std::chrono::milliseconds opening{5000};
  /// A heartbeat goes out when nothing was written for this long (0: none).
  std::chrono::milliseconds heartbeat{0};
  /// The link closes when nothing was read for this long (0: never).
  std::chrono::milliseconds silence{0};
};

class link : public std::enable_shared_from_this<link> {
 public:
  using frame_fn = std::function<void(std::string payload)>;
  using closed_fn = std::function<void(const std::string& why)>;

  /// `closed` runs once, when the link ends (whatever the phase), on the io thread.
  link(boost::asio::io_context& io, api::detail::stream stream, std::size_t max_frame,
       link_timing timing, closed_fn closed);

  /// The TLS handshake (if TLS) as client or server; `done` gets "" or why it failed. The
  /// opening deadline starts now.
  void handshake(bool as_client, std::function<void(const std::string&)> done);
  /// Starts reading frames: each goes to `frame`, in order. `ping` is what a heartbeat sends.
  void start(frame_fn frame, std::string ping);
  /// The opening exchange is over: its deadline no longer applies.
  void opened();

  void send(std::string payload);
  void close(std::string why);
  /// Closes once what was sent before is written (a refusal's last word).
  void close_after_flush(std::string why);

  api::detail::stream& stream() noexcept { return stream_; }

 private:
  void read();
  void write_next();
  void arm_beat();
  void end(std::string why);  // on the io thread

  boost::asio::io_context& io_;
  api::detail::stream stream_;
  api::frame_decoder frames_;
  link_timing timing_;
  frame_fn frame_;
  closed_fn closed_;
  std::string ping_;
  std::array<char, 16384> buffer_{};
  std::deque<std::string> out_;  ///< frames waiting for the write in progress
  std::string writing_now_;      ///< what the write in progress sends
  bool writing_ = false;
  bool ended_ = false;
  std::optional<std::string> closing_;  ///< close_after_flush's reason
  boost::asio::steady_timer opening_timer_;
  boost::asio::steady_timer beat_timer_;
  std::chrono::steady_clock::time_point last_read_, last_write_;
};

}  // namespace arbroker::remote::detail
