// arb-sim is a short process that allocates a few large arrays (the inflated trace, its
// records, the replay's tables), frees the first ones and touches every page of all of them.
// jemalloc's defaults return that memory to the kernel at once (allocations over 8 MB go to
// an arena that purges on free) and so the next array faults in fresh pages again; here
// nothing is purged (no decay) and large allocations come from the ordinary arenas, so the
// replay's tables reuse the trace's pages. No transparent huge pages: with the kernel's
// `defrag = madvise`, a huge-page fault may stall in direct compaction (0.1 s of system time
// on a 160,000-job trace, in about half the runs after another process freed its memory),
// where 4 KB faults cost the same every run (docs/performance.md, "Replay speed against a
// plain EASY reference"). jemalloc reads this at start-up; the MALLOC_CONF environment
// variable still overrides it, and without jemalloc (ARB_USE_JEMALLOC=OFF) nothing reads it.
extern "C" {
// NOLINTNEXTLINE: the name and type jemalloc looks for
const char* malloc_conf = "oversize_threshold:0,dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
