#ifndef STRATA_CJEMALLOC_SHIM_H
#define STRATA_CJEMALLOC_SHIM_H
// Debian's jemalloc has no je_ prefix: mallctl is exported as is.
#include <jemalloc/jemalloc.h>
#endif
