import Foundation
import Strata
import StrataTestSupport

/// The three engines the differential tests compare, filled once with the same 2,000 items:
///
/// - **sqlite**: a SQLite store; fetches run as SQL;
/// - **memory**: an in-memory store; fetches run the in-memory evaluator over its rows;
/// - **pending**: an empty in-memory store whose context holds every object as an unsaved
///   insert; fetches evaluate the managed objects themselves (the `includesPendingChanges` path).
final class DifferentialEngines: Sendable {
    static let defaultSeed: UInt64 = 20_240_604
    /// `STRATA_DIFF_SEED` or the fixed default.
    static let seed = QueryRandom.seed(fromEnvironment: "STRATA_DIFF_SEED", default: defaultSeed)

    /// Built once per test process (lazily, thread-safely).
    static let shared: Result<DifferentialEngines, StrataError> = {
        do {
            let engines = try DifferentialEngines(seed: seed)
            // A static is never deinitialized: the stacks' folders go when the process exits.
            atexit { DifferentialEngines.removeFolders() }
            return .success(engines)
        } catch let error as StrataError {
            return .failure(error)
        } catch {
            return .failure(StrataError(code: StrataError.Code.coreData, message: "\(error)"))
        }
    }()

    /// Removes the three stacks' folders (registered with `atexit` once they exist).
    private static func removeFolders() {
        guard case .success(let engines) = shared else { return }
        for stack in [engines.sqlite, engines.memory, engines.pending] { stack.directory.remove() }
    }

    let seed: UInt64
    let model: ManagedObjectModel
    let sqlite: TestStack
    let memory: TestStack
    let pending: TestStack
    /// The context holding every object unsaved (used on its queue through performAndWait).
    let pendingContext: ManagedObjectContext
    /// Group object IDs in insertion order, per engine.
    let sqliteGroups: [ManagedObjectID]
    let memoryGroups: [ManagedObjectID]
    let pendingGroups: [ManagedObjectID]

    /// The fixture's data as plain values (what the reference evaluator reads).
    let data: DifferentialFixture.Data

    private init(seed: UInt64) throws {
        self.seed = seed
        model = DifferentialFixture.model()
        let data = DifferentialFixture.data(seed: seed)
        self.data = data
        sqlite = try TestStack(model: model, kind: .sqlite)
        memory = try TestStack(model: model, kind: .inMemory)
        pending = try TestStack(model: model, kind: .inMemory)
        let fixtureModel = model
        for stack in [sqlite, memory] {
            let context = stack.newContext()
            try context.performAndWait {
                try DifferentialFixture.populate(context, model: fixtureModel, data: data)
                try context.save()
            }
        }
        pendingContext = pending.newContext(name: "pending")
        let pendingContext = self.pendingContext
        try pendingContext.performAndWait {
            try DifferentialFixture.populate(pendingContext, model: fixtureModel, data: data)
        }
        sqliteGroups = try Self.groupIDs(sqlite.newContext())
        memoryGroups = try Self.groupIDs(memory.newContext())
        pendingGroups = try Self.groupIDs(pendingContext)
        var keys: [ManagedObjectID: Int64] = [:]
        for stack in [sqlite, memory] {
            for id in try Self.ids(of: "Item", in: stack.newContext()) { keys[id] = Self.primaryKey(id) }
        }
        itemKeys = keys
    }

    private static func groupIDs(_ context: ManagedObjectContext) throws -> [ManagedObjectID] {
        try ids(of: "Group", in: context)
    }

    private static func ids(of entityName: String, in context: ManagedObjectContext) throws -> [ManagedObjectID] {
        try context.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: entityName)
            request.resultType = .managedObjectIDResultType
            return try context.fetch(request)
        }
    }

    /// The primary key of a stored object's ID (its URI ends with `p<key>`).
    static func primaryKey(_ id: ManagedObjectID) -> Int64 {
        Int64(id.uriRepresentation().lastPathComponent.dropFirst()) ?? -1
    }

    /// Primary keys of every item ID of the two stores (reading a key from a URI is slow).
    let itemKeys: [ManagedObjectID: Int64]
}

/// What one engine answered for one request.
enum EngineAnswer: Equatable, CustomStringConvertible {
    case rows([Int64])
    case failed(String)

    var description: String {
        switch self {
        case .rows(let rows): return rows.count > 12 ? "\(rows.count) rows \(Array(rows.prefix(12)))…" : "\(rows.count) rows \(rows)"
        case .failed(let message): return "error: \(message)"
        }
    }

    /// Both answered rows and they are equal, or both failed.
    func agrees(with other: EngineAnswer) -> Bool {
        switch (self, other) {
        case (.rows(let a), .rows(let b)): return a == b
        case (.failed, .failed): return true
        default: return false
        }
    }
}
