// Pages of history from several sources (the node's store, agents' stores) merged into one
// listing: whatever the sources' sizes and interleavings, reading page after page gives
// every finished reservation once, newest first, and ends.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "history.hpp"

namespace arbroker::detail {
namespace {

using rows = std::vector<msg::reservation_info>;

msg::reservation_info finished(timestamp at, std::string id) {
  msg::reservation_info r;
  r.id = std::move(id);
  r.finished = at;
  return r;
}

/// One source's page as a store gives it: rows before the cursor, newest first, `limit` at
/// most, and its next cursor when the page is full.
history_page page_of(rows all, const std::string& before, std::size_t limit) {
  const auto newer = [](const auto& a, const auto& b) {
    return std::tie(a.finished, a.id) > std::tie(b.finished, b.id);
  };
  std::sort(all.begin(), all.end(), newer);
  history_page p;
  for (auto& r : all) {
    if (!before.empty()) {
      auto c = parse_history_cursor(before);
      if (!c || std::tie(r.finished, r.id) >= std::tie(c->first, c->second)) continue;
    }
    if (p.rows.size() == limit) break;
    p.rows.push_back(r);
  }
  if (p.rows.size() == limit)
    p.next = std::to_string(p.rows.back().finished) + ":" + p.rows.back().id;
  return p;
}

TEST(history_merge, EveryRowOnceNewestFirstAcrossSources) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int sources = 1 + static_cast<int>(rng() % 4);
    const std::size_t limit = 1 + rng() % 7;
    std::vector<rows> data(static_cast<std::size_t>(sources));
    rows everything;
    for (int s = 0; s < sources; ++s)
      for (int i = static_cast<int>(rng() % 20); i > 0; --i) {
        // Few distinct times: ties between sources and within one are common.
        auto r = finished(1000 + static_cast<timestamp>(rng() % 12),
                          "c" + std::to_string(s) + "/" + std::to_string(i));
        data[static_cast<std::size_t>(s)].push_back(r);
        everything.push_back(r);
      }
    std::sort(everything.begin(), everything.end(), [](const auto& a, const auto& b) {
      return std::tie(a.finished, a.id) > std::tie(b.finished, b.id);
    });
    rows listed;
    std::string cursor;
    for (int pages = 0;; ++pages) {
      ASSERT_LT(pages, 100) << "the pages never end";
      std::vector<history_page> got;
      for (const auto& d : data)
        got.push_back(page_of(d, cursor, limit));
      auto merged = merge_history_pages(std::move(got), limit);
      EXPECT_LE(merged.rows.size(), limit);
      listed.insert(listed.end(), merged.rows.begin(), merged.rows.end());
      if (merged.next.empty()) break;
      ASSERT_FALSE(merged.rows.empty()) << "a page without rows that is not the last";
      cursor = merged.next;
    }
    ASSERT_EQ(listed.size(), everything.size()) << "trial " << trial;
    for (std::size_t i = 0; i < listed.size(); ++i)
      EXPECT_EQ(listed[i].id, everything[i].id) << "trial " << trial << ", row " << i;
  }
}

}  // namespace
}  // namespace arbroker::detail
