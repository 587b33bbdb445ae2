// The node's watches (event_feed.hpp) over a store in memory: every event a watcher may see,
// once and in order, live or resumed from the store; filters by owner and kind; a watcher
// left behind by the buffer cut off with slow_consumer, one resuming past the retention
// refused with gone; and nothing held for a watcher beyond the page it was given.

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>

#include "event_feed.hpp"

namespace arbroker::node_detail {
namespace {

// The store's part, in memory: ids from 1 on, as SQLite's AUTOINCREMENT gives them; event n
// written at at_of(n), in the future (the feed's purge of the older than a day keeps them).
constexpr timestamp at_of(std::uint64_t id) {
  return 2'000'000'000 + static_cast<timestamp>(id);
}

class memory_events final : public event_journal {
 public:
  std::vector<event_row> append(int n, const std::string& owner = "alice",
                                const std::string& kind = "reservation.created") {
    std::lock_guard lock{mu_};
    std::vector<event_row> out;
    for (int i = 0; i < n; ++i) {
      event_row e;
      e.id = ++last_;
      e.kind = kind;
      e.owner = owner;
      e.subject = "berlin/" + std::to_string(e.id);
      e.at = at_of(e.id);
      rows_.push_back(e);
      out.push_back(e);
    }
    return out;
  }
  result<std::vector<event_row>> events_after(std::uint64_t after, std::size_t limit) override {
    std::lock_guard lock{mu_};
    std::vector<event_row> out;
    for (const auto& e : rows_)
      if (e.id > after && out.size() < limit) out.push_back(e);
    return out;
  }
  result<event_span> events_kept() override {
    std::lock_guard lock{mu_};
    return event_span{rows_.empty() ? last_ + 1 : rows_.front().id, last_};
  }
  status purge_events(timestamp before) override {
    std::lock_guard lock{mu_};
    std::erase_if(rows_, [&](const event_row& e) { return e.at < before; });
    return {};
  }
  void set_event_listener(std::function<void(std::vector<event_row>)>) override {}

 private:
  std::mutex mu_;
  std::vector<event_row> rows_;
  std::uint64_t last_ = 0;
};

// A watcher that records what it is given; it asks for more at once unless held (then it
// stops after the first page with events).
struct recorder {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<msg::watch_event> events;
  std::vector<std::uint64_t> lasts;  // of every page
  std::optional<error> ended;
  bool hold = false;
  std::function<void()> more;  // while held

  watch_sink sink() {
    return {[this](msg::watch_reply page, std::function<void()> next) {
              std::unique_lock lock{mu};
              events.insert(events.end(), page.events.begin(), page.events.end());
              lasts.push_back(page.last);
              if (hold && !page.events.empty()) {
                more = std::move(next);
              } else {
                lock.unlock();
                next();
                lock.lock();
              }
              changed.notify_all();
            },
            [this](error why) {
              std::lock_guard lock{mu};
              ended = std::move(why);
              changed.notify_all();
            }};
  }
  // Waits (without a deadline of its own: ctest's timeout is the bound) until `done`, or
  // until the watch ended (which the test then finds).
  template <class Pred>
  void wait(Pred done) {
    std::unique_lock lock{mu};
    changed.wait(lock, [&] { return done(*this) || ended.has_value(); });
  }
  std::vector<std::uint64_t> ids() {
    std::lock_guard lock{mu};
    std::vector<std::uint64_t> out;
    for (const auto& e : events)
      out.push_back(e.id);
    return out;
  }
};

std::vector<std::uint64_t> range(std::uint64_t from, std::uint64_t to) {
  std::vector<std::uint64_t> out;
  for (auto i = from; i <= to; ++i)
    out.push_back(i);
  return out;
}

class event_feed_test : public ::testing::Test {
 protected:
  void start(event_feed::settings s = {100, 8, 10, 86400}) {
    feed_ = event_feed::start(&store_, s);
  }
  void TearDown() override {
    if (feed_) feed_->stop();  // before the recorders go: no call reaches one after
  }
  // A recorder that outlives the feed's thread (the fixture owns it).
  recorder& rec() { return recorders_.emplace_back(); }
  std::deque<recorder> recorders_;
  void publish(int n, const std::string& owner = "alice",
               const std::string& kind = "reservation.created") {
    feed_->publish(store_.append(n, owner, kind));
  }
  memory_events store_;
  std::shared_ptr<event_feed> feed_;
};

TEST_F(event_feed_test, AWatcherFromNowGetsEveryNewEventOnceInOrderPageByPage) {
  store_.append(5);  // before the feed started: not "new"
  start();
  auto& r = rec();
  auto h = feed_->open({}, -1, r.sink());
  ASSERT_TRUE(h) << h.err().message;
  for (int i = 0; i < 5; ++i)
    publish(7);  // 35 events, pages of at most 8
  r.wait([](recorder& x) { return x.events.size() >= 35; });
  EXPECT_EQ(r.ids(), range(6, 40));
  EXPECT_FALSE(r.ended);
  std::lock_guard lock{r.mu};
  EXPECT_EQ(r.lasts.front(), 5u);  // the first page says where it starts
  EXPECT_EQ(r.lasts.back(), 40u);
  EXPECT_GE(r.lasts.size(), 1u + 35u / 8u);  // pages of at most 8
}

TEST_F(event_feed_test, AWatcherSeesOnlyItsOwnersEventsOfItsKinds) {
  start();
  auto& alice = rec();
  auto& jobs = rec();
  ASSERT_TRUE(feed_->open({"alice", {}}, -1, alice.sink()));
  ASSERT_TRUE(feed_->open({"", {"grid_job"}}, -1, jobs.sink()));
  publish(3, "bob");
  publish(2, "alice", "grid_job.migrated");
  publish(2, "bob", "grid_job.resubmitted");
  publish(1, "alice");
  alice.wait([](recorder& x) { return x.events.size() >= 3; });
  jobs.wait([](recorder& x) { return x.events.size() >= 4; });
  EXPECT_EQ(alice.ids(), (std::vector<std::uint64_t>{4, 5, 8}));
  EXPECT_EQ(jobs.ids(), (std::vector<std::uint64_t>{4, 5, 6, 7}));
  // "grid_job" is a family: "grid_jobs.x" or "grid_job" itself would not be of it.
  watch_filter f{"", {"grid_job"}};
  event_row e;
  e.kind = "grid_jobs.x";
  EXPECT_FALSE(f.matches(e));
  e.kind = "grid_job.ended";
  EXPECT_TRUE(f.matches(e));
}

TEST_F(event_feed_test, AWatcherResumesAfterItsLastIdWithoutLosingOrRepeatingOne) {
  start();
  auto& first = rec();
  auto h = feed_->open({}, -1, first.sink());
  ASSERT_TRUE(h);
  publish(10);
  first.wait([](recorder& x) { return x.events.size() >= 10; });
  (*h)->cancel();  // the connection drops ...
  publish(150);    // ... events go on (more than the ring keeps: the rest from the store)
  auto& again = rec();
  ASSERT_TRUE(feed_->open({}, 10, again.sink()));
  publish(5);
  again.wait([](recorder& x) { return x.events.size() >= 155; });
  EXPECT_EQ(first.ids(), range(1, 10));  // nothing after the cancel
  EXPECT_EQ(again.ids(), range(11, 165));
  EXPECT_FALSE(again.ended);
}

TEST_F(event_feed_test, SinceZeroReadsEverythingKeptAndSinceBeyondTheLastIsRefused) {
  store_.append(20);
  start();
  auto& all = rec();
  ASSERT_TRUE(feed_->open({}, 0, all.sink()));
  all.wait([](recorder& x) { return x.events.size() >= 20; });
  EXPECT_EQ(all.ids(), range(1, 20));
  auto& r = rec();
  auto ahead = feed_->open({}, 21, r.sink());
  ASSERT_FALSE(ahead);
  EXPECT_EQ(ahead.err().code, errc::invalid_parameter);
  EXPECT_NE(ahead.err().message.find("the last is 20"), std::string::npos);
}

TEST_F(event_feed_test, ResumingAfterEventsPastTheRetentionIsRefusedAsGone) {
  store_.append(20);
  ASSERT_TRUE(store_.purge_events(at_of(11)));  // events 1..10 are gone
  start();
  auto& r = rec();
  auto late = feed_->open({}, 5, r.sink());
  ASSERT_FALSE(late);
  EXPECT_EQ(late.err().code, errc::gone);
  EXPECT_NE(late.err().message.find("oldest kept is 11"), std::string::npos);
  auto just = feed_->open({}, 10, r.sink());  // nothing lost from 10 on
  ASSERT_TRUE(just) << just.err().message;
  r.wait([](recorder& x) { return x.events.size() >= 10; });
  EXPECT_EQ(r.ids(), range(11, 20));
}

TEST_F(event_feed_test, AWatcherLeftBehindByTheBufferIsCutOffAndMayResumeFromTheStore) {
  start({100, 8, 10, 86400});
  auto& slow = rec();
  auto& quick = rec();
  slow.hold = true;  // reads one page, then nothing
  ASSERT_TRUE(feed_->open({}, -1, slow.sink()));
  ASSERT_TRUE(feed_->open({}, -1, quick.sink()));
  publish(3);
  slow.wait([](recorder& x) { return x.more != nullptr; });
  publish(150);  // the ring (100) moves past the slow one's cursor
  quick.wait([](recorder& x) { return x.events.size() >= 153; });
  EXPECT_EQ(quick.ids(), range(1, 153));
  EXPECT_EQ(slow.ids(), range(1, 3));  // nothing held for it meanwhile
  {
    std::lock_guard lock{slow.mu};
    slow.hold = false;
  }
  slow.more();  // it asks at last
  slow.wait([](recorder& x) { return x.ended.has_value(); });
  EXPECT_EQ(slow.ended->code, errc::slow_consumer);
  EXPECT_NE(slow.ended->message.find("since 3"), std::string::npos) << slow.ended->message;
  EXPECT_EQ(feed_->watchers(), 1u);
  auto& resumed = rec();
  ASSERT_TRUE(feed_->open({}, 3, resumed.sink()));
  resumed.wait([](recorder& x) { return x.events.size() >= 150; });
  EXPECT_EQ(resumed.ids(), range(4, 153));
}

// A user's watcher reads that user's events from the ring's index: others' events passing the
// ring while it holds a page do not make it slow (none of its was let go), and it is woken only
// by its user's events.
TEST_F(event_feed_test, OthersEventsPassingTheRingDoNotCutAUsersWatcher) {
  start({100, 8, 10, 86400});
  auto& alice = rec();
  alice.hold = true;
  ASSERT_TRUE(feed_->open({"alice", {}}, -1, alice.sink()));
  publish(2, "alice");
  alice.wait([](recorder& x) { return x.more != nullptr; });
  publish(300, "bob");  // the ring (100) passes alice's cursor with none of hers
  publish(1, "alice");
  {
    std::lock_guard lock{alice.mu};
    alice.hold = false;
  }
  alice.more();
  alice.wait([](recorder& x) { return x.events.size() >= 3; });
  EXPECT_FALSE(alice.ended);
  EXPECT_EQ(alice.ids(), (std::vector<std::uint64_t>{1, 2, 303}));
}

TEST_F(event_feed_test, WatchersBeyondTheLimitAreRefusedAndCloseEndsEveryWatch) {
  start({100, 8, 2, 86400});
  auto& a = rec();
  auto& b = rec();
  auto& c = rec();
  ASSERT_TRUE(feed_->open({}, -1, a.sink()));
  auto hb = feed_->open({}, -1, b.sink());
  ASSERT_TRUE(hb);
  auto refused = feed_->open({}, -1, c.sink());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::busy);
  (*hb)->cancel();  // a place frees up
  ASSERT_TRUE(feed_->open({}, -1, c.sink()));
  feed_->stop();
  EXPECT_EQ(a.ended->code, errc::unreachable);
  EXPECT_EQ(c.ended->code, errc::unreachable);
  EXPECT_FALSE(b.ended);  // cancelled: told nothing
  auto after = feed_->open({}, -1, b.sink());
  ASSERT_FALSE(after);
  EXPECT_EQ(after.err().code, errc::unreachable);
}

}  // namespace
}  // namespace arbroker::node_detail
