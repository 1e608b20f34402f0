import Foundation

/// A point in a store's history that a context can read from (Core Data's
/// `NSQueryGenerationToken`).
///
/// Pin a context with `try context.setQueryGenerationFrom(.current)`: its fetches and faults
/// then see the store as it was at that moment, whatever other contexts save, until the context
/// saves (which moves it to the state after its own save), calls `setQueryGenerationFrom` again
/// (moves forward) or passes `nil` (unpinned). For a SQLite store the pin is a read transaction
/// held open on a reader connection of its own (Debian's SQLite has no snapshot API).
///
/// Tokens are `Sendable`: use them on any thread; pin a context with them on the context's queue.
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

/// A context's pinned generation: its token, and the state each store holds for it (what reads
/// through it carry in ``ReadOptions/generation``).
final class PinnedGeneration: Sendable {
    let token: QueryGenerationToken
    let states: PinnedStoreStates

    init(states: [ObjectIdentifier: any PinnedStoreState]) {
        self.token = QueryGenerationToken(kind: .pinned(UUID()))
        self.states = PinnedStoreStates(states)
    }

    /// Releases the stores' held states (they are also released with the last reference).
    func release() { states.release() }
}

/// A parent store that reads through a pinned generation: a decorator of the coordinator that
/// sets the generation in the options of every read it forwards (writes go through as they are).
final class PinnedParentStore: ParentStore {
    let base: PersistentStoreCoordinator
    let generation: PinnedGeneration

    init(base: PersistentStoreCoordinator, generation: PinnedGeneration) {
        self.base = base
        self.generation = generation
    }

    var rootCoordinator: PersistentStoreCoordinator? { base }

    private func pinned(_ options: ReadOptions) -> ReadOptions { options.reading(through: generation.states) }

    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] { try base.fetchRows(plan, options: pinned(options)) }
    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] { try base.fetchIDs(plan, options: pinned(options)) }
    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList { try base.fetchIDList(plan, options: pinned(options)) }
    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int { try base.count(plan, options: pinned(options)) }
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        try base.fetchDictionaryRows(plan, options: pinned(options))
    }
    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        try base.snapshots(for: ids, options: pinned(options))
    }
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try base.toManyIDs(of: ids, relationship: relationship, options: pinned(options))
    }
    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows {
        try base.toManyRows(of: ids, relationship: relationship, options: pinned(options))
    }
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult { try base.save(changes) }
    func obtainPermanentIDs(for temporaryIDs: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        try base.obtainPermanentIDs(for: temporaryIDs)
    }
}
