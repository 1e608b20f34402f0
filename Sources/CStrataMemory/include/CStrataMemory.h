#ifndef STRATA_CSTRATAMEMORY_H
#define STRATA_CSTRATAMEMORY_H

/// Asks the processor to start loading the cache line at `address` for a read soon: a hint,
/// which never faults, even for an address that is not mapped. Swift has no spelling for it.
/// Inlined into its Swift callers (the Clang importer emits the body).
static inline void strata_prefetch_for_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
