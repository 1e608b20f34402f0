import Foundation
import StrataLocks

/// A point in a store's history that a context can read from (Core Data's
/// `NSQueryGenerationToken`).
///
/// Pin a context with `try context.setQueryGenerationFrom(.current)`: its fetches and faults
/// then see the store as it was at that moment, whatever other contexts save, until the context
/// saves (which moves it to the state after its own save), calls `setQueryGenerationFrom` again
/// (moves forward) or passes `nil` (unpinned). For a SQLite store the pin is a read transaction
/// held open on a reader connection of its own (Debian's SQLite has no snapshot API).
public final class QueryGenerationToken: Sendable, Equatable {
    /// "The store's current state", to pin a context to now.
    public static let current = QueryGenerationToken(kind: .current)

    enum Kind: Equatable {
        case current
        case pinned(UUID)
    }

    let kind: Kind

    init(kind: Kind) { self.kind = kind }

    public static func == (lhs: QueryGenerationToken, rhs: QueryGenerationToken) -> Bool { lhs.kind == rhs.kind }
}

/// What a store keeps for one pinned generation (a held read transaction, or a frozen state).
protocol PinnedStoreState: AnyObject, Sendable {
    /// Releases the held state.
    func release()
}

/// A context's pinned generation: one pinned state per store.
final class PinnedGeneration: Sendable {
    let token: QueryGenerationToken
    private let states: StrataLock<[ObjectIdentifier: any PinnedStoreState]>

    init(states: [ObjectIdentifier: any PinnedStoreState]) {
        self.token = QueryGenerationToken(kind: .pinned(UUID()))
        self.states = StrataLock(states)
    }

    func state(for store: AnyObject) -> (any PinnedStoreState)? {
        states.withLock { $0[ObjectIdentifier(store)] }
    }

    func release() {
        let all = states.withLock { current -> [any PinnedStoreState] in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for state in all { state.release() }
    }

    deinit { release() }
}

/// The generation the current thread reads through (set while a pinned context calls its
/// coordinator; contexts run their calls on their own queue, so a thread-local is exact). The
/// slot does not own the generation: `with` keeps it alive while it is set.
enum CurrentGeneration {
    private static let slot = ThreadLocalSlot()

    static var value: PinnedGeneration? {
        guard let pointer = slot.value else { return nil }
        return Unmanaged<PinnedGeneration>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` reading through `generation`.
    static func with<T>(_ generation: PinnedGeneration, _ body: () throws -> T) rethrows -> T {
        try withExtendedLifetime(generation) {
            try slot.with(Unmanaged.passUnretained(generation).toOpaque(), body)
        }
    }
}

/// A parent store that reads through a pinned generation.
final class PinnedParentStore: ParentStore {
    let base: PersistentStoreCoordinator
    let generation: PinnedGeneration

    init(base: PersistentStoreCoordinator, generation: PinnedGeneration) {
        self.base = base
        self.generation = generation
    }

    var rootCoordinator: PersistentStoreCoordinator? { base }

    private func pinned<T>(_ body: () throws -> T) rethrows -> T {
        try CurrentGeneration.with(generation, body)
    }

    func fetchRows(_ plan: FetchPlan) throws -> [RowSnapshot] { try pinned { try base.fetchRows(plan) } }
    func fetchIDs(_ plan: FetchPlan) throws -> [ManagedObjectID] { try pinned { try base.fetchIDs(plan) } }
    func fetchIDList(_ plan: FetchPlan) throws -> ObjectIDList { try pinned { try base.fetchIDList(plan) } }
    func count(_ plan: FetchPlan) throws -> Int { try pinned { try base.count(plan) } }
    func fetchDictionaryRows(_ plan: DictionaryPlan) throws -> [[RowEvaluator.Operand]] { try pinned { try base.fetchDictionaryRows(plan) } }
    func snapshots(for ids: [ManagedObjectID], maxAge: TimeInterval) throws -> [RowSnapshot] {
        try pinned { try base.snapshots(for: ids, maxAge: 0) }
    }
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try pinned { try base.toManyIDs(of: ids, relationship: relationship) }
    }
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult { try base.save(changes) }
    func obtainPermanentIDs(for temporaryIDs: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        try base.obtainPermanentIDs(for: temporaryIDs)
    }
}
