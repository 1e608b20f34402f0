// See include/StrataFaultVFS.h.
#define _POSIX_C_SOURCE 200809L  // kill(), strdup() under strict -std=c11
#include "StrataFaultVFS.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

struct StrataFaultVFS {
    sqlite3_vfs base;        // what SQLite sees; base.pAppData points back here
    sqlite3_vfs *real;       // the wrapped VFS
    char *name;
    StrataFaultVFS *next;    // registry of VFSes made by strata_fault_vfs_register
    _Atomic int mode;        // StrataFaultMode
    _Atomic int kind;        // StrataFaultKind
    _Atomic int file;        // StrataFaultFile
    _Atomic int error_code;
    _Atomic int64_t k;
    _Atomic int64_t matching;
    _Atomic int64_t fired;
    _Atomic int64_t counts[STRATA_FAULT_KIND_COUNT];
    _Atomic int64_t open_files;
};

typedef struct {
    sqlite3_file base;       // what SQLite sees
    StrataFaultVFS *vfs;
    sqlite3_file *real;      // the wrapped VFS's file, allocated right after this struct
    int file_kind;           // StrataFaultFile
} FaultFile;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static StrataFaultVFS *registry = NULL;

// Counts one operation and decides whether it fails. Returns SQLITE_OK to go on, or the error
// to return instead of doing the operation. Kills the process in kill mode.
static int fault_check(StrataFaultVFS *vfs, StrataFaultKind kind, int file_kind) {
    atomic_fetch_add(&vfs->counts[kind], 1);
    int mode = atomic_load(&vfs->mode);
    if (mode == STRATA_FAULT_OFF || atomic_load(&vfs->kind) != (int)kind) return SQLITE_OK;
    int wanted = atomic_load(&vfs->file);
    if (wanted != STRATA_FAULT_ANY_FILE && wanted != file_kind) return SQLITE_OK;
    int64_t index = atomic_fetch_add(&vfs->matching, 1);
    int64_t k = atomic_load(&vfs->k);
    if (index < k) return SQLITE_OK;
    if (index > k && mode != STRATA_FAULT_PERSISTENT) return SQLITE_OK;
    atomic_fetch_add(&vfs->fired, 1);
    if (mode == STRATA_FAULT_KILL) {
        kill(getpid(), SIGKILL);
        _exit(137);  // not reached
    }
    return atomic_load(&vfs->error_code);
}

static int file_kind_of_name(const char *name) {
    if (name == NULL) return STRATA_FAULT_MAIN_DB;
    size_t length = strlen(name);
    if (length >= 8 && strcmp(name + length - 8, "-journal") == 0) return STRATA_FAULT_JOURNAL;
    if (length >= 4 && strcmp(name + length - 4, "-wal") == 0) return STRATA_FAULT_WAL;
    return STRATA_FAULT_MAIN_DB;
}

// MARK: File methods

static int fault_close(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    atomic_fetch_sub(&p->vfs->open_files, 1);
    return p->real->pMethods->xClose(p->real);
}

static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xRead(p->real, buffer, amount, offset);
}

static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *p = (FaultFile *)file;
    int rc = fault_check(p->vfs, STRATA_FAULT_WRITE, p->file_kind);
    if (rc != SQLITE_OK) return rc;
    return p->real->pMethods->xWrite(p->real, buffer, amount, offset);
}

static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    FaultFile *p = (FaultFile *)file;
    int rc = fault_check(p->vfs, STRATA_FAULT_TRUNCATE, p->file_kind);
    if (rc != SQLITE_OK) return rc;
    return p->real->pMethods->xTruncate(p->real, size);
}

static int fault_sync(sqlite3_file *file, int flags) {
    FaultFile *p = (FaultFile *)file;
    int rc = fault_check(p->vfs, STRATA_FAULT_SYNC, p->file_kind);
    if (rc != SQLITE_OK) return rc;
    return p->real->pMethods->xSync(p->real, flags);
}

static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xFileSize(p->real, size);
}

static int fault_lock(sqlite3_file *file, int lock) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xLock(p->real, lock);
}

static int fault_unlock(sqlite3_file *file, int lock) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xUnlock(p->real, lock);
}

static int fault_check_reserved_lock(sqlite3_file *file, int *result) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xCheckReservedLock(p->real, result);
}

static int fault_file_control(sqlite3_file *file, int op, void *argument) {
    FaultFile *p = (FaultFile *)file;
    if (op == SQLITE_FCNTL_VFSNAME && argument != NULL) {
        // Report the stack of VFS names, as SQLite's own shims do.
        int rc = p->real->pMethods->xFileControl(p->real, op, argument);
        if (rc == SQLITE_OK) {
            char **name = (char **)argument;
            char *combined = sqlite3_mprintf("%s/%s", p->vfs->name, *name);
            sqlite3_free(*name);
            *name = combined;
        }
        return rc;
    }
    return p->real->pMethods->xFileControl(p->real, op, argument);
}

static int fault_sector_size(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xSectorSize(p->real);
}

static int fault_device_characteristics(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int fault_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xShmMap(p->real, page, size, extend, out);
}

static int fault_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xShmLock(p->real, offset, n, flags);
}

static void fault_shm_barrier(sqlite3_file *file) {
    FaultFile *p = (FaultFile *)file;
    p->real->pMethods->xShmBarrier(p->real);
}

static int fault_shm_unmap(sqlite3_file *file, int delete_flag) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xShmUnmap(p->real, delete_flag);
}

static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xFetch(p->real, offset, amount, out);
}

static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    FaultFile *p = (FaultFile *)file;
    return p->real->pMethods->xUnfetch(p->real, offset, pointer);
}

static const sqlite3_io_methods fault_io_methods_v3 = {
    3, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, fault_shm_map, fault_shm_lock, fault_shm_barrier,
    fault_shm_unmap, fault_fetch, fault_unfetch,
};

static const sqlite3_io_methods fault_io_methods_v1 = {
    1, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, NULL, NULL, NULL, NULL, NULL, NULL,
};

// MARK: VFS methods

static StrataFaultVFS *owner(sqlite3_vfs *vfs) { return (StrataFaultVFS *)vfs->pAppData; }

static int fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    StrataFaultVFS *self = owner(vfs);
    FaultFile *p = (FaultFile *)file;
    memset(p, 0, sizeof(FaultFile));
    p->vfs = self;
    p->real = (sqlite3_file *)&p[1];
    if (flags & SQLITE_OPEN_MAIN_DB) {
        p->file_kind = STRATA_FAULT_MAIN_DB;
    } else if (flags & SQLITE_OPEN_MAIN_JOURNAL) {
        p->file_kind = STRATA_FAULT_JOURNAL;
    } else if (flags & SQLITE_OPEN_WAL) {
        p->file_kind = STRATA_FAULT_WAL;
    } else {
        p->file_kind = STRATA_FAULT_ANY_FILE;  // temp files, sub-journals: counted for "any" only
    }
    int rc = self->real->xOpen(self->real, name, p->real, flags, out_flags);
    if (p->real->pMethods == NULL) {
        p->base.pMethods = NULL;
    } else {
        atomic_fetch_add(&self->open_files, 1);
        p->base.pMethods = p->real->pMethods->iVersion >= 3 ? &fault_io_methods_v3 : &fault_io_methods_v1;
    }
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    StrataFaultVFS *self = owner(vfs);
    int rc = fault_check(self, STRATA_FAULT_DELETE, file_kind_of_name(name));
    if (rc != SQLITE_OK) return rc;
    return self->real->xDelete(self->real, name, sync_dir);
}

static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    return owner(vfs)->real->xAccess(owner(vfs)->real, name, flags, result);
}

static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    return owner(vfs)->real->xFullPathname(owner(vfs)->real, name, size, out);
}

static void *fault_dl_open(sqlite3_vfs *vfs, const char *path) {
    return owner(vfs)->real->xDlOpen(owner(vfs)->real, path);
}

static void fault_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    owner(vfs)->real->xDlError(owner(vfs)->real, size, out);
}

static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    return owner(vfs)->real->xDlSym(owner(vfs)->real, handle, symbol);
}

static void fault_dl_close(sqlite3_vfs *vfs, void *handle) {
    owner(vfs)->real->xDlClose(owner(vfs)->real, handle);
}

static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) {
    return owner(vfs)->real->xRandomness(owner(vfs)->real, size, out);
}

static int fault_sleep(sqlite3_vfs *vfs, int microseconds) {
    return owner(vfs)->real->xSleep(owner(vfs)->real, microseconds);
}

static int fault_current_time(sqlite3_vfs *vfs, double *out) {
    return owner(vfs)->real->xCurrentTime(owner(vfs)->real, out);
}

static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    sqlite3_vfs *real = owner(vfs)->real;
    return real->xGetLastError ? real->xGetLastError(real, size, out) : 0;
}

static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    return owner(vfs)->real->xCurrentTimeInt64(owner(vfs)->real, out);
}

static int fault_set_system_call(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr pointer) {
    return owner(vfs)->real->xSetSystemCall(owner(vfs)->real, name, pointer);
}

static sqlite3_syscall_ptr fault_get_system_call(sqlite3_vfs *vfs, const char *name) {
    return owner(vfs)->real->xGetSystemCall(owner(vfs)->real, name);
}

static const char *fault_next_system_call(sqlite3_vfs *vfs, const char *name) {
    return owner(vfs)->real->xNextSystemCall(owner(vfs)->real, name);
}

// MARK: Public functions

StrataFaultVFS *strata_fault_vfs_register(const char *name) {
    if (name == NULL) return NULL;
    pthread_mutex_lock(&registry_lock);
    for (StrataFaultVFS *existing = registry; existing != NULL; existing = existing->next) {
        if (strcmp(existing->name, name) == 0) {
            pthread_mutex_unlock(&registry_lock);
            return existing;
        }
    }
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    StrataFaultVFS *self = real ? calloc(1, sizeof(StrataFaultVFS)) : NULL;
    char *copy = self ? strdup(name) : NULL;
    if (self == NULL || copy == NULL) {
        free(self);
        pthread_mutex_unlock(&registry_lock);
        return NULL;
    }
    self->real = real;
    self->name = copy;
    sqlite3_vfs *base = &self->base;
    base->iVersion = real->iVersion < 3 ? real->iVersion : 3;
    base->szOsFile = (int)sizeof(FaultFile) + real->szOsFile;
    base->mxPathname = real->mxPathname;
    base->zName = copy;
    base->pAppData = self;
    base->xOpen = fault_open;
    base->xDelete = fault_delete;
    base->xAccess = fault_access;
    base->xFullPathname = fault_full_pathname;
    base->xDlOpen = fault_dl_open;
    base->xDlError = fault_dl_error;
    base->xDlSym = fault_dl_sym;
    base->xDlClose = fault_dl_close;
    base->xRandomness = fault_randomness;
    base->xSleep = fault_sleep;
    base->xCurrentTime = fault_current_time;
    base->xGetLastError = fault_get_last_error;
    if (base->iVersion >= 2) base->xCurrentTimeInt64 = fault_current_time_int64;
    if (base->iVersion >= 3) {
        base->xSetSystemCall = fault_set_system_call;
        base->xGetSystemCall = fault_get_system_call;
        base->xNextSystemCall = fault_next_system_call;
    }
    if (sqlite3_vfs_register(base, 0) != SQLITE_OK) {
        free(copy);
        free(self);
        pthread_mutex_unlock(&registry_lock);
        return NULL;
    }
    self->next = registry;
    registry = self;
    pthread_mutex_unlock(&registry_lock);
    return self;
}

void strata_fault_vfs_arm(StrataFaultVFS *vfs, StrataFaultKind kind, StrataFaultFile file,
                          int64_t k, StrataFaultMode mode, int error_code) {
    if (vfs == NULL || kind < 0 || kind >= STRATA_FAULT_KIND_COUNT) return;
    atomic_store(&vfs->mode, STRATA_FAULT_OFF);
    atomic_store(&vfs->kind, (int)kind);
    atomic_store(&vfs->file, (int)file);
    atomic_store(&vfs->k, k < 0 ? 0 : k);
    atomic_store(&vfs->error_code, error_code);
    atomic_store(&vfs->matching, 0);
    atomic_store(&vfs->fired, 0);
    atomic_store(&vfs->mode, (int)mode);
}

void strata_fault_vfs_disarm(StrataFaultVFS *vfs) {
    if (vfs != NULL) atomic_store(&vfs->mode, STRATA_FAULT_OFF);
}

int64_t strata_fault_vfs_fired(StrataFaultVFS *vfs) {
    return vfs ? atomic_load(&vfs->fired) : 0;
}

int64_t strata_fault_vfs_count(StrataFaultVFS *vfs, StrataFaultKind kind) {
    if (vfs == NULL || kind < 0 || kind >= STRATA_FAULT_KIND_COUNT) return 0;
    return atomic_load(&vfs->counts[kind]);
}

int64_t strata_fault_vfs_matching(StrataFaultVFS *vfs) {
    return vfs ? atomic_load(&vfs->matching) : 0;
}

int64_t strata_fault_vfs_open_files(StrataFaultVFS *vfs) {
    return vfs ? atomic_load(&vfs->open_files) : 0;
}

void strata_fault_vfs_reset_counters(StrataFaultVFS *vfs) {
    if (vfs == NULL) return;
    for (int i = 0; i < STRATA_FAULT_KIND_COUNT; i++) atomic_store(&vfs->counts[i], 0);
}
