#ifndef STRATA_BENCHMARK_ALLOCATOR_OPTIONS_H
#define STRATA_BENCHMARK_ALLOCATOR_OPTIONS_H

/// The options the benchmark executable gives jemalloc (allocator_options.c).
#define STRATA_BENCHMARK_MALLOC_CONF "lg_extent_max_active_fit:16"

/// The options string jemalloc reads at start-up as `malloc_conf` (the executable links it by
/// calling this).
const char *strata_benchmark_malloc_conf(void);

#endif
