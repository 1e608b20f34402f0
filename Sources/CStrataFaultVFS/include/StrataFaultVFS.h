// A SQLite VFS shim for fault injection, used only by Strata's reliability harness and tests.
//
// It wraps the default VFS (unix) and passes every call through, counting writes, syncs,
// truncates and deletes. Armed, it makes the Kth operation of one kind (0-based, counted from
// arming, optionally only on one kind of file) fail with a chosen SQLite error code, once or
// for every later operation of that kind, or it SIGKILLs the process instead of performing it
// (a crash at an exact point of the I/O sequence).
//
// The library never registers it: a store uses it only when opened with
// PersistentStoreOption.vfsName set to the name given to strata_fault_vfs_register().
// All functions are thread-safe (SQLite may call the VFS from several connections at once).
#ifndef STRATA_FAULT_VFS_H
#define STRATA_FAULT_VFS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The operations that can fail.
typedef enum {
    STRATA_FAULT_WRITE = 0,     ///< xWrite on a file
    STRATA_FAULT_SYNC = 1,      ///< xSync on a file
    STRATA_FAULT_TRUNCATE = 2,  ///< xTruncate on a file
    STRATA_FAULT_DELETE = 3,    ///< xDelete on the VFS (journal and WAL removal)
    STRATA_FAULT_KIND_COUNT = 4
} StrataFaultKind;

/// What happens at the chosen operation.
typedef enum {
    STRATA_FAULT_OFF = 0,         ///< nothing: the shim only counts
    STRATA_FAULT_ONCE = 1,        ///< the Kth operation fails; later ones succeed
    STRATA_FAULT_PERSISTENT = 2,  ///< the Kth and every later operation of the kind fail
    STRATA_FAULT_KILL = 3         ///< the process SIGKILLs itself instead of the Kth operation
} StrataFaultMode;

/// Which files an armed fault counts.
typedef enum {
    STRATA_FAULT_ANY_FILE = 0,
    STRATA_FAULT_MAIN_DB = 1,    ///< the database file itself
    STRATA_FAULT_JOURNAL = 2,    ///< the rollback journal (…-journal)
    STRATA_FAULT_WAL = 3         ///< the write-ahead log (…-wal)
} StrataFaultFile;

/// One registered fault VFS (opaque).
typedef struct StrataFaultVFS StrataFaultVFS;

/// Registers a fault VFS named `name` over the current default VFS (not as the default) and
/// returns it; returns the same object when `name` was registered before by this function.
/// Returns NULL when SQLite has no default VFS or memory is short. Never unregistered.
StrataFaultVFS *strata_fault_vfs_register(const char *name);

/// Arms a fault: the `k`th (0-based) operation of `kind` on files of `file`, counted from now,
/// gets `mode` (failing with `error_code`, e.g. SQLITE_IOERR_WRITE or SQLITE_FULL).
void strata_fault_vfs_arm(StrataFaultVFS *vfs, StrataFaultKind kind, StrataFaultFile file,
                          int64_t k, StrataFaultMode mode, int error_code);

/// Stops injecting (counting goes on).
void strata_fault_vfs_disarm(StrataFaultVFS *vfs);

/// How many times the armed fault fired since it was armed.
int64_t strata_fault_vfs_fired(StrataFaultVFS *vfs);

/// Operations of `kind` on any file since the last reset.
int64_t strata_fault_vfs_count(StrataFaultVFS *vfs, StrataFaultKind kind);

/// Operations of the armed kind on matching files since the fault was armed.
int64_t strata_fault_vfs_matching(StrataFaultVFS *vfs);

/// Files currently open through this VFS (databases, journals, WAL files): 0 once every
/// connection using it is closed.
int64_t strata_fault_vfs_open_files(StrataFaultVFS *vfs);

/// Sets every operation counter to zero.
void strata_fault_vfs_reset_counters(StrataFaultVFS *vfs);

#ifdef __cplusplus
}
#endif

#endif
