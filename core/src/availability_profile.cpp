#include "arbroker/core/availability_profile.hpp"

#include <algorithm>
#include <limits>

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
  const level free = total_ - max_used(start, end);
  if (free < np) return detail::over_capacity("availability_profile::add", start, end, np, free);
  apply(start, end, np);
  return {};
}

status availability_profile::remove(timestamp start, timestamp end, int np) {
  if (auto ok = detail::check_allocation("availability_profile::remove", start, end, np); !ok)
    return ok.err();
  const level used = min_used(start, end);
  if (used < np) return detail::not_allocated("availability_profile::remove", start, end, np, used);
  apply(start, end, -np);
  return {};
}

void availability_profile::apply(timestamp start, timestamp end, level delta) {
  root_ = update(root_, start, delta);
  root_ = update(root_, end, -delta);
}

// Adds delta to the change point at key (creating it, or erasing it if its delta becomes 0)
// in the subtree rooted at n; returns the new root of that subtree, rebalanced.
availability_profile::index availability_profile::update(index n, timestamp key, level delta) {
  if (n == nil) return new_node(key, delta);
  if (key < nodes_[n].key) {
    const index child = update(nodes_[n].left, key, delta);
    nodes_[n].left = child;
  } else if (key > nodes_[n].key) {
    const index child = update(nodes_[n].right, key, delta);
    nodes_[n].right = child;
  } else {
    nodes_[n].delta += delta;
    if (nodes_[n].delta == 0) return erase_node(n);
  }
  return rebalance(n);
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
  pull(n);
  const int balance = height(nodes_[n].left) - height(nodes_[n].right);
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

// Recomputes the augmentation of n from its children.
void availability_profile::pull(index n) {
  node& x = nodes_[n];
  const node* l = x.left == nil ? nullptr : &nodes_[x.left];
  const node* r = x.right == nil ? nullptr : &nodes_[x.right];
  const level at_self = (l ? l->sum : 0) + x.delta;
  x.max_prefix = at_self;
  x.min_prefix = at_self;
  if (l) {
    x.max_prefix = std::max(x.max_prefix, l->max_prefix);
    x.min_prefix = std::min(x.min_prefix, l->min_prefix);
  }
  if (r) {
    x.max_prefix = std::max(x.max_prefix, at_self + r->max_prefix);
    x.min_prefix = std::min(x.min_prefix, at_self + r->min_prefix);
  }
  x.sum = at_self + (r ? r->sum : 0);
  x.height = 1 + std::max(l ? l->height : 0, r ? r->height : 0);
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
  nodes_[n] = node{};
  free_list_.push_back(n);
  --size_;
}

// ---------------------------------------------------------------------------------------
// Queries

// Sum of the deltas at keys <= t.
availability_profile::level availability_profile::used_at(timestamp t) const {
  level used = 0;
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

// Summary of the keys k of subtree n with lo < k < hi. check_lo / check_hi say whether the
// bound can still cut the subtree; once neither can, the node's own augmentation answers.
// Visits O(height) nodes: two root-to-leaf paths.
availability_profile::summary availability_profile::range(index n, timestamp lo, timestamp hi,
                                                          bool check_lo, bool check_hi) const {
  if (n == nil) return {};
  const node& x = nodes_[n];
  if (!check_lo && !check_hi) return {false, x.sum, x.max_prefix, x.min_prefix};
  if (check_lo && x.key <= lo) return range(x.right, lo, hi, true, check_hi);
  if (check_hi && x.key >= hi) return range(x.left, lo, hi, check_lo, true);
  summary out = range(x.left, lo, hi, check_lo, false);
  const auto append = [&out](const summary& s) {
    if (s.empty) return;
    if (out.empty) {
      out = s;
      return;
    }
    out.max_prefix = std::max(out.max_prefix, out.sum + s.max_prefix);
    out.min_prefix = std::min(out.min_prefix, out.sum + s.min_prefix);
    out.sum += s.sum;
  };
  append({false, x.delta, x.delta, x.delta});
  append(range(x.right, lo, hi, false, check_hi));
  return out;
}

// Maximum of used over [a, b): used(a), and used at every change point in (a, b).
availability_profile::level availability_profile::max_used(timestamp a, timestamp b) const {
  const level at_a = used_at(a);
  const summary inside = range(root_, a, b, true, true);
  return inside.empty ? at_a : std::max(at_a, at_a + inside.max_prefix);
}

availability_profile::level availability_profile::min_used(timestamp a, timestamp b) const {
  const level at_a = used_at(a);
  const summary inside = range(root_, a, b, true, true);
  return inside.empty ? at_a : std::min(at_a, at_a + inside.min_prefix);
}

// Whether subtree n, whose keys are preceded by deltas summing to base, has a key k at which
// used(k) > threshold (above) or used(k) <= threshold (!above).
bool availability_profile::may_hit(index n, level base, level threshold, bool above) const {
  if (n == nil) return false;
  return above ? base + nodes_[n].max_prefix > threshold : base + nodes_[n].min_prefix <= threshold;
}

// First key of subtree n (preceded by deltas summing to base) at which used > threshold
// (above) or used <= threshold (!above). One root-to-leaf descent guided by the prefix
// extremes.
std::optional<timestamp> availability_profile::first_in(index n, level base, level threshold,
                                                        bool above) const {
  if (!may_hit(n, base, threshold, above)) return std::nullopt;
  while (n != nil) {
    const node& x = nodes_[n];
    if (may_hit(x.left, base, threshold, above)) {
      n = x.left;
      continue;
    }
    const level at = base + (x.left == nil ? 0 : nodes_[x.left].sum) + x.delta;
    if (above ? at > threshold : at <= threshold) return x.key;
    base = at;
    n = x.right;
  }
  return std::nullopt;  // unreachable: may_hit promised a key
}

// Like first_in, restricted to keys > lo. Walks the search path of lo; at most one of the
// first_in calls it makes does more than O(1) work (the one that finds the key), so the
// whole search is O(height).
std::optional<timestamp> availability_profile::first_after(index n, timestamp lo, level base,
                                                           level threshold, bool above) const {
  if (n == nil) return std::nullopt;
  const node& x = nodes_[n];
  const level at = base + (x.left == nil ? 0 : nodes_[x.left].sum) + x.delta;
  if (x.key <= lo) return first_after(x.right, lo, at, threshold, above);
  if (auto k = first_after(x.left, lo, base, threshold, above)) return k;
  if (above ? at > threshold : at <= threshold) return x.key;
  return first_in(x.right, at, threshold, above);
}

std::optional<timestamp> availability_profile::first_key_after(timestamp lo, level threshold,
                                                               bool above) const {
  return first_after(root_, lo, 0, threshold, above);
}

int availability_profile::free_at(timestamp t) const {
  return static_cast<int>(total_ - used_at(t));
}

result<int> availability_profile::min_free(timestamp a, timestamp b) const {
  if (auto ok = detail::check_window("availability_profile::min_free", a, b); !ok) return ok.err();
  return static_cast<int>(total_ - max_used(a, b));
}

// A start s fits iff used(s) <= threshold and no change point k in (s, s + dur) has
// used(k) > threshold. From a candidate s, find the first "busy" key after s; if the window
// ends before it, s is the answer; otherwise the next candidate is the first key after the
// busy one where used drops back to <= threshold. Each round is O(log n) and steps over one
// busy stretch.
result<timestamp> availability_profile::earliest_start(timestamp t0, duration dur, int np,
                                                       timestamp deadline) const {
  constexpr const char* who = "availability_profile::earliest_start";
  if (auto ok = detail::check_request(who, dur, np); !ok) return ok.err();
  if (np > total_) return detail::too_many_cpus(who, np, total_);
  const level threshold = total_ - np;  // the most CPUs that may be used at a fitting instant
  timestamp s = t0;
  if (used_at(s) > threshold) {
    const auto next = first_key_after(s, threshold, false);
    if (!next) return detail::no_start(who, t0, dur, np, deadline);
    s = *next;
  }
  for (;;) {
    if (!detail::ends_by(s, dur, deadline)) return detail::no_start(who, t0, dur, np, deadline);
    const auto busy = first_key_after(s, threshold, true);
    if (!busy || detail::ends_by(s, dur, *busy)) return s;
    const auto next = first_key_after(*busy, threshold, false);
    if (!next) return detail::no_start(who, t0, dur, np, deadline);
    s = *next;
  }
}

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
  timestamp s = from;  // start of a stretch where used <= threshold
  if (used_at(s) > threshold) {
    const auto next = first_key_after(s, threshold, false);
    if (!next) return out;
    s = *next;
  }
  while (s <= latest_start) {
    const auto busy = first_key_after(s, threshold, true);
    if (!busy) {
      out.push_back({s, latest_start});
      break;
    }
    // Starts in [s, busy - dur] end by busy; busy - dur >= s cannot overflow then.
    if (detail::ends_by(s, dur, *busy)) out.push_back({s, std::min(*busy - dur, latest_start)});
    const auto next = first_key_after(*busy, threshold, false);
    if (!next) break;
    s = *next;
  }
  return out;
}

}  // namespace arbroker
