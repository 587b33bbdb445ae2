#!/usr/bin/env python3
"""A noisy neighbour for the replay benchmarks: for SECONDS, keeps about 1.5 GB in buffers of
random sizes (4 KB to 3 MB, every page touched) and frees and allocates them at random, so
that the kernel's free memory is fragmented and a program that wants huge pages may stall in
direct compaction. It also takes about one CPU.

    memory_churn.py SECONDS

bench/replay_vs_reference.sh runs it with ARB_NEIGHBOUR_SECONDS (docs/performance.md,
"Replay speed against a plain EASY reference").
"""

import random
import sys
import time

PAGE = 4096
LIMIT = 1.5e9


def main():
    end = time.time() + float(sys.argv[1])
    rng = random.Random(1)
    pool, total = [], 0
    while time.time() < end:
        if total < LIMIT or rng.random() < 0.5:
            buf = bytearray(rng.randint(PAGE, 3 << 20))
            buf[::PAGE] = b"\x01" * len(range(0, len(buf), PAGE))  # touch every page
            pool.append(buf)
            total += len(buf)
        else:
            i = rng.randrange(len(pool))
            total -= len(pool[i])
            pool[i] = pool[-1]
            pool.pop()


if __name__ == "__main__":
    main()
