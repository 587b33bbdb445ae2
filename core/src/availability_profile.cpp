#include "arbroker/core/availability_profile.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "profile_rules.hpp"

namespace arbroker {

namespace {
constexpr const char* kWho = "availability_profile";
}

result<availability_profile> availability_profile::create(int total_cpus) {
  if (auto ok = detail::check_total(kWho, total_cpus); !ok) return ok.err();
  return availability_profile(total_cpus);
}

// ---------------------------------------------------------------------------------------
// Updates

status availability_profile::add(timestamp start, timestamp end, int np) {
  if (auto ok = detail::check_allocation("availability_profile::add", start, end, np); !ok)
    return ok.err();
  // Only the part after the origin is checked: the past is forgotten (advance_origin).
  const level free = end > origin_ ? total_ - max_used(start, end) : total_;
  if (free < np) return detail::over_capacity("availability_profile::add", start, end, np, free);
  apply(start, end, np);
  return {};
}

status availability_profile::remove(timestamp start, timestamp end, int np) {
  if (auto ok = detail::check_allocation("availability_profile::remove", start, end, np); !ok)
    return ok.err();
  const level used = end > origin_ ? min_used(start, end) : np;
  if (used < np) return detail::not_allocated("availability_profile::remove", start, end, np, used);
  apply(start, end, -np);
  return {};
}

void availability_profile::apply(timestamp start, timestamp end, level delta) {
  update(start, delta);
  update(end, -delta);
}

// Adds delta to the change point at key (creating it, or erasing it if its delta becomes 0),
// then rebalances the path back up to the root. Iterative: the path is at most 45 nodes
// deep (an AVL tree of 2^31 nodes), and these updates are the profile's hottest code.
void availability_profile::update(timestamp key, level delta) {
  if (key <= origin_) {  // the past: counted from the origin on, as a change of the base level
    base_ += delta;
    return;
  }
  std::array<index, 64> path;  // NOLINT: filled up to depth before it is read
  int depth = 0;
  index n = root_;
  while (n != nil && nodes_[n].key != key) {
    path[depth++] = n;
    n = key < nodes_[n].key ? nodes_[n].left : nodes_[n].right;
  }
  index sub;  // the new root of the subtree where key is
  if (n == nil) {
    sub = new_node(key, delta);
  } else {
    nodes_[n].delta += delta;
    sub = nodes_[n].delta == 0 ? erase_node(n) : rebalance(n);
  }
  while (depth > 0) {
    const index parent = path[--depth];
    if (key < nodes_[parent].key)
      nodes_[parent].left = sub;
    else
      nodes_[parent].right = sub;
    sub = rebalance(parent);
  }
  root_ = sub;
}

// Folds the change points at or before t into the base level: they are the past.
void availability_profile::advance_origin(timestamp t) {
  if (t <= origin_) return;
  origin_ = t;
  while (root_ != nil) {
    index first = root_;
    while (nodes_[first].left != nil)
      first = nodes_[first].left;
    if (nodes_[first].key > t) return;
    base_ += nodes_[first].delta;
    index removed = nil;
    root_ = remove_min(root_, removed);
    free_node(removed);
  }
}

availability_profile::index availability_profile::erase_node(index n) {
  const index l = nodes_[n].left;
  const index r = nodes_[n].right;
  free_node(n);
  if (l == nil) return r;
  if (r == nil) return l;
  index successor = nil;
  const index rest = remove_min(r, successor);
  nodes_[successor].left = l;
  nodes_[successor].right = rest;
  return rebalance(successor);
}

availability_profile::index availability_profile::remove_min(index n, index& min_node) {
  if (nodes_[n].left == nil) {
    min_node = n;
    return nodes_[n].right;
  }
  const index child = remove_min(nodes_[n].left, min_node);
  nodes_[n].left = child;
  return rebalance(n);
}

availability_profile::index availability_profile::rebalance(index n) {
  const int balance = pull(n);
  if (balance > 1) {
    const index l = nodes_[n].left;
    if (height(nodes_[l].left) < height(nodes_[l].right)) nodes_[n].left = rotate_left(l);
    return rotate_right(n);
  }
  if (balance < -1) {
    const index r = nodes_[n].right;
    if (height(nodes_[r].right) < height(nodes_[r].left)) nodes_[n].right = rotate_right(r);
    return rotate_left(n);
  }
  return n;
}

availability_profile::index availability_profile::rotate_left(index n) {
  const index r = nodes_[n].right;
  nodes_[n].right = nodes_[r].left;
  nodes_[r].left = n;
  pull(n);
  pull(r);
  return r;
}

availability_profile::index availability_profile::rotate_right(index n) {
  const index l = nodes_[n].left;
  nodes_[n].left = nodes_[l].right;
  nodes_[l].right = n;
  pull(n);
  pull(l);
  return l;
}

// Recomputes the augmentation of n from its children; returns n's balance (left height
// minus right height), which rebalance needs and pull has at hand.
int availability_profile::pull(index n) {
  node& x = nodes_[n];
  level at_self = x.delta;
  level max_prefix = 0;
  level min_prefix = 0;
  int left_height = 0;
  int right_height = 0;
  if (x.left != nil) {
    const node& l = nodes_[x.left];
    at_self += l.sum;
    max_prefix = std::max(l.max_prefix, at_self);
    min_prefix = std::min(l.min_prefix, at_self);
    left_height = l.height;
  } else {
    max_prefix = at_self;
    min_prefix = at_self;
  }
  level sum = at_self;
  if (x.right != nil) {
    const node& r = nodes_[x.right];
    max_prefix = std::max(max_prefix, at_self + r.max_prefix);
    min_prefix = std::min(min_prefix, at_self + r.min_prefix);
    sum += r.sum;
    right_height = r.height;
  }
  x.sum = sum;
  x.max_prefix = max_prefix;
  x.min_prefix = min_prefix;
  x.height = 1 + std::max(left_height, right_height);
  return left_height - right_height;
}

availability_profile::index availability_profile::new_node(timestamp key, level delta) {
  index n;
  if (!free_list_.empty()) {
    n = free_list_.back();
    free_list_.pop_back();
  } else {
    n = static_cast<index>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[n] = node{key, delta, delta, delta, delta, nil, nil, 1};
  ++size_;
  return n;
}

void availability_profile::free_node(index n) {
  free_list_.push_back(n);  // new_node sets every field when it takes the slot again
  --size_;
}

// ---------------------------------------------------------------------------------------
// Queries

// The base level and the deltas at keys <= t.
availability_profile::level availability_profile::used_at(timestamp t) const {
  if (t <= origin_) return base_;  // every change point of the tree lies after the origin
  level used = base_;
  index n = root_;
  while (n != nil) {
    const node& x = nodes_[n];
    if (x.key <= t) {
      used += (x.left == nil ? 0 : nodes_[x.left].sum) + x.delta;
      n = x.right;
    } else {
      n = x.left;
    }
  }
  return used;
}

// used(a) and the extremes of used at the change points in (a, b), in one descent: down to
// the first key inside (a, b), where the search paths of a and b part, then down each path.
// Prefix sums are absolute, so the subtrees and keys the two paths pass over can be taken
// in any order. Visits O(height) nodes.
availability_profile::window_levels availability_profile::window(timestamp a, timestamp b) const {
  window_levels w;
  const auto see = [&w](level lo, level hi) {
    w.max_inside = w.any_inside ? std::max(w.max_inside, hi) : hi;
    w.min_inside = w.any_inside ? std::min(w.min_inside, lo) : lo;
    w.any_inside = true;
  };
  level base = base_;  // the base level and the deltas before the subtree of n
  index n = root_;
  while (n != nil) {
    const node& x = nodes_[n];
    if (x.key <= a) {
      base += sum_of(x.left) + x.delta;
      n = x.right;
    } else if (x.key >= b) {
      n = x.left;
    } else {
      break;
    }
  }
  if (n == nil) {
    w.at_a = base;
    return w;
  }
  const node& split = nodes_[n];
  const level at_split = base + sum_of(split.left) + split.delta;
  see(at_split, at_split);
  // The path of a in the left subtree: keys after a with their right subtrees; used(a).
  for (index m = split.left; m != nil;) {
    const node& x = nodes_[m];
    if (x.key <= a) {
      base += sum_of(x.left) + x.delta;
      m = x.right;
      continue;
    }
    const level at = base + sum_of(x.left) + x.delta;
    see(at, at);
    if (x.right != nil) see(at + nodes_[x.right].min_prefix, at + nodes_[x.right].max_prefix);
    m = x.left;
  }
  w.at_a = base;
  // The path of b in the right subtree: keys before b with their left subtrees.
  level right_base = at_split;
  for (index m = split.right; m != nil;) {
    const node& x = nodes_[m];
    if (x.key >= b) {
      m = x.left;
      continue;
    }
    if (x.left != nil)
      see(right_base + nodes_[x.left].min_prefix, right_base + nodes_[x.left].max_prefix);
    right_base += sum_of(x.left) + x.delta;
    see(right_base, right_base);
    m = x.right;
  }
  return w;
}

// Maximum of used over [a, b): used(a), and used at every change point in (a, b).
availability_profile::level availability_profile::max_used(timestamp a, timestamp b) const {
  // From the origin on, with no change point that raises the level above the base (no
  // allocation starts later: a replay without reservations), the level at the origin is
  // the maximum of every window that starts there: O(1).
  if (a <= origin_ && (root_ == nil || nodes_[root_].max_prefix <= 0)) return base_;
  const window_levels w = window(a, b);
  return w.any_inside ? std::max(w.at_a, w.max_inside) : w.at_a;
}

availability_profile::level availability_profile::min_used(timestamp a, timestamp b) const {
  const window_levels w = window(a, b);
  return w.any_inside ? std::min(w.at_a, w.min_inside) : w.at_a;
}

// Whether subtree n, whose keys are preceded by deltas summing to base, has a key k at which
// used(k) > threshold (above) or used(k) <= threshold (!above).
bool availability_profile::may_hit(index n, level base, level threshold, bool above) const {
  if (n == nil) return false;
  return above ? base + nodes_[n].max_prefix > threshold : base + nodes_[n].min_prefix <= threshold;
}

// A position in the tree from which to search forward in time (a finger): the current
// change point (or a time between change points) and the ancestors still ahead of it, i.e.
// those whose left subtree holds the position. A search for the next change point at which
// used is above / not above a threshold looks into the current node's right subtree, then
// pops ancestors in key order, and descends (guided by the prefix extremes) into the first
// subtree that must hold a match. It touches only nodes between the two positions and
// their ancestors: O(log n) at worst, much less when the match is near. No allocation:
// an AVL tree of 2^31 nodes is at most 45 levels deep.
class availability_profile::cursor {
 public:
  explicit cursor(const availability_profile& p) : p_(p) {}

  // Positions the cursor just after the change points <= t; returns used(t).
  level seek(timestamp t) {
    depth_ = 0;
    current_ = nil;
    level base = p_.base_;
    index n = p_.root_;
    while (n != nil) {
      const node& x = p_.nodes_[n];
      if (x.key <= t) {
        base += p_.sum_of(x.left) + x.delta;
        n = x.right;
      } else {
        ahead_[depth_++] = {n, base};
        n = x.left;
      }
    }
    used_ = base;
    return used_;
  }

  // The first change point after the position at which used > threshold (above) or
  // used <= threshold (!above); the cursor moves there. nullopt (and the cursor is spent)
  // if there is none.
  std::optional<timestamp> next(level threshold, bool above) {
    if (current_ != nil) {
      const index r = p_.nodes_[current_].right;
      if (p_.may_hit(r, used_, threshold, above)) return descend(r, used_, threshold, above);
    }
    while (depth_ > 0) {
      const frame f = ahead_[--depth_];
      const node& x = p_.nodes_[f.n];
      const level at = f.base + p_.sum_of(x.left) + x.delta;
      if (above ? at > threshold : at <= threshold) {
        current_ = f.n;
        used_ = at;
        return x.key;
      }
      if (p_.may_hit(x.right, at, threshold, above)) return descend(x.right, at, threshold, above);
    }
    current_ = nil;
    return std::nullopt;
  }

 private:
  struct frame {
    index n;
    level base;  // sum of the deltas before the subtree of n
  };

  // Precondition: may_hit(n, base, threshold, above).
  timestamp descend(index n, level base, level threshold, bool above) {
    for (;;) {
      const node& x = p_.nodes_[n];
      if (p_.may_hit(x.left, base, threshold, above)) {
        ahead_[depth_++] = {n, base};
        n = x.left;
        continue;
      }
      const level at = base + p_.sum_of(x.left) + x.delta;
      if (above ? at > threshold : at <= threshold) {
        current_ = n;
        used_ = at;
        return x.key;
      }
      base = at;
      n = x.right;  // not nil: the match is in the right subtree
    }
  }

  const availability_profile& p_;
  std::array<frame, 64> ahead_{};
  int depth_ = 0;
  index current_ = nil;  // nil: between change points (after seek)
  level used_ = 0;       // used at the position
};

int availability_profile::free_at(timestamp t) const {
  return static_cast<int>(total_ - used_at(t));
}

bool availability_profile::fits(timestamp a, timestamp b, int np) const {
  if (a >= b) return false;
  return max_used(a, b) <= total_ - np;
}

result<int> availability_profile::min_free(timestamp a, timestamp b) const {
  if (auto ok = detail::check_window("availability_profile::min_free", a, b); !ok) return ok.err();
  return static_cast<int>(total_ - max_used(a, b));
}

// Last change point k < hi of subtree n (preceded by deltas summing to base) at which
// used(k) > threshold. Mirror image of the forward search: walks the search path of hi; of
// the last_busy_in calls it makes only the one that finds the key does more than O(1)
// work, so the whole search is O(height).
std::optional<timestamp> availability_profile::last_busy_before(index n, timestamp hi, level base,
                                                                level threshold) const {
  if (n == nil) return std::nullopt;
  const node& x = nodes_[n];
  if (x.key >= hi) return last_busy_before(x.left, hi, base, threshold);
  const level at = base + sum_of(x.left) + x.delta;
  if (auto k = last_busy_before(x.right, hi, at, threshold)) return k;
  if (at > threshold) return x.key;
  return last_busy_in(x.left, base, threshold);
}

std::optional<timestamp> availability_profile::last_busy_in(index n, level base,
                                                            level threshold) const {
  if (!may_hit(n, base, threshold, true)) return std::nullopt;
  while (n != nil) {
    const node& x = nodes_[n];
    const level at = base + sum_of(x.left) + x.delta;
    if (may_hit(x.right, at, threshold, true)) {
      base = at;
      n = x.right;
      continue;
    }
    if (at > threshold) return x.key;
    n = x.left;  // the match is in the left subtree
  }
  return std::nullopt;  // unreachable: may_hit promised a key
}

// The cursor sits on a busy change point b (used > threshold) inside the window of a start
// that does not fit. Returns the next start worth trying, or nullopt if none: the first
// change point g after b where used drops back to <= threshold, unless a later busy change
// point L lies in [g, g + dur), in which case every start up to L fails too and the search
// jumps to the first non-busy change point after L (skipping all the stretches that are too
// short in one go). Consecutive candidates thus move forward by at least dur every two
// rounds, besides stepping over at least one busy stretch per round.
std::optional<timestamp> availability_profile::next_candidate(cursor& c, duration dur,
                                                              level threshold) const {
  const auto g = c.next(threshold, false);
  if (!g) return std::nullopt;
  const timestamp window_end = detail::saturating_add(*g, dur);
  const auto last = last_busy_before(root_, window_end, base_, threshold);
  if (!last || *last < *g) return g;
  c.seek(*last);
  return c.next(threshold, false);
}

// A start s fits iff used(s) <= threshold and no change point k in (s, s + dur) has
// used(k) > threshold. From a candidate s, the cursor finds the first busy change point
// after s; if the window ends by it, s is the answer; otherwise next_candidate moves on.
// Each round is O(log n) at worst and steps over at least one busy stretch.
result<timestamp> availability_profile::earliest_start(timestamp t0, duration dur, int np,
                                                       timestamp deadline) const {
  constexpr const char* who = "availability_profile::earliest_start";
  if (auto ok = detail::check_request(who, dur, np); !ok) return ok.err();
  if (np > total_) return detail::too_many_cpus(who, np, total_);
  const level threshold = total_ - np;  // the most CPUs that may be used at a fitting instant
  cursor c(*this);
  timestamp s = t0;
  if (c.seek(s) > threshold) {
    const auto next = c.next(threshold, false);
    if (!next) return detail::no_start(who, t0, dur, np, deadline);
    s = *next;
  }
  for (;;) {
    if (!detail::ends_by(s, dur, deadline)) return detail::no_start(who, t0, dur, np, deadline);
    const auto busy = c.next(threshold, true);
    if (!busy || detail::ends_by(s, dur, *busy)) return s;
    const auto next = next_candidate(c, dur, threshold);
    if (!next) return detail::no_start(who, t0, dur, np, deadline);
    s = *next;
  }
}

// The same walk over stretches where used <= threshold, emitting the starts [s, busy - dur]
// of each stretch [s, busy) long enough; stretches too short are skipped as above (they
// contribute no start).
result<std::vector<start_interval>> availability_profile::feasible_starts(timestamp from,
                                                                          timestamp latest_start,
                                                                          duration dur,
                                                                          int np) const {
  constexpr const char* who = "availability_profile::feasible_starts";
  if (auto ok = detail::check_start_window(who, from, latest_start); !ok) return ok.err();
  if (auto ok = detail::check_request(who, dur, np); !ok) return ok.err();
  std::vector<start_interval> out;
  if (np > total_) return out;
  const level threshold = total_ - np;
  cursor c(*this);
  timestamp s = from;  // start of a stretch where used <= threshold (clipped to from)
  if (c.seek(s) > threshold) {
    const auto next = c.next(threshold, false);
    if (!next) return out;
    s = *next;
  }
  while (s <= latest_start) {
    const auto busy = c.next(threshold, true);
    if (!busy) {
      out.push_back({s, latest_start});
      break;
    }
    // Starts in [s, busy - dur] end by busy; busy - dur >= s cannot overflow then.
    if (detail::ends_by(s, dur, *busy)) out.push_back({s, std::min(*busy - dur, latest_start)});
    const auto next = next_candidate(c, dur, threshold);
    if (!next) break;
    s = *next;
  }
  return out;
}

}  // namespace arbroker
