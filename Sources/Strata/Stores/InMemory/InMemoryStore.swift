import Foundation
import StrataLocks
import Synchronization

/// A store kept in memory, with the same observable behaviour as the SQLite store: the same
/// primary keys and row versions, optimistic locking, relationship storage and ordering. Its
/// fetches run the in-memory evaluator over stored rows, so it doubles as the second engine
/// that SQL fetches are checked against. Thread-safe.
final class InMemoryStore: IncrementalStore, StoreBackend, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside `state`; the schema is immutable.
    struct State {
        /// Rows by table (inheritance root name) and primary key.
        var tables: [String: [Int64: RowSnapshot]] = [:]
        /// Join rows by join table name: source key → target keys in order.
        var joins: [String: [Int64: [Int64]]] = [:]
        /// The same join rows the other way round: target key → source keys.
        var reverseJoins: [String: [Int64: Set<Int64>]] = [:]
        /// Foreign-key index, by to-one relationship: target key → keys of the rows pointing to it
        /// (what the SQLite store's index on each foreign-key column gives).
        var referrers: [ObjectIdentifier: [Int64: Set<Int64>]] = [:]
        /// Positions of ordered one-to-many members, by relationship key and member key.
        var positions: [String: [Int64: Int64]] = [:]
        /// Last primary key handed out, by table.
        var lastKeys: [String: Int64] = [:]
        /// The persistent history, in commit order (when tracking is on; see
        /// `InMemoryStore+History.swift`).
        var history = InMemoryHistory()
    }

    let schema: SQLiteSchema
    let state: StrataLock<State>
    /// Whether saves record persistent history (`PersistentStoreOption.persistentHistoryTracking`).
    let tracksHistory: Bool
    /// Posts remote-change notifications when asked (see `InMemoryStore+History.swift`).
    let remoteChangePoster = StrataLock<RemoteChangePoster?>(nil)
    private let initialMetadata: [String: any Sendable]

    /// Creates an empty store (`url` and `options` are kept but not used).
    required init(model: ManagedObjectModel, configurationName: String?, url: URL?, options: [String: any Sendable]) throws {
        self.schema = SQLiteSchema(model: model)
        var entityHashes: [String: String] = [:]
        for (name, hash) in model.entityVersionHashesByName { entityHashes[name] = hash.hexString }
        self.initialMetadata = [
            StoreMetadataKey.storeUUID: UUID().uuidString,
            StoreMetadataKey.storeType: StoreType.inMemory.rawValue,
            StoreMetadataKey.modelVersionHash: model.versionHash.hexString,
            StoreMetadataKey.entityVersionHashes: entityHashes,
        ]
        self.state = StrataLock(State())
        self.tracksHistory = options.tracksPersistentHistory
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
    }

    override func loadMetadata() throws -> [String: any Sendable] { initialMetadata }

    override func close() { stopRemoteChangeNotifications() }

    var generationKey: AnyObject { self }

    // MARK: The public primitives, on the direct paths

    override func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
        try fetchRows(request.plan, options: options).map(IncrementalStoreNode.init(row:))
    }

    override func fetchObjectIDs(_ request: StoreFetchRequest, options: ReadOptions) throws -> [ManagedObjectID] {
        try fetchIDs(request.plan, options: options)
    }

    override func countRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> Int {
        try count(request.plan, options: options)
    }

    override func newValuesForObjects(with ids: [ManagedObjectID], options: ReadOptions) throws -> [IncrementalStoreNode] {
        try snapshots(for: ids, options: options).map(IncrementalStoreNode.init(row:))
    }

    override func newValues(forRelationship relationship: RelationshipDescription, forObjectsWith ids: [ManagedObjectID], options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try toManyIDs(of: ids, relationship: relationship, options: options)
    }

    override func save(_ request: SaveChangesRequest) throws -> SaveChangesResult {
        try save(request.changes)
    }

    override func obtainPermanentIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        try allocatePrimaryKeys(for: entity, count: count).map { newObjectID(for: entity, referenceObject: $0) }
    }

    /// Dictionary fetches computed by the in-memory evaluator over the store's rows.
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        let current = snapshotState(options)
        let index = InMemoryToManyIndex(store: self, state: current)
        let rows: [any EvaluationRow] = Self.rowsInKeyOrder(current.tables[plan.rows.entity.rootEntity.name] ?? [:]).map { StoredRow(snapshot: $0, index: index) }
        return try plan.visibleRows(ofMatching: rows.filter { try plan.rows.matches($0) })
    }

    private func tableName(_ entity: EntityDescription) -> String { entity.rootEntity.name }

    /// A copy of the state to read without holding the lock (copy-on-write: no copy is made);
    /// the pinned one when `options` read through a query generation of this store.
    func snapshotState(_ options: ReadOptions) -> State {
        if let generation = options.generation, let pinned = generation.state(for: self) as? PinnedMemoryState { return pinned.state }
        return state.withLock { $0 }
    }

    override func pinGeneration() throws -> any PinnedStoreState {
        PinnedMemoryState(state: state.withLock { $0 })
    }

    // MARK: Reading

    private func matchingRows(_ plan: FetchPlan, in current: State) throws -> [RowSnapshot] {
        let index = InMemoryToManyIndex(store: self, state: current)
        let rows: [any EvaluationRow] = Self.rowsInKeyOrder(current.tables[tableName(plan.entity)] ?? [:]).map { StoredRow(snapshot: $0, index: index) }
        return try plan.select(rows).compactMap { ($0 as? StoredRow)?.snapshot }
    }

    /// The rows reach an asynchronous fetch's watcher all at once (the evaluation makes them
    /// in one step): it is asked before the evaluation and told the count after it.
    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] {
        try options.watcher?.rowsRead(0)
        let rows = try matchingRows(plan, in: snapshotState(options))
        try options.watcher?.finished(rows.count)
        return rows
    }

    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] {
        try fetchRows(plan, options: options).map(\.objectID)
    }

    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int {
        try matchingRows(plan, in: snapshotState(options)).count
    }

    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        let current = snapshotState(options)
        return ids.compactMap { id in id.primaryKey.flatMap { current.tables[tableName(id.entity)]?[$0] } }
    }

    /// A batch update: the matching rows read and saved back with their new values, with
    /// optimistic locking (see `BatchUpdatePlan.runByRows`).
    func batchUpdate(_ plan: BatchUpdatePlan, origin: TransactionOrigin) throws -> BatchUpdateOutcome {
        try plan.runByRows(on: self, store: self, origin: origin)
    }

    /// A batch delete: the rows it reaches read and deleted as one save, with optimistic
    /// locking (see `BatchDeletePlan.runByRows`).
    func batchDelete(_ plan: BatchDeletePlan, origin: TransactionOrigin) throws -> BatchDeleteOutcome {
        try plan.runByRows(on: self, origin: origin)
    }

    /// A batch insert: the rows saved as one change set, upserts as updates (see
    /// `BatchInsertPlan.runByRows`).
    func batchInsert(_ plan: BatchInsertPlan, origin: TransactionOrigin) throws -> BatchInsertOutcome {
        try plan.runByRows(on: self, origin: origin)
    }

    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        let current = snapshotState(options)
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in ids { result[id] = toMany(of: id, relationship: relationship, in: current) }
        return result
    }

    func toMany(of owner: ManagedObjectID, relationship: RelationshipDescription, in current: State) -> [ManagedObjectID] {
        guard let pk = owner.primaryKey, let destination = relationship.destinationEntity, let storage = schema.storage(of: relationship) else { return [] }
        let destinationTable = current.tables[tableName(destination)] ?? [:]
        switch storage {
        case .foreignKey:
            guard let inverse = relationship.inverseRelationship else { return [] }
            let referrers = current.referrers[ObjectIdentifier(inverse)]?[pk] ?? []
            var members: [(position: Int64, key: Int64, id: ManagedObjectID)] = []
            members.reserveCapacity(referrers.count)
            let positions = current.positions[Self.relationshipKey(relationship)] ?? [:]
            for key in referrers {
                guard let row = destinationTable[key] else { continue }
                members.append((positions[key] ?? 0, key, row.objectID))
            }
            members.sort { relationship.isOrdered && $0.position != $1.position ? $0.position < $1.position : $0.key < $1.key }
            return members.map(\.id)
        case .joinTable(let join, let isSourceSide):
            var keys: [Int64]
            if isSourceSide {
                keys = current.joins[join.name]?[pk] ?? []
                if !join.isOrdered { keys.sort() }
            } else {
                keys = (current.reverseJoins[join.name]?[pk]).map { $0.sorted() } ?? []
            }
            return keys.compactMap { destinationTable[$0]?.objectID }
        }
    }

    static func relationshipKey(_ relationship: RelationshipDescription) -> String {
        "\(relationship.entity?.name ?? "?").\(relationship.name)"
    }

    // MARK: Writing

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        let table = tableName(entity)
        return state.withLock { current in
            let last = current.lastKeys[table] ?? 0
            current.lastKeys[table] = last + Int64(count)
            return Array((last + 1)...(last + Int64(count)))
        }
    }

    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try save(changes, holdingTransactionOpenFor: {})
    }

    func save(_ changes: StoreChangeSet, holdingTransactionOpenFor body: () throws -> Void) throws -> StoreSaveResult {
        let result = try state.withLock { current in
            var working = current
            let tombstones = tracksHistory ? historyTombstones(of: changes.deletes, in: working) : [:]
            let result = try apply(changes, to: &working)
            if tracksHistory {
                working.history.record(changes.historyChanges(permanentIDs: result.permanentIDs, tombstones: tombstones), origin: changes.origin)
            }
            try body()
            current = working  // all or nothing; cannot fail once `body` returned
            return result
        }
        if !changes.isEmpty { didCommitTransaction() }
        return result
    }

    private func apply(_ changes: StoreChangeSet, to working: inout State) throws -> StoreSaveResult {
        var result = StoreSaveResult()
        var uniqueness = UniquenessIndex()
        var spaces = StoreIDSpaces(token: token)
        for insert in changes.inserts {
            if !insert.objectID.isTemporaryID {
                result.permanentIDs[insert.objectID] = insert.objectID
                continue
            }
            let table = tableName(insert.objectID.entity)
            let key = (working.lastKeys[table] ?? 0) + 1
            working.lastKeys[table] = key
            result.permanentIDs[insert.objectID] = spaces.id(insert.objectID.entityIdentity, primaryKey: key)
        }
        func resolve(_ id: ManagedObjectID?) throws -> ManagedObjectID? {
            guard let id else { return nil }
            if !id.isTemporaryID { return id }
            guard let permanent = result.permanentIDs[id] else {
                throw StrataError(code: StrataError.Code.persistentStoreSave, message: "An object refers to an unsaved \(id.entity.name) that is not part of this save", entityName: id.entity.name)
            }
            return permanent
        }
        for insert in changes.inserts {
            guard let permanent = result.permanentIDs[insert.objectID], let pk = permanent.primaryKey else { continue }
            let toOne = try insert.toOne.mapped(resolve)
            let row = RowSnapshot.make(objectID: permanent, version: 1, attributes: insert.attributes, toOne: toOne)
            try checkUniqueness(row, in: working, index: &uniqueness)
            working.tables[tableName(permanent.entity), default: [:]][pk] = row
            working.index(old: nil, new: row)
            result.versions[permanent] = 1
        }
        var conflicts: [MergeConflict] = []
        for update in changes.updates {
            guard let pk = update.objectID.primaryKey else { continue }
            let table = tableName(update.objectID.entity)
            guard let existing = working.tables[table]?[pk], update.ignoresVersion || existing.version == update.baseVersion else {
                let persisted = working.tables[table]?[pk]
                conflicts.append(
                    MergeConflict(
                        objectID: update.objectID, oldVersionNumber: update.baseVersion, newVersionNumber: persisted?.version ?? 0,
                        cachedSnapshot: [:], persistedSnapshot: persisted?.printable(),
                        objectSnapshot: RowSnapshot.make(objectID: update.objectID, version: update.baseVersion, attributes: update.attributes, toOne: update.toOne).printable()))
                continue
            }
            var attributes = existing.attributes
            for slot in update.changedAttributeSlots where slot < attributes.count && slot < update.attributes.count {
                attributes[slot] = update.attributes[slot]
            }
            var toOne = existing.toOne
            for slot in update.changedToOneSlots where slot < toOne.count && slot < update.toOne.count {
                toOne[slot] = try resolve(update.toOne[slot])
            }
            let row = RowSnapshot.make(objectID: existing.objectID, version: existing.version + 1, attributes: attributes, toOne: toOne)
            try checkUniqueness(row, replacing: existing, in: working, index: &uniqueness)
            working.tables[table]?[pk] = row
            working.index(old: existing, new: row, slots: update.changedToOneSlots)
            result.versions[update.objectID] = row.version
        }
        for change in changes.toManyChanges {
            guard let owner = try resolve(change.owner)?.primaryKey, let storage = schema.storage(of: change.relationship) else { continue }
            switch storage {
            case .foreignKey:
                guard change.relationship.isOrdered, let ordered = change.ordered else { continue }
                let key = Self.relationshipKey(change.relationship)
                for (index, member) in ordered.enumerated() {
                    if let pk = try resolve(member)?.primaryKey { working.positions[key, default: [:]][pk] = Int64(index) }
                }
            case .joinTable(let join, let isSourceSide):
                guard isSourceSide else { continue }
                if join.isOrdered, let ordered = change.ordered {
                    let members = try ordered.compactMap { try resolve($0)?.primaryKey }
                    working.setJoinRows(join.name, source: owner, targets: members)
                } else {
                    let removed = try change.removed.compactMap { try resolve($0)?.primaryKey }
                    let added = try change.added.compactMap { try resolve($0)?.primaryKey }
                    working.editJoinRows(join.name, source: owner, removing: removed, adding: added)
                }
            }
        }
        for deletion in changes.deletes {
            guard let pk = deletion.objectID.primaryKey else { continue }
            let table = tableName(deletion.objectID.entity)
            guard let existing = working.tables[table]?[pk], deletion.ignoresVersion || existing.version == deletion.baseVersion else {
                let persisted = working.tables[table]?[pk]
                conflicts.append(
                    MergeConflict(
                        objectID: deletion.objectID, oldVersionNumber: deletion.baseVersion, newVersionNumber: persisted?.version ?? 0,
                        cachedSnapshot: [:], persistedSnapshot: persisted?.printable(), objectSnapshot: [:]))
                continue
            }
            working.tables[table]?[pk] = nil
            working.index(old: existing, new: nil)
            for join in schema.joinTables {
                if let owner = join.owner.entity, deletion.objectID.entity.isKindOf(entity: owner) {
                    working.setJoinRows(join.name, source: pk, targets: [])
                }
                if let destination = join.owner.destinationEntity, deletion.objectID.entity.isKindOf(entity: destination) {
                    working.removeJoinRows(join.name, target: pk)
                }
            }
        }
        if !conflicts.isEmpty {
            var error = StrataError(code: StrataError.Code.managedObjectMerge, message: "Optimistic locking failure: \(conflicts.count) object(s) changed in the store since they were read")
            error.conflicts = conflicts
            throw error
        }
        return result
    }

    /// Enforces the entities' uniqueness constraints, as the SQLite store's unique indexes do:
    /// `row` (replacing `old`, for an update) may not share its constrained values with another
    /// row. `index` holds each constraint's values of the rows, built on first use from
    /// `current` and kept up to date here, so a save of n rows checks in O(n), not O(n × rows).
    private func checkUniqueness(_ row: RowSnapshot, replacing old: RowSnapshot? = nil, in current: State, index: inout UniquenessIndex) throws {
        var ancestor: EntityDescription? = row.entity
        while let owner = ancestor {
            for (number, keys) in owner.uniquenessConstraints.enumerated() {
                let key = UniquenessIndex.Key(owner: ObjectIdentifier(owner), constraint: number)
                if !index.isBuilt(key) {
                    index.build(key, keys: keys, rows: (current.tables[tableName(owner)] ?? [:]).values.filter { $0.entity.isKindOf(entity: owner) })
                }
                if let other = index.row(matching: row, keys: keys, key: key), other.objectID != row.objectID {
                    var error = StrataError(
                        code: StrataError.Code.managedObjectConstraintMerge, message: "Uniqueness constraint \(keys) of \(owner.name) violated", entityName: owner.name, objectID: row.objectID)
                    error.conflicts = [
                        MergeConflict(
                            objectID: row.objectID, oldVersionNumber: 0, newVersionNumber: other.version, cachedSnapshot: [:], persistedSnapshot: other.printable(), objectSnapshot: row.printable(),
                            constraint: keys, conflictingObjectID: other.objectID)
                    ]
                    throw error
                }
                if let old { index.remove(old, keys: keys, key: key) }
                index.add(row, keys: keys, key: key)
            }
            ancestor = owner.superentity
        }
    }
}

/// A frozen copy of the in-memory store's state: a query generation.
final class PinnedMemoryState: PinnedStoreState, @unchecked Sendable {
    // @unchecked Sendable: immutable (a copy-on-write value never mutated after init).
    let state: InMemoryStore.State
    init(state: InMemoryStore.State) { self.state = state }
    func release() {}
}

extension InMemoryStore.State {
    /// Keeps the foreign-key index in step with a row change (insert: `old` nil; delete: `new`
    /// nil); `slots` limits the work to the to-ones an update changed.
    mutating func index(old: RowSnapshot?, new: RowSnapshot?, slots: [Int]? = nil) {
        guard let row = new ?? old, let pk = row.objectID.primaryKey else { return }
        let relationships = row.entity.layout.toOneRelationships
        for slot in slots ?? Array(relationships.indices) where slot < relationships.count {
            let relationship = relationships[slot]
            let before = old.flatMap { slot < $0.toOneCount ? $0.toOne(at: slot)?.primaryKey : nil }
            let after = new.flatMap { slot < $0.toOneCount ? $0.toOne(at: slot)?.primaryKey : nil }
            if before == after { continue }
            let key = ObjectIdentifier(relationship)
            if let before {
                referrers[key]?[before]?.remove(pk)
                if referrers[key]?[before]?.isEmpty == true { referrers[key]?[before] = nil }
            }
            if let after { referrers[key, default: [:]][after, default: []].insert(pk) }
        }
    }

    /// Replaces the join rows of `source` (in order).
    mutating func setJoinRows(_ join: String, source: Int64, targets: [Int64]) {
        for target in joins[join]?[source] ?? [] {
            reverseJoins[join]?[target]?.remove(source)
            if reverseJoins[join]?[target]?.isEmpty == true { reverseJoins[join]?[target] = nil }
        }
        var seen = Set<Int64>()
        let unique = targets.filter { seen.insert($0).inserted }
        joins[join, default: [:]][source] = unique.isEmpty ? nil : unique
        for target in unique { reverseJoins[join, default: [:]][target, default: []].insert(source) }
    }

    /// Removes and adds join rows of `source` (added ones go at the end).
    mutating func editJoinRows(_ join: String, source: Int64, removing removed: [Int64], adding added: [Int64]) {
        if !removed.isEmpty {
            let gone = Set(removed)
            joins[join]?[source]?.removeAll { gone.contains($0) }
            for target in gone {
                reverseJoins[join]?[target]?.remove(source)
                if reverseJoins[join]?[target]?.isEmpty == true { reverseJoins[join]?[target] = nil }
            }
        }
        for target in added where reverseJoins[join]?[target]?.contains(source) != true {
            joins[join, default: [:]][source, default: []].append(target)
            reverseJoins[join, default: [:]][target, default: []].insert(source)
        }
        if joins[join]?[source]?.isEmpty == true { joins[join]?[source] = nil }
    }

    /// Removes every join row pointing to `target`.
    mutating func removeJoinRows(_ join: String, target: Int64) {
        guard let sources = reverseJoins[join]?[target] else { return }
        for source in sources {
            joins[join]?[source]?.removeAll { $0 == target }
            if joins[join]?[source]?.isEmpty == true { joins[join]?[source] = nil }
        }
        reverseJoins[join]?[target] = nil
    }
}

/// A stored row seen by the in-memory evaluator. Two references, so it fits an existential's
/// inline buffer (the evaluator passes rows as `any EvaluationRow` without allocating).
struct StoredRow: EvaluationRow {
    let snapshot: RowSnapshot
    /// The store state the fetch reads, with its to-many index.
    let index: InMemoryToManyIndex

    var evaluationObjectID: ManagedObjectID { snapshot.objectID }

    func evaluationAttribute(slot: Int) -> StoredValue {
        slot < snapshot.attributes.count ? snapshot.attributes[slot] : .null
    }

    func evaluationToOneID(slot: Int) -> ManagedObjectID? {
        slot < snapshot.toOneCount ? snapshot.toOne(at: slot) : nil
    }

    func evaluationToOneRow(slot: Int) -> (any EvaluationRow)? {
        guard let id = evaluationToOneID(slot: slot), let pk = id.primaryKey,
            let row = index.state.tables[id.entity.rootEntity.name]?[pk]
        else { return nil }
        return StoredRow(snapshot: row, index: index)
    }

    func evaluationToManyRows(slot: Int) -> [any EvaluationRow] {
        let relationships = snapshot.entity.layout.toManyRelationships
        guard slot < relationships.count, let owner = snapshot.objectID.primaryKey else { return [] }
        let relationship = relationships[slot]
        guard let destination = relationship.destinationEntity, let table = index.state.tables[destination.rootEntity.name] else { return [] }
        return index.memberKeys(of: owner, relationship: relationship).compactMap { key in
            table[key].map { StoredRow(snapshot: $0, index: index) }
        }
    }
}
