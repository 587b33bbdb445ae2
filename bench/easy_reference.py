#!/usr/bin/env python3
"""A plain EASY backfilling simulator written without arbroker: the yardstick for the replay's
speed (docs/performance.md, "Replay speed against a plain EASY reference").

    easy_reference.py TRACE.swf[.gz] [--cpus N] [--walltime-rule kill|extend] [--loose]

It replays the same jobs as bench/sim_replay_bench.cpp (run time > 0, processors 1..CPUS; the
processors asked for, else those allocated), or with --loose those of arb-sim's loose
soundness (run time > 0, processors known, not interactive (queue 0), processors clamped to
the machine), by the same rules (walltime: the requested time,
or the run time when unknown; `extend` takes max(requested, run); a job is killed at its
walltime), so both print the same mean wait and utilization. It is deliberately
straightforward: the queue is a list scanned in full at every event, the shadow time comes
from sorting the running jobs, and nothing is incremental. Only the standard library.
"""

import argparse
import gzip
import heapq
import time


def read_trace(path):
    """The SWF header's MaxProcs and the records as (submit, run, procs, requested, queue)."""
    opener = gzip.open if path.endswith(".gz") else open
    max_procs, records = 0, []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(";"):
                if line[1:].strip().startswith("MaxProcs:"):
                    max_procs = int(line.split(":", 1)[1])
                continue
            fields = line.split()
            if len(fields) < 18:
                continue
            requested, allocated = int(fields[7]), int(fields[4])
            procs = requested if requested > 0 else allocated
            records.append((int(fields[1]), int(fields[3]), procs, int(fields[8]),
                            int(fields[14])))
    return max_procs, records


def replay(records, cpus, extend, loose):
    """EASY over the records; returns (jobs, mean wait, busy CPU-s, first submit, last end)."""
    free = cpus
    queue = []  # [submit, np, walltime, runtime], head first
    running = {}  # job number -> (expected end, np)
    ends = []  # heap of (actual end, job number)
    waits = []
    busy = 0
    last_end = 0
    number = 0

    def start(job, t):
        nonlocal free, busy, number
        submit, np, walltime, runtime = job
        number += 1
        free -= np
        running[number] = (t + walltime, np)
        end = t + min(runtime, walltime)
        heapq.heappush(ends, (end, number))
        waits.append(t - submit)
        busy += np * (end - t)

    def schedule(t):
        nonlocal queue, free
        while queue and queue[0][1] <= free:
            start(queue.pop(0), t)
        if len(queue) < 2:
            return
        head_np = queue[0][1]
        avail, shadow = free, None
        for expected_end, np in sorted(running.values()):
            if shadow is not None and expected_end > shadow:
                break
            avail += np
            if shadow is None and avail >= head_np:
                shadow = expected_end
        extra = avail - head_np
        kept = [queue[0]]
        for job in queue[1:]:
            np, walltime = job[1], job[2]
            before_shadow = t + walltime <= shadow
            if free > 0 and np <= free and (before_shadow or np <= extra):
                start(job, t)
                if not before_shadow:
                    extra -= np
            else:
                kept.append(job)
        queue = kept

    def advance(now):
        nonlocal free, last_end
        while ends and ends[0][0] <= now:
            t = ends[0][0]
            while ends and ends[0][0] == t:
                _, n = heapq.heappop(ends)
                free += running.pop(n)[1]
            last_end = max(last_end, t)
            schedule(t)

    now = records[0][0] if records else 0
    first_submit, jobs = now, 0
    for submit, run, procs, requested, swf_queue in records:
        if loose:
            if run <= 0 or procs < 1 or swf_queue == 0:
                continue
            procs = min(procs, cpus)
        elif run <= 0 or procs < 1 or procs > cpus:
            continue
        asked = requested if requested > 0 else run
        walltime = max(asked, run) if extend else asked
        now = max(now, submit)
        advance(now)
        queue.append([now, procs, walltime, run])
        jobs += 1
        schedule(now)
    advance(float("inf"))
    return jobs, sum(waits) / max(len(waits), 1), busy, first_submit, last_end


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--cpus", type=int, default=0, help="default: the header's MaxProcs")
    p.add_argument("--walltime-rule", choices=["kill", "extend"], default="kill")
    p.add_argument("--loose", action="store_true", help="the jobs of arb-sim's loose soundness")
    a = p.parse_args()
    t0 = time.monotonic()
    max_procs, records = read_trace(a.trace)
    cpus = a.cpus or max_procs
    t1 = time.monotonic()
    jobs, mwt, busy, first, last = replay(records, cpus, a.walltime_rule == "extend", a.loose)
    t2 = time.monotonic()
    span = max(last - first, 1)
    print(f"reference EASY: {a.trace}: {cpus} CPUs, {jobs} jobs, walltime rule "
          f"{a.walltime_rule}{', loose' if a.loose else ''}: read {t1 - t0:.3f} s, replay {t2 - t1:.3f} s, "
          f"MWT {mwt:.0f} s, U {busy / (span * cpus):.3f}")


if __name__ == "__main__":
    main()
