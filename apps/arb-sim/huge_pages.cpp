// arb-sim reads a whole trace and keeps a record of every job: large arrays, allocated once
// and all touched. Transparent huge pages for jemalloc's memory turn the ~16,000 page faults
// of a 120,000-job replay into ~700, about a tenth of its CPU time (docs/performance.md,
// "Replay speed against a plain EASY reference"). jemalloc reads this at start-up; the
// MALLOC_CONF environment variable still overrides it, and without jemalloc
// (ARB_USE_JEMALLOC=OFF) nothing reads it.
extern "C" {
// NOLINTNEXTLINE: the name and type jemalloc looks for
const char* malloc_conf = "thp:always,metadata_thp:always";
}
