#include "link.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>

namespace arbroker::remote::detail {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

link::link(asio::io_context& io, api::detail::stream stream, std::size_t max_frame,
           link_timing timing, closed_fn closed)
    : io_(io),
      stream_(std::move(stream)),
      frames_(max_frame),
      timing_(timing),
      closed_(std::move(closed)),
      opening_timer_(io),
      beat_timer_(io),
      last_read_(clock::now()),
      last_write_(clock::now()) {
  // Calls and answers are small frames waiting on each other: no Nagle delay (40 ms here).
  boost::system::error_code ignored;
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
}

void link::handshake(bool as_client, std::function<void(const std::string&)> done) {
  if (timing_.opening.count() > 0) {
    opening_timer_.expires_after(timing_.opening);
    opening_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec)
        self->end("no complete opening within " + std::to_string(self->timing_.opening.count()) +
                  " ms");
    });
  }
  auto* tls = stream_.tls();
  if (!tls) return done("");
  tls->async_handshake(as_client ? asio::ssl::stream_base::client : asio::ssl::stream_base::server,
                       [self = shared_from_this(), done](boost::system::error_code ec) {
                         if (self->ended_) return;
                         done(ec ? "TLS handshake: " + ec.message() : "");
                       });
}

void link::opened() {
  opening_timer_.cancel();
}

void link::start(frame_fn frame, std::string ping) {
  frame_ = std::move(frame);
  ping_ = std::move(ping);
  last_read_ = last_write_ = clock::now();
  read();
  arm_beat();
}

void link::read() {
  stream_.async_read_some(asio::buffer(buffer_), [self = shared_from_this()](
                                                     boost::system::error_code ec, std::size_t n) {
    if (self->ended_) return;
    if (ec) return self->end(ec == asio::error::eof ? "closed by the peer" : ec.message());
    self->last_read_ = clock::now();
    self->frames_.feed(std::string_view(self->buffer_.data(), n));
    for (;;) {
      auto f = self->frames_.next();
      if (!f) return self->end("unreadable stream: " + f.err().message);
      if (!*f) break;
      self->frame_(std::move(**f));
      if (self->ended_) return;
    }
    self->read();
  });
}

void link::send(std::string payload) {
  asio::post(io_, [self = shared_from_this(), frame = api::make_frame(payload)]() mutable {
    if (self->ended_) return;
    self->out_.push_back(std::move(frame));
    if (!self->writing_) self->write_next();
  });
}

void link::write_next() {
  if (out_.empty()) {
    writing_ = false;
    if (closing_) end(*closing_);
    return;
  }
  writing_ = true;
  // Every frame queued so far in one write: one TLS record and one system call for a burst
  // of calls or answers, not one each.
  writing_now_.clear();
  for (auto& f : out_)
    writing_now_ += f;
  out_.clear();
  stream_.async_write(asio::buffer(writing_now_),
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                        if (self->ended_) return;
                        if (ec) return self->end("write: " + ec.message());
                        self->last_write_ = clock::now();
                        self->write_next();
                      });
}

void link::arm_beat() {
  auto every = timing_.heartbeat.count() > 0 ? timing_.heartbeat : timing_.silence;
  if (timing_.silence.count() > 0 && timing_.silence < every) every = timing_.silence;
  if (every.count() <= 0) return;
  beat_timer_.expires_after(every);
  beat_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->ended_) return;
    const auto now = clock::now();
    const auto& t = self->timing_;
    if (t.silence.count() > 0 && now - self->last_read_ >= t.silence)
      return self->end("no word from the peer for " + std::to_string(t.silence.count()) + " ms");
    if (t.heartbeat.count() > 0 && now - self->last_write_ >= t.heartbeat && !self->writing_) {
      self->out_.push_back(api::make_frame(self->ping_));
      self->write_next();
    }
    self->arm_beat();
  });
}

void link::close(std::string why) {
  asio::post(io_, [self = shared_from_this(), why = std::move(why)]() mutable {
    self->end(std::move(why));
  });
}

void link::close_after_flush(std::string why) {
  asio::post(io_, [self = shared_from_this(), why = std::move(why)]() mutable {
    self->closing_ = std::move(why);
    if (!self->writing_) self->write_next();
  });
}

void link::end(std::string why) {
  if (ended_) return;
  ended_ = true;
  opening_timer_.cancel();
  beat_timer_.cancel();
  out_.clear();
  // Dropped now: they hold the owner's state, which holds this link. The owner hears of the
  // end before the peer can (its bookkeeping is done when the peer sees the close).
  frame_ = nullptr;
  auto closed = std::move(closed_);
  closed_ = nullptr;
  if (closed) closed(why);
  stream_.close();
}

}  // namespace arbroker::remote::detail
