import Foundation
import StrataLocks
import Synchronization

/// Bridges a managed object model and its persistent stores (Core Data's
/// `NSPersistentStoreCoordinator`).
///
/// The coordinator is thread-safe: any number of contexts on any queues use it at once. Reads
/// go to the stores' reader connections in parallel; each root-context save is one transaction
/// on the store's writer.
public final class PersistentStoreCoordinator: @unchecked Sendable {
    // @unchecked Sendable: the store list is guarded by `storesState`; the model is frozen.
    /// The model the coordinator uses (frozen once a store is added).
    /// Immutable: read it from any thread.
    public let managedObjectModel: ManagedObjectModel
    private let storesState = StrataLock<[PersistentStore]>([])
    /// Observers of the SQL the coordinator's stores run (test support).
    package let sqlObservers = SQLObservers()
    /// The row cache shared by the coordinator's contexts.
    let rowCache = RowCache()
    /// The root contexts using this coordinator (weakly), for automatic merges. The coordinator
    /// only keeps the list; contexts read it (see `ManagedObjectContext+Merge.swift`).
    let rootContextList = WeakObjectList<AnyObject>()
    /// Temporary IDs replaced by root saves, for contexts lower in their trees.
    let temporaryIDAliases = TemporaryIDAliases()

    /// Pins every store's current state (a query generation).
    func pinCurrentGeneration() throws -> PinnedGeneration {
        var states: [ObjectIdentifier: any PinnedStoreState] = [:]
        do {
            for store in persistentStores {
                states[ObjectIdentifier(store.backend.generationKey)] = try store.backend.pinGeneration()
            }
        } catch {
            for state in states.values { state.release() }
            throw error
        }
        return PinnedGeneration(states: states)
    }
    /// A name for debugging. Immutable: read it from any thread.
    public let name: String?

    /// Creates a coordinator for `model`. The model is checked and frozen when the first store is added.
    /// Callable from any thread.
    public init(managedObjectModel model: ManagedObjectModel, name: String? = nil) {
        self.managedObjectModel = model
        self.name = name
        StrataTrace.startFromEnvironment()
    }

    /// The stores added so far. Thread-safe: read it from any thread.
    public var persistentStores: [PersistentStore] { storesState.withLock { $0 } }

    /// Adds a store and returns it: an instance of the class registered for `type` (see
    /// ``registerStoreClass(_:forStoreType:)``; `.sqlite` and `.inMemory` are built in), created
    /// with the model, the configuration's entities, `url` and `options`, then loaded. For
    /// `.sqlite`, `url` is the database file (created when missing, with its folder). Throws for
    /// an unregistered type (134000), when the model has problems, when the file is not a Strata
    /// store, is damaged, or was made with a different model (134080), and whatever the store's
    /// own `init` or `loadMetadata()` throws. Callable from any thread.
    @discardableResult
    public func addPersistentStore(
        type: StoreType = .sqlite, configuration: String? = nil, at url: URL? = nil, options: [String: any Sendable]? = nil
    ) throws -> PersistentStore {
        try managedObjectModel.freeze()
        let options = options ?? [:]
        let entities = managedObjectModel.entities(forConfigurationName: configuration)
        guard let storeClass = Self.storeClass(forStoreType: type) else {
            throw StrataError(
                code: StrataError.Code.persistentStoreInvalidType,
                message: "Unknown store type '\(type.rawValue)': use .sqlite or .inMemory, or register a class with PersistentStoreCoordinator.registerStoreClass(_:forStoreType:)", url: url)
        }
        if let url, let existing = persistentStores.first(where: { $0.url?.standardizedFileURL == url.standardizedFileURL }) {
            throw StrataError(code: StrataError.Code.persistentStoreOpen, message: "The store at this URL is already added to this coordinator (\(existing.identifier))", url: url)
        }
        try runMigrationStep(type: type, url: url, options: options)
        // The coordinator's SQL observers reach the SQLite store with its options.
        var storeOptions = options
        storeOptions[SQLObservers.optionKey] = sqlObservers
        let incremental = try storeClass.init(model: managedObjectModel, configurationName: configuration, url: url, options: storeOptions)
        do {
            try incremental.load()
        } catch {
            incremental.close()
            throw StrataError.wrapping(error, while: "Loading the store's metadata", url: url, defaultCode: StrataError.Code.persistentStoreOpen)
        }
        let backend = (incremental as? any StoreBackend) ?? IncrementalStoreBackend(incremental)
        let store = PersistentStore(type: type, url: url, configurationName: configuration, options: options, store: incremental, backend: backend, entities: entities)
        store.persistentStoreCoordinator = self
        do {
            try startHistory(for: store)
        } catch {
            incremental.close()
            throw error
        }
        storesState.withLock { $0.append(store) }
        listenForChangesMadeElsewhere(store)
        return store
    }

    /// Removes a store; its connections close. Objects of it in contexts become unusable.
    /// Thread-safe: call it from any thread.
    public func remove(_ store: PersistentStore) throws {
        let removed = storesState.withLock { stores -> Bool in
            guard let index = stores.firstIndex(where: { $0 === store }) else { return false }
            stores.remove(at: index)
            return true
        }
        guard removed else {
            throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The store does not belong to this coordinator", url: store.url)
        }
        store.incrementalStore.changesElsewhereHandler.withLock { $0 = nil }
        store.backend.close()
    }

    /// The store at `url`, if added. Thread-safe: call it from any thread.
    public func persistentStore(for url: URL) -> PersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The ID named by a URI from `ManagedObjectID.uriRepresentation()`, if it belongs to one of
    /// this coordinator's stores and names a known entity. Callable from any thread.
    public func managedObjectID(forURIRepresentation url: URL) -> ManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("p"), let pk = Int64(parts[1].dropFirst()),
            let entity = managedObjectModel.entitiesByName[parts[0]],
            let store = persistentStores.first(where: { $0.identifier == host })
        else { return nil }
        return ManagedObjectID(entity: entity, primaryKey: pk, store: store.backend.token)
    }

    /// The metadata of `store`. Thread-safe: call it from any thread.
    public func metadata(for store: PersistentStore) -> [String: any Sendable] { store.metadata }

    /// Replaces the app-defined metadata of `store` (Strata's own keys are kept) and writes it.
    /// Thread-safe: call it from any thread.
    public func setMetadata(_ metadata: [String: any Sendable], for store: PersistentStore) throws {
        try store.backend.setMetadata(metadata)
    }

    /// Reads a SQLite store's metadata without adding it. Callable from any thread.
    public static func metadataForPersistentStore(type: StoreType = .sqlite, at url: URL) throws -> [String: any Sendable] {
        guard type == .sqlite else {
            throw StrataError(code: StrataError.Code.persistentStoreInvalidType, message: "Only SQLite stores have metadata on disk", url: url)
        }
        return try SQLiteStore.metadataOfStore(at: url)
    }

    // MARK: Routing

    /// The store holding objects of `entity` (the first added whose configuration includes it).
    func store(for entity: EntityDescription) throws -> PersistentStore {
        let stores = persistentStores
        if let store = stores.first(where: { $0.holds(entity) }) { return store }
        if stores.isEmpty {
            throw StrataError(
                code: StrataError.Code.coreData, message: "The coordinator has no persistent store: add one (or load the container's stores) before fetching or saving", entityName: entity.name)
        }
        throw StrataError(code: StrataError.Code.coreData, message: "No store of this coordinator holds entity '\(entity.name)' (check the stores' configurations)", entityName: entity.name)
    }

    func store(for id: ManagedObjectID) throws -> PersistentStore {
        if let token = id.store, let store = persistentStores.first(where: { $0.backend.token === token }) { return store }
        return try store(for: id.entity)
    }
}

extension PersistentStoreCoordinator: ParentStore {
    var rootCoordinator: PersistentStoreCoordinator? { self }

    /// Fetches larger than this do not fill the row cache: their objects carry their own values
    /// (they fire without the cache), and caching a million rows would double a fetch's cost.
    static let rowCacheFetchLimit = 10_000

    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] {
        let rows = try store(for: plan.entity).backend.fetchRows(plan, options: options)
        // Rows read through a pinned generation may be old: they stay out of the shared cache
        // (`fillsRowCache` is false for them).
        if rows.count <= Self.rowCacheFetchLimit && options.fillsRowCache { rowCache.store(rows) }
        return rows
    }

    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] {
        try store(for: plan.entity).backend.fetchIDs(plan, options: options)
    }

    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList {
        try store(for: plan.entity).backend.fetchIDList(plan, options: options)
    }

    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int {
        try store(for: plan.entity).backend.count(plan, options: options)
    }

    /// Answers from the row cache what `options` allows (`rowCacheMaxAge`), loads the rest from
    /// the stores, and caches what it loaded when `options.fillsRowCache` (up to
    /// `rowCacheFetchLimit` rows, as for fetches). With `rowCacheMaxAge` 0 (a batch of a
    /// batched walk, a pinned read) the IDs go to the store as they are, without a cache lookup
    /// per ID.
    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        var result: [RowSnapshot] = []
        var missing: [ManagedObjectID] = []
        let maxAge = options.rowCacheMaxAge
        if maxAge == 0, !ids.contains(where: \.isTemporaryID) {
            missing = ids
        } else {
            missing.reserveCapacity(ids.count)
            rowCache.snapshots(for: ids, maxAge: maxAge) { id, cached in
                if let cached {
                    result.append(cached)
                } else if !id.isTemporaryID {
                    missing.append(id)
                }
            }
        }
        guard !missing.isEmpty else { return result }
        let stores = persistentStores
        var loaded: [RowSnapshot]
        if stores.count == 1, let only = stores.first {
            loaded = try only.backend.snapshots(for: missing, options: options)
        } else {
            var grouped: [ObjectIdentifier: (PersistentStore, [ManagedObjectID])] = [:]
            for id in missing {
                let store = try store(for: id)
                grouped[ObjectIdentifier(store), default: (store, [])].1.append(id)
            }
            loaded = try grouped.values.flatMap { try $0.0.backend.snapshots(for: $0.1, options: options) }
        }
        if options.fillsRowCache && loaded.count <= Self.rowCacheFetchLimit { rowCache.store(loaded) }
        if result.isEmpty { return loaded }
        result += loaded
        return result
    }

    /// Records what a root save wrote in the row cache: the new snapshots of its `rowCount`
    /// inserted and updated rows, asked of `snapshots` only when they are cached. Large saves
    /// only drop the cached rows they made stale (like large fetches, they would double their
    /// cost filling the cache).
    func didSave(rowCount: Int, snapshots: () -> [RowSnapshot]) {
        // Changed and deleted rows were invalidated before the write (see save(_:)).
        if rowCount <= Self.rowCacheFetchLimit {
            rowCache.store(snapshots())
        }
    }

    /// The stored contents of a to-many for each of `ids`; a transient relationship is stored
    /// nowhere, so every owner gets an empty list without asking a store.
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        if relationship.isTransient { return emptyToManyContents(of: ids) }
        guard let first = ids.first else { return [:] }
        return try store(for: first).backend.toManyIDs(of: ids, relationship: relationship, options: options)
    }

    /// One read of the contents and the members' rows where the owners' store can (the rows
    /// are fresh from the store; the row cache is neither read nor filled, as for batch reads).
    /// A transient relationship has no stored members.
    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows {
        if relationship.isTransient { return ToManyRows(members: Array(repeating: [], count: ids.count), rows: []) }
        guard let first = ids.first else { return ToManyRows(members: [], rows: []) }
        return try store(for: first).backend.toManyRows(of: ids, relationship: relationship, options: options)
    }

    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        // Transient relationships stop here: contexts keep them in memory, stores never see them.
        let changes = managedObjectModel.hasTransientRelationships ? changes.removingTransientRelationships() : changes
        // Rows about to change leave the row cache first; racing reads cannot put them back.
        rowCache.invalidate(changes.updates.map { ($0.objectID, $0.baseVersion) } + changes.deletes.map { ($0.objectID, Int64.max) })
        let stores = persistentStores
        if stores.count <= 1 {
            guard let store = stores.first else {
                throw StrataError(code: StrataError.Code.persistentStoreSave, message: "The coordinator has no persistent store to save to")
            }
            return try store.backend.save(changes)
        }
        // Several stores: split by store, then one transaction per store, nested (see
        // `saveNested`), so the save lands in all stores or in none.
        var parts: [ObjectIdentifier: (PersistentStore, StoreChangeSet)] = [:]
        func part(_ id: ManagedObjectID) throws -> ObjectIdentifier {
            let store = id.isTemporaryID ? try store(for: id.entity) : try store(for: id)
            let key = ObjectIdentifier(store)
            if parts[key] == nil {
                var part = StoreChangeSet()
                part.origin = changes.origin  // each store's history names the same author
                parts[key] = (store, part)
            }
            return key
        }
        for insert in changes.inserts { parts[try part(insert.objectID)]?.1.inserts.append(insert) }
        for update in changes.updates { parts[try part(update.objectID)]?.1.updates.append(update) }
        for deletion in changes.deletes { parts[try part(deletion.objectID)]?.1.deletes.append(deletion) }
        for change in changes.toManyChanges { parts[try part(change.owner)]?.1.toManyChanges.append(change) }
        return try saveNested(Array(parts.values))
    }

    /// Saves the parts of a change set that spans several stores, each store's transaction
    /// held open while the next store writes: any failure before the commits (a constraint,
    /// a version conflict, a lock timeout, an I/O error while writing) rolls every store back.
    /// Stores commit innermost first; if a COMMIT fails after an inner store committed, the
    /// save is split and the error is 134040 (`persistentStoreIncompleteSave`), naming the
    /// stores that committed. Stores are nested in one order for every coordinator (in-memory
    /// stores outermost, their commit cannot fail; then SQLite files by path), so two saves
    /// never wait for each other's locks in opposite orders.
    private func saveNested(_ parts: [(PersistentStore, StoreChangeSet)]) throws -> StoreSaveResult {
        let ordered = parts.sorted { a, b in
            let (aRank, bRank) = (Self.nestingRank(a.0), Self.nestingRank(b.0))
            if aRank != bRank { return aRank < bRank }
            return (a.0.url?.path ?? a.0.identifier) < (b.0.url?.path ?? b.0.identifier)
        }
        var result = StoreSaveResult()
        var committed: [PersistentStore] = []
        func save(from index: Int) throws {
            guard index < ordered.count else { return }
            let (store, part) = ordered[index]
            let partial = try store.backend.save(part, holdingTransactionOpenFor: { try save(from: index + 1) })
            committed.append(store)
            // Each part reports positions in its own change set: merged by temporary ID.
            result.permanentIDs.merge(partial.allPermanentIDs) { $1 }
            result.versions.merge(partial.versions) { $1 }
        }
        do {
            try save(from: 0)
        } catch {
            guard !committed.isEmpty else { throw error }
            var incomplete = StrataError.wrapping(error, while: "Saving", url: nil)
            let names = committed.map { $0.url?.lastPathComponent ?? $0.identifier }.joined(separator: ", ")
            incomplete.message =
                "The save spanned several stores and is incomplete: \(names) committed, then another store failed to commit (\(incomplete.message)). The context still holds every change; saving it again would write the committed part twice: reset or refetch first."
            incomplete.code = StrataError.Code.persistentStoreIncompleteSave
            throw incomplete
        }
        return result
    }

    /// Where a store's transaction goes in a save spanning several stores (outermost first):
    /// in-memory stores, whose commit cannot fail; then SQLite files; then stores written
    /// against the public seam, which save at once and cannot roll back, so they go innermost:
    /// everything that can still fail has written (and can roll back) before they save.
    private static func nestingRank(_ store: PersistentStore) -> Int {
        switch store.backend {
        case is InMemoryStore: return 0
        case is SQLiteStore: return 1
        default: return 2
        }
    }

    func obtainPermanentIDs(for temporaryIDs: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        var byEntityRoot: [ObjectIdentifier: [ManagedObjectID]] = [:]
        for id in temporaryIDs where id.isTemporaryID {
            byEntityRoot[id.entity.layout.rootIdentifier, default: []].append(id)
        }
        var result: [ManagedObjectID: ManagedObjectID] = [:]
        for ids in byEntityRoot.values {
            guard let first = ids.first else { continue }
            let store = try store(for: first.entity)
            let keys = try store.backend.allocatePrimaryKeys(for: first.entity, count: ids.count)
            var spaces = StoreIDSpaces(token: store.backend.token)
            for (id, key) in zip(ids, keys) {
                result[id] = spaces.id(id.entityIdentity, primaryKey: key)
            }
        }
        return result
    }
}
