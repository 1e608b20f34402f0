// The module's functions are `static inline` in include/CStrataMemory.h, inlined into their
// Swift callers; this file gives the target the source file SwiftPM requires.
#include "CStrataMemory.h"

/// The module's version, so that this translation unit declares something.
const int strata_memory_module_version = 1;
