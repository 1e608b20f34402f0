import CSQLite
import CStrataFaultVFS

/// The fault-injecting SQLite VFS (`CStrataFaultVFS`) seen from Swift.
///
/// Register it once under a name, open stores with `PersistentStoreOption.vfsName` set to that
/// name, then arm a fault: the Kth write, sync, truncate or delete (counted from arming) fails
/// with the chosen SQLite code, once or persistently, or kills the process. Thread-safe.
public final class FaultVFS: @unchecked Sendable {
    // @unchecked Sendable: the C object only uses atomics and lives until the process exits.
    private let handle: OpaquePointer
    /// The name stores are opened with.
    public let name: String

    /// The operations that can fail.
    public enum Kind: String, CaseIterable, Sendable {
        case write, sync, truncate, delete

        var cValue: StrataFaultKind {
            switch self {
            case .write: return STRATA_FAULT_WRITE
            case .sync: return STRATA_FAULT_SYNC
            case .truncate: return STRATA_FAULT_TRUNCATE
            case .delete: return STRATA_FAULT_DELETE
            }
        }

        /// The I/O error SQLite's own unix VFS reports for this operation.
        public var ioErrorCode: Int32 {
            switch self {
            case .write: return SQLITE_IOERR | (3 << 8)  // SQLITE_IOERR_WRITE
            case .sync: return SQLITE_IOERR | (4 << 8)  // SQLITE_IOERR_FSYNC
            case .truncate: return SQLITE_IOERR | (6 << 8)  // SQLITE_IOERR_TRUNCATE
            case .delete: return SQLITE_IOERR | (10 << 8)  // SQLITE_IOERR_DELETE
            }
        }
    }

    /// What happens at the chosen operation.
    public enum Mode: String, Sendable, CaseIterable {
        /// Only the Kth operation fails.
        case once
        /// The Kth and every later operation of the kind fail until disarmed.
        case persistent
        /// The process SIGKILLs itself instead of performing the Kth operation.
        case kill

        var cValue: StrataFaultMode {
            switch self {
            case .once: return STRATA_FAULT_ONCE
            case .persistent: return STRATA_FAULT_PERSISTENT
            case .kill: return STRATA_FAULT_KILL
            }
        }
    }

    /// Which files an armed fault counts.
    public enum File: String, Sendable, CaseIterable {
        case any, database, journal, wal

        var cValue: StrataFaultFile {
            switch self {
            case .any: return STRATA_FAULT_ANY_FILE
            case .database: return STRATA_FAULT_MAIN_DB
            case .journal: return STRATA_FAULT_JOURNAL
            case .wal: return STRATA_FAULT_WAL
            }
        }
    }

    private init(handle: OpaquePointer, name: String) {
        self.handle = handle
        self.name = name
    }

    /// Registers (once per name and process) the fault VFS over SQLite's default VFS. Returns
    /// nil when SQLite refuses. Registering never changes the default VFS.
    public static func register(name: String = "strata-fault") -> FaultVFS? {
        guard let handle = strata_fault_vfs_register(name) else { return nil }
        return FaultVFS(handle: handle, name: name)
    }

    /// Arms a SIGKILL of the process at the operation a child's `--kill-at kind:file:K` names
    /// (e.g. `write:any:12`, `sync:wal:0`); returns false, arming nothing, when `spec` is not
    /// of that form.
    public func armKill(_ spec: String) -> Bool {
        let parts = spec.split(separator: ":").map(String.init)
        guard parts.count == 3, let kind = Kind(rawValue: parts[0]), let file = File(rawValue: parts[1]), let k = Int(parts[2]) else { return false }
        arm(kind, at: k, mode: .kill, file: file)
        return true
    }

    /// Arms a fault on the `k`th (0-based) operation of `kind` from now.
    public func arm(_ kind: Kind, at k: Int, mode: Mode, errorCode: Int32? = nil, file: File = .any) {
        strata_fault_vfs_arm(handle, kind.cValue, file.cValue, Int64(k), mode.cValue, errorCode ?? kind.ioErrorCode)
    }

    /// Stops injecting faults (counting continues).
    public func disarm() { strata_fault_vfs_disarm(handle) }

    /// How many times the armed fault fired since it was armed.
    public var fired: Int { Int(strata_fault_vfs_fired(handle)) }

    /// Operations of the armed kind on matching files since arming.
    public var matching: Int { Int(strata_fault_vfs_matching(handle)) }

    /// Operations of `kind` on any file since the last ``resetCounters()``.
    public func count(_ kind: Kind) -> Int { Int(strata_fault_vfs_count(handle, kind.cValue)) }

    /// Files open through this VFS right now (0 once every connection using it closed).
    public var openFiles: Int { Int(strata_fault_vfs_open_files(handle)) }

    /// Sets every operation counter to zero.
    public func resetCounters() { strata_fault_vfs_reset_counters(handle) }
}
