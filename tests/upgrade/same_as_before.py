#!/usr/bin/env python3
"""same_as_before.py KIND FIXTURE_JSON ID NOW_JSON: prints "same", or what changed.

KIND is reservation (FIXTURE_JSON: `arb -o json list`, NOW_JSON: `arb -o json show ID`) or
job (`arb -o json jobs`, `arb -o json job show ID`). A state moves on with time (committed ->
active -> completed; a job's copies run or are lost when its simulated LRMS restarts): it is
compared only where it cannot have, while a reservation is still ahead or once a job ended.
"""
import json
import sys
import time

kind, fixture, wanted, now_text = sys.argv[1:5]
listed = "reservations" if kind == "reservation" else "jobs"
before = next(x for x in json.load(open(fixture))["result"][listed] if x["id"] == wanted)
now = json.loads(now_text)["result"][kind]
if kind == "reservation":
    keys = ["cluster", "owner", "start", "end", "np", "cost", "window_start", "window_end"]
    if before["state"] == "accepted":
        # A hold is not kept across a restart: past its expiry it has expired, before it the
        # transaction it was made for is presumed aborted (docs/operations.md).
        if now.get("state") not in ("expired", "cancelled"):
            print(f"state: a hold after the restart is {now.get('state')}, not released")
            sys.exit(0)
    elif before["state"] == "cancelled" or before["start"] > time.time():
        keys.append("state")
else:
    keys = ["owner", "name", "np", "walltime", "strategy", "submitted"]
    if before["state"] in ("cancelled", "completed", "failed"):
        keys.append("state")
diff = [f"{k}: {before.get(k)} -> {now.get(k)}" for k in keys if before.get(k) != now.get(k)]
print("; ".join(diff) if diff else "same")
