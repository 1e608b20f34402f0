// jemalloc's options for the benchmark executable, read by jemalloc when the process starts
// (`MALLOC_CONF` in the environment overrides them). See docs/benchmarks.md, "The allocator".
//
// lg_extent_max_active_fit:16 lets jemalloc split a large run of freed pages for a small
// request. With its default (6: a run at most 64 times the request), the pages a large fetch
// freed coalesce into runs it will not split for the next fetch's small objects, so every
// fetch of many objects took new pages from the kernel (a page fault each, zeroed), while the
// C library's malloc, which Strata uses in applications, reuses them.
#include "allocator_options.h"

const char *malloc_conf = STRATA_BENCHMARK_MALLOC_CONF;

const char *strata_benchmark_malloc_conf(void) { return malloc_conf; }
