import Foundation
import Strata

/// A complete stack for a test: a model, a coordinator with one store (a SQLite file in a fresh
/// temporary folder, in memory, or a fresh namespace of the PostgreSQL test server) and helpers
/// to make contexts and reopen the store.
/// Thread-safe once created.
public final class TestStack: @unchecked Sendable {
    // @unchecked Sendable: all stored properties are immutable and Sendable classes, except the
    // coordinator which is replaced only by `reopen()` (called by the test's own thread).
    /// The store kinds a test can run on.
    public enum Kind: Sendable, CaseIterable, CustomStringConvertible {
        case sqlite
        case inMemory
        case postgreSQL
        /// Every kind; PostgreSQL only when the tests have a server (not with `STRATA_SKIP_POSTGRESQL=1`).
        public static var allCases: [Kind] { PostgreSQLTestDatabase.isSkipped ? [.sqlite, .inMemory] : [.sqlite, .inMemory, .postgreSQL] }
        /// The kinds that keep a persistent history: every kind.
        public static var keepingHistory: [Kind] { allCases }
        /// The kinds that post `.persistentStoreRemoteChange` for this coordinator's own saves
        /// (the PostgreSQL store posts for other processes' commits only: see docs/postgresql.md).
        public static let postingOwnRemoteChanges: [Kind] = [.sqlite, .inMemory]
        public var description: String {
            switch self {
            case .sqlite: return "SQLite"
            case .inMemory: return "in-memory"
            case .postgreSQL: return "PostgreSQL"
            }
        }
    }

    /// The model.
    public let model: ManagedObjectModel
    /// The folder holding the store file.
    public let directory: TemporaryDirectory
    /// The store file (SQLite stacks).
    public let storeURL: URL
    /// The store kind.
    public let kind: Kind
    /// Options the store is added with.
    public let options: [String: any Sendable]
    /// The coordinator (replaced by ``reopen()``).
    public private(set) var coordinator: PersistentStoreCoordinator

    /// Creates a stack and adds its store. Throws what `addPersistentStore` throws. With
    /// `recordsSQL` false the store does not trace statements (``recordSQL()`` then sees none),
    /// which saves time in long workloads.
    public init(model: ManagedObjectModel, kind: Kind = .sqlite, options: [String: any Sendable] = [:], recordsSQL: Bool = true) throws {
        self.model = model
        self.kind = kind
        self.directory = TemporaryDirectory()
        self.storeURL = directory.file("Test.sqlite")
        var allOptions = options
        allOptions[PersistentStoreOption.recordsSQL] = recordsSQL
        self.options = allOptions
        self.database = kind == .postgreSQL ? try PostgreSQLTestDatabase() : nil
        self.coordinator = try Self.makeCoordinator(model: model, kind: kind, url: storeURL, options: allOptions, database: database)
    }

    /// The namespace of a PostgreSQL stack (dropped when the stack goes).
    public let database: PostgreSQLTestDatabase?

    private static func makeCoordinator(
        model: ManagedObjectModel, kind: Kind, url: URL, options: [String: any Sendable], database: PostgreSQLTestDatabase?
    ) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        switch kind {
        case .sqlite: try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        case .inMemory: try coordinator.addPersistentStore(type: .inMemory, options: options)
        case .postgreSQL:
            guard let database else { throw PostgreSQLTestDatabase.ServerMissing() }
            try database.addStore(to: coordinator, options: options)
        }
        return coordinator
    }

    /// A new private-queue root context.
    public func newContext(name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    /// Closes the store and opens it again with a new coordinator (SQLite and PostgreSQL stacks; an in-memory
    /// stack keeps its coordinator since its data lives in it). Contexts made before stay on the
    /// old coordinator.
    public func reopen() throws {
        guard kind != .inMemory else { return }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        coordinator = try Self.makeCoordinator(model: model, kind: kind, url: storeURL, options: options, database: database)
    }

    /// A recorder of the SQL this stack's coordinator runs.
    public func recordSQL() -> SQLRecorder { SQLRecorder(coordinator: coordinator) }
}
