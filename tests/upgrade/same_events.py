#!/usr/bin/env python3
"""same_events.py FIXTURE_EVENTS < NOW_EVENTS: prints "same", or the first event that differs.

Both are `arb -o json watch` output, one event a line; the node of this build must give the
events the release wrote with the same ids, kinds, subjects and terms, in the same order.
"""
import json
import sys

KEYS = ["id", "at", "kind", "subject", "owner", "cluster", "state", "start", "end", "np"]
before = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
now = [json.loads(line) for line in sys.stdin if line.strip()]
if len(now) != len(before):
    print(f"{len(before)} events before, {len(now)} now")
    sys.exit(0)
for b, n in zip(before, now):
    diff = [f"{k}: {b.get(k)} -> {n.get(k)}" for k in KEYS if b.get(k) != n.get(k)]
    if diff:
        print(f"event {b.get('id')}: " + "; ".join(diff))
        sys.exit(0)
print("same")
