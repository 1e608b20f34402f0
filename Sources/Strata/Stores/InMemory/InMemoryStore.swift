import Foundation
import StrataSQLite
import Synchronization

/// A store kept in memory, with the same observable behaviour as the SQLite store: the same
/// primary keys and row versions, optimistic locking, relationship storage and ordering. Its
/// fetches run the in-memory evaluator over stored rows, so it doubles as the second engine
/// that SQL fetches are checked against. Thread-safe.
final class InMemoryStore: StoreBackend, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside `state`; the schema is immutable.
    struct State {
        /// Rows by table (inheritance root name) and primary key.
        var tables: [String: [Int64: RowSnapshot]] = [:]
        /// Join rows by join table name: source key → target keys in order.
        var joins: [String: [Int64: [Int64]]] = [:]
        /// Positions of ordered one-to-many members, by relationship key and member key.
        var positions: [String: [Int64: Int64]] = [:]
        /// Last primary key handed out, by table.
        var lastKeys: [String: Int64] = [:]
        var metadata: [String: any Sendable] = [:]
    }

    let token: StoreToken
    let model: ManagedObjectModel
    let schema: SQLiteSchema
    private let state: Mutex<State>

    init(model: ManagedObjectModel) {
        self.model = model
        self.schema = SQLiteSchema(model: model)
        let identifier = UUID().uuidString
        self.token = StoreToken(identifier: identifier)
        var initial = State()
        var entityHashes: [String: String] = [:]
        for (name, hash) in model.entityVersionHashesByName { entityHashes[name] = hash.hexString }
        initial.metadata = [
            PersistentStore.MetadataKey.storeUUID: identifier,
            PersistentStore.MetadataKey.storeType: StoreType.inMemory.rawValue,
            PersistentStore.MetadataKey.modelVersionHash: model.versionHash.hexString,
            PersistentStore.MetadataKey.entityVersionHashes: entityHashes,
        ]
        self.state = Mutex(initial)
    }

    func close() {}

    func metadata() -> [String: any Sendable] { state.withLock { $0.metadata } }

    func setMetadata(_ metadata: [String: any Sendable]) throws {
        state.withLock { current in
            var merged = metadata
            for key in [PersistentStore.MetadataKey.storeUUID, PersistentStore.MetadataKey.storeType, PersistentStore.MetadataKey.modelVersionHash, PersistentStore.MetadataKey.entityVersionHashes] {
                merged[key] = current.metadata[key]
            }
            current.metadata = merged
        }
    }

    private func tableName(_ entity: EntityDescription) -> String { entity.rootEntity.name }

    /// A copy of the state to read without holding the lock (copy-on-write: no copy is made);
    /// the pinned one when the current thread reads through a query generation of this store.
    private func snapshotState() -> State {
        if let pinned = CurrentGeneration.value?.state(for: self) as? PinnedMemoryState { return pinned.state }
        return state.withLock { $0 }
    }

    var generationKey: AnyObject { self }

    func pinGeneration() throws -> any PinnedStoreState {
        PinnedMemoryState(state: state.withLock { $0 })
    }

    // MARK: Reading

    private func matchingRows(_ plan: FetchPlan, in current: State) throws -> [RowSnapshot] {
        let rows = (current.tables[tableName(plan.entity)] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
        var matched: [any EvaluationRow] = []
        for row in rows {
            let storeRow = StoredRow(snapshot: row, store: self, state: current)
            if try plan.matches(storeRow) { matched.append(storeRow) }
        }
        var ordered = try plan.sortRows(matched)
        if plan.offset > 0 { ordered = Array(ordered.dropFirst(plan.offset)) }
        if plan.limit > 0 { ordered = Array(ordered.prefix(plan.limit)) }
        return ordered.compactMap { ($0 as? StoredRow)?.snapshot }
    }

    func fetchRows(_ plan: FetchPlan) throws -> [RowSnapshot] {
        try matchingRows(plan, in: snapshotState())
    }

    func fetchIDs(_ plan: FetchPlan) throws -> [ManagedObjectID] {
        try matchingRows(plan, in: snapshotState()).map(\.objectID)
    }

    func count(_ plan: FetchPlan) throws -> Int {
        try matchingRows(plan, in: snapshotState()).count
    }

    func snapshots(for ids: [ManagedObjectID]) throws -> [RowSnapshot] {
        let current = snapshotState()
        return ids.compactMap { id in id.primaryKey.flatMap { current.tables[tableName(id.entity)]?[$0] } }
    }

    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [ManagedObjectID]] {
        let current = snapshotState()
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
            var members: [(position: Int64, key: Int64, id: ManagedObjectID)] = []
            let positions = current.positions[Self.relationshipKey(relationship)] ?? [:]
            for (key, row) in destinationTable {
                guard case .toOne(let slot)? = row.entity.layout.slots[inverse.name], slot < row.toOne.count,
                      row.toOne[slot]?.primaryKey == pk else { continue }
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
                keys = (current.joins[join.name] ?? [:]).filter { $0.value.contains(pk) }.map(\.key).sorted()
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
        try state.withLock { current in
            var working = current
            let result = try apply(changes, to: &working)
            try body()
            current = working  // all or nothing; cannot fail once `body` returned
            return result
        }
    }

    private func apply(_ changes: StoreChangeSet, to working: inout State) throws -> StoreSaveResult {
        var result = StoreSaveResult()
        for insert in changes.inserts {
            if !insert.objectID.isTemporaryID {
                result.permanentIDs[insert.objectID] = insert.objectID
                continue
            }
            let table = tableName(insert.objectID.entity)
            let key = (working.lastKeys[table] ?? 0) + 1
            working.lastKeys[table] = key
            result.permanentIDs[insert.objectID] = ManagedObjectID(entity: insert.objectID.entity, primaryKey: key, store: token)
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
            let toOne = ContiguousArray(try insert.toOne.map(resolve))
            let row = RowSnapshot(objectID: permanent, version: 1, attributes: insert.attributes, toOne: toOne)
            try checkUniqueness(row, in: working)
            working.tables[tableName(permanent.entity), default: [:]][pk] = row
            result.versions[permanent] = 1
        }
        var conflicts: [MergeConflict] = []
        for update in changes.updates {
            guard let pk = update.objectID.primaryKey else { continue }
            let table = tableName(update.objectID.entity)
            guard let existing = working.tables[table]?[pk], update.ignoresVersion || existing.version == update.baseVersion else {
                let persisted = working.tables[table]?[pk]
                conflicts.append(MergeConflict(
                    objectID: update.objectID, oldVersionNumber: update.baseVersion, newVersionNumber: persisted?.version ?? 0,
                    cachedSnapshot: [:], persistedSnapshot: persisted?.printable(),
                    objectSnapshot: RowSnapshot(objectID: update.objectID, version: update.baseVersion, attributes: update.attributes, toOne: update.toOne).printable()))
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
            let row = RowSnapshot(objectID: existing.objectID, version: existing.version + 1, attributes: attributes, toOne: toOne)
            try checkUniqueness(row, in: working)
            working.tables[table]?[pk] = row
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
                var members = working.joins[join.name]?[owner] ?? []
                if join.isOrdered, let ordered = change.ordered {
                    members = try ordered.compactMap { try resolve($0)?.primaryKey }
                } else {
                    let removed = Set(try change.removed.compactMap { try resolve($0)?.primaryKey })
                    members.removeAll { removed.contains($0) }
                    for added in change.added {
                        if let pk = try resolve(added)?.primaryKey, !members.contains(pk) { members.append(pk) }
                    }
                }
                working.joins[join.name, default: [:]][owner] = members
            }
        }
        for deletion in changes.deletes {
            guard let pk = deletion.objectID.primaryKey else { continue }
            let table = tableName(deletion.objectID.entity)
            guard let existing = working.tables[table]?[pk], deletion.ignoresVersion || existing.version == deletion.baseVersion else {
                let persisted = working.tables[table]?[pk]
                conflicts.append(MergeConflict(
                    objectID: deletion.objectID, oldVersionNumber: deletion.baseVersion, newVersionNumber: persisted?.version ?? 0,
                    cachedSnapshot: [:], persistedSnapshot: persisted?.printable(), objectSnapshot: [:]))
                continue
            }
            working.tables[table]?[pk] = nil
            for join in schema.joinTables {
                if let owner = join.owner.entity, deletion.objectID.entity.isKindOf(entity: owner) { working.joins[join.name]?[pk] = nil }
                if let destination = join.owner.destinationEntity, deletion.objectID.entity.isKindOf(entity: destination) {
                    for (source, targets) in working.joins[join.name] ?? [:] where targets.contains(pk) {
                        working.joins[join.name]?[source] = targets.filter { $0 != pk }
                    }
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

    /// Enforces the entities' uniqueness constraints, as the SQLite store's unique indexes do.
    private func checkUniqueness(_ row: RowSnapshot, in current: State) throws {
        let entity = row.entity
        var constrained: [(EntityDescription, [String])] = []
        var ancestor: EntityDescription? = entity
        while let current = ancestor {
            for constraint in current.uniquenessConstraints { constrained.append((current, constraint)) }
            ancestor = current.superentity
        }
        guard !constrained.isEmpty else { return }
        for (owner, keys) in constrained {
            func values(of candidate: RowSnapshot) -> [SQLiteValue?] {
                keys.map { key -> SQLiteValue? in
                    switch candidate.entity.layout.slots[key] {
                    case .attribute(let slot)?: return candidate.attributes[safe: slot]
                    case .toOne(let slot)?: return (candidate.toOne[safe: slot] ?? nil).flatMap { $0.primaryKey.map { .integer($0) } } ?? .null
                    default: return nil
                    }
                }
            }
            let mine = values(of: row)
            if mine.contains(where: { $0 == nil || $0 == .null }) { continue }  // NULLs never collide, as in SQLite
            for other in (current.tables[tableName(entity)] ?? [:]).values where other.objectID != row.objectID && other.entity.isKindOf(entity: owner) {
                if values(of: other) == mine {
                    var error = StrataError(code: StrataError.Code.managedObjectConstraintMerge, message: "Uniqueness constraint \(keys) of \(owner.name) violated", entityName: owner.name, objectID: row.objectID)
                    error.conflicts = [MergeConflict(objectID: row.objectID, oldVersionNumber: 0, newVersionNumber: other.version, cachedSnapshot: [:], persistedSnapshot: other.printable(), objectSnapshot: row.printable(), constraint: keys, conflictingObjectID: other.objectID)]
                    throw error
                }
            }
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

/// A stored row seen by the in-memory evaluator.
struct StoredRow: EvaluationRow {
    let snapshot: RowSnapshot
    let store: InMemoryStore
    let state: InMemoryStore.State

    var evaluationObjectID: ManagedObjectID { snapshot.objectID }

    func evaluationAttribute(slot: Int) -> SQLiteValue {
        slot < snapshot.attributes.count ? snapshot.attributes[slot] : .null
    }

    func evaluationToOneID(slot: Int) -> ManagedObjectID? {
        slot < snapshot.toOne.count ? snapshot.toOne[slot] : nil
    }

    func evaluationToOneRow(slot: Int) -> (any EvaluationRow)? {
        guard let id = evaluationToOneID(slot: slot), let pk = id.primaryKey,
              let row = state.tables[id.entity.rootEntity.name]?[pk] else { return nil }
        return StoredRow(snapshot: row, store: store, state: state)
    }

    func evaluationToManyRows(slot: Int) -> [any EvaluationRow] {
        let relationship = snapshot.entity.layout.toManyRelationships[slot]
        return store.toMany(of: snapshot.objectID, relationship: relationship, in: state).compactMap { id in
            guard let pk = id.primaryKey, let row = state.tables[id.entity.rootEntity.name]?[pk] else { return nil }
            return StoredRow(snapshot: row, store: store, state: state)
        }
    }
}
