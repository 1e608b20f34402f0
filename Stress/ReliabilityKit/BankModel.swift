import Foundation
import Strata

/// The model every reliability workload uses.
///
/// - `Account(number, balance, padding)`: money only moves between accounts, so the sum of the
///   balances never changes (`initialBalance` × number of accounts).
/// - `SaveRecord(number, transferCount, total, payload, payloadSize, checksum, kind)`: one per
///   save, numbered 1, 2, 3… with the save's transfers (`transfers`, inverse `Transfer.record`)
///   and a payload blob with its checksum, so a partially applied save is visible.
/// - `Transfer(saveNumber, source, target, amount, record)`.
/// - `Counter(name, value)`: for the several-process read-modify-write workload.
/// - `AuditEntry(saveNumber, total)`: written by `.audited` saves, in a second store when the
///   stack has one (configurations "Bank" and "Audit"), so one save spans two store files.
public enum BankModel {
    /// Every account's balance in a new store.
    public static let initialBalance: Int64 = 1_000

    /// A new model instance (each coordinator gets its own).
    public static func make() -> ManagedObjectModel {
        let account = EntityDescription(name: "Account")
        account.properties = [
            AttributeDescription(name: "number", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "balance", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "padding", type: .string),
        ]
        let record = EntityDescription(name: "SaveRecord")
        record.properties = [
            AttributeDescription(name: "number", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "transferCount", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "total", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "payload", type: .binaryData),
            AttributeDescription(name: "payloadSize", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "checksum", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "kind", type: .string),
            RelationshipDescription(name: "transfers", destinationEntityName: "Transfer", inverse: "record", toMany: true, deleteRule: .cascade),
        ]
        let transfer = EntityDescription(name: "Transfer")
        transfer.properties = [
            AttributeDescription(name: "saveNumber", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "source", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "target", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "amount", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            RelationshipDescription(name: "record", destinationEntityName: "SaveRecord", inverse: "transfers"),
        ]
        let counter = EntityDescription(name: "Counter")
        counter.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "value", type: .integer64, isOptional: false, defaultValue: Int64(0)),
        ]
        let audit = EntityDescription(name: "AuditEntry")
        audit.properties = [
            AttributeDescription(name: "saveNumber", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "total", type: .integer64, isOptional: false, defaultValue: Int64(0)),
        ]
        let model = ManagedObjectModel(entities: [account, record, transfer, counter, audit])
        model.setEntities([account, record, transfer, counter], forConfigurationName: bankConfiguration)
        model.setEntities([audit], forConfigurationName: auditConfiguration)
        return model
    }

    /// The configuration of every entity but AuditEntry (the bank store of a two-store stack).
    public static let bankConfiguration = "Bank"
    /// The configuration holding AuditEntry (the audit store of a two-store stack).
    public static let auditConfiguration = "Audit"
}

/// The journal mode of a store under test.
public enum JournalMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Write-ahead log (Strata's default).
    case wal = "WAL"
    /// Rollback journal (`PersistentStoreOption.journalMode: "DELETE"`).
    case delete = "DELETE"

    public var description: String { rawValue }
}

/// How a store under test is opened.
public struct StoreSettings: Sendable, CustomStringConvertible {
    /// The journal mode.
    public var journal: JournalMode
    /// `PRAGMA synchronous` (nil: Strata's default, NORMAL).
    public var synchronous: String?
    /// A registered VFS to open the store with (the fault VFS), or nil for the default.
    public var vfsName: String?
    /// `PersistentStoreOption.timeout` in seconds (nil: Strata's default, 5 s).
    public var timeout: Double?
    /// Open read-only.
    public var readOnly = false
    /// Record persistent history (`PersistentStoreOption.persistentHistoryTracking`).
    public var historyTracking = false

    /// Creates settings.
    public init(journal: JournalMode, synchronous: String? = nil, vfsName: String? = nil, timeout: Double? = nil, readOnly: Bool = false) {
        self.journal = journal
        self.synchronous = synchronous
        self.vfsName = vfsName
        self.timeout = timeout
        self.readOnly = readOnly
    }

    /// The same settings on SQLite's default VFS.
    public var withoutVFS: StoreSettings {
        var copy = self
        copy.vfsName = nil
        return copy
    }

    /// The options for `addPersistentStore`.
    public var options: [String: any Sendable] {
        var options: [String: any Sendable] = [PersistentStoreOption.journalMode: journal.rawValue]
        if let synchronous { options[PersistentStoreOption.synchronous] = synchronous }
        if let vfsName { options[PersistentStoreOption.vfsName] = vfsName }
        if let timeout { options[PersistentStoreOption.timeout] = timeout }
        if readOnly { options[PersistentStoreOption.readOnly] = true }
        if historyTracking { options[PersistentStoreOption.persistentHistoryTracking] = true }
        return options
    }

    public var description: String {
        "\(journal)" + (synchronous.map { "/\($0)" } ?? "") + (historyTracking ? "+history" : "")
    }
}

/// A coordinator with one bank store.
public final class BankStack: @unchecked Sendable {
    // @unchecked Sendable: immutable references to thread-safe Strata objects.
    /// The model.
    public let model: ManagedObjectModel
    /// The coordinator.
    public let coordinator: PersistentStoreCoordinator
    /// The store.
    public let store: PersistentStore
    /// The store file.
    public let url: URL

    /// The audit store of a two-store stack.
    public let auditStore: PersistentStore?

    /// Opens (creating if needed) the store at `url` holding every entity or, with `auditURL`,
    /// two stores: the bank entities at `url` and AuditEntry at `auditURL`.
    public init(url: URL, auditURL: URL? = nil, settings: StoreSettings) throws {
        self.url = url
        model = BankModel.make()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model, name: "reliability")
        if let auditURL {
            store = try coordinator.addPersistentStore(type: .sqlite, configuration: BankModel.bankConfiguration, at: url, options: settings.options)
            auditStore = try coordinator.addPersistentStore(type: .sqlite, configuration: BankModel.auditConfiguration, at: auditURL, options: settings.options)
        } else {
            store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: settings.options)
            auditStore = nil
        }
    }

    /// A new private-queue root context.
    public func newContext(name: String = "reliability") -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    /// Removes the store from the coordinator (its idle connections close; the writer closes
    /// when the last context using the coordinator is gone).
    public func close() {
        try? coordinator.remove(store)
        if let auditStore { try? coordinator.remove(auditStore) }
    }
}
