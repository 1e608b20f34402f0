import Foundation
import Strata
import StrataLocks

/// A third store, written only against Strata's public store seam (`IncrementalStore`), for the
/// store conformance tests: rows in dictionaries, predicates and sorting left to
/// `StoreFetchRequest.evaluate`, to-many relationships found through the inverse to-one or kept
/// as member lists, optimistic locking by row versions. Register it with
/// `PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)`.
/// Thread-safe: every state change happens under one lock.
public final class DictionaryStore: IncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside `state`.
    /// The type this store is registered under in the tests.
    public static let storeType = StoreType(rawValue: "StrataTestDictionary")

    private struct State {
        /// Rows by inheritance root name, then key.
        var rows: [String: [Int64: IncrementalStoreNode]] = [:]
        /// Member lists of many-to-many relationships (one side of each), by relationship
        /// ("Entity.name"), then owner key.
        var lists: [String: [Int64: [ManagedObjectID]]] = [:]
        /// Positions of the members of ordered one-to-many relationships, by relationship,
        /// then member key.
        var positions: [String: [Int64: Int]] = [:]
        /// Last key handed out, by inheritance root name.
        var lastKeys: [String: Int64] = [:]
    }

    private let state = StrataLock(State())
    private let uuid = UUID().uuidString
    private let lastRequest = StrataLock<StoreFetchRequest?>(nil)

    /// The last fetch request the store received (what a store that translates predicates
    /// would read: entity, predicate tree, sort, window).
    public var lastFetch: StoreFetchRequest? { lastRequest.withLock { $0 } }

    /// Creates an empty store (`url` and `options` are kept, not used). Called by the
    /// coordinator from `addPersistentStore`, on any thread.
    public required init(model: ManagedObjectModel, configurationName: String?, url: URL?, options: [String: any Sendable]) throws {
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
    }

    /// The option (`Bool`) that makes the store say it reports changes made elsewhere.
    public static let reportsChangesOption = "StrataTestReportsChangesMadeElsewhere"

    /// True when added with ``reportsChangesOption``: the tests then play "another process".
    public override var reportsChangesMadeElsewhere: Bool { (options[Self.reportsChangesOption] as? Bool) ?? false }

    /// Writes `values` over the row of `objectID` and bumps its version, as another process
    /// would, without telling the coordinator; returns the new version (nil: no such row).
    /// Callable from any thread.
    public func overwriteRowElsewhere(_ objectID: ManagedObjectID, values: [String: Any]) throws -> Int64? {
        guard let key = referenceObject(for: objectID) else { return nil }
        let root = objectID.entity.rootEntity.name
        return try state.withLock { current -> Int64? in
            guard let old = current.rows[root]?[key] else { return nil }
            var merged: [String: Any] = [:]
            for property in objectID.entity.allProperties where !property.isTransient {
                if let value = old.value(forKey: property.name) { merged[property.name] = value }
            }
            for (name, value) in values { merged[name] = value }
            let node = try IncrementalStoreNode(objectID: objectID, values: merged, version: old.version + 1)
            current.rows[root]?[key] = node
            return node.version
        }
    }

    public override func loadMetadata() throws -> [String: any Sendable] {
        [StoreMetadataKey.storeUUID: uuid, StoreMetadataKey.storeType: Self.storeType.rawValue]
    }

    // MARK: Reading

    public override func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
        lastRequest.withLock { $0 = request }
        let candidates = state.withLock { Array(($0.rows[request.entity.rootEntity.name] ?? [:]).values) }
        return try request.evaluate(candidates, in: self, options: options)
    }

    public override func newValuesForObjects(with ids: [ManagedObjectID], options: ReadOptions) throws -> [IncrementalStoreNode] {
        state.withLock { current in
            ids.compactMap { id in referenceObject(for: id).flatMap { current.rows[id.entity.rootEntity.name]?[$0] } }
        }
    }

    public override func newValues(
        forRelationship relationship: RelationshipDescription, forObjectsWith ids: [ManagedObjectID], options: ReadOptions
    ) throws -> [ManagedObjectID: [ManagedObjectID]] {
        state.withLock { current in
            var result: [ManagedObjectID: [ManagedObjectID]] = [:]
            for id in ids { result[id] = members(of: id, relationship: relationship, in: current) }
            return result
        }
    }

    /// Where the members of a to-many relationship are kept.
    private enum Storage {
        /// Found through the members' inverse to-one; the order of an ordered relationship in
        /// `positions`.
        case inverseToOne(RelationshipDescription)
        /// A member list per owner (one side of a many-to-many).
        case list
        /// The other side of a many-to-many whose lists are kept on `canonical`.
        case reverse(canonical: RelationshipDescription)
    }

    private static func storage(of relationship: RelationshipDescription) -> Storage {
        guard let inverse = relationship.inverseRelationship else { return .list }
        guard inverse.isToMany else { return .inverseToOne(inverse) }
        let canonical: RelationshipDescription
        if relationship.isOrdered != inverse.isOrdered {
            canonical = relationship.isOrdered ? relationship : inverse
        } else {
            canonical = relationshipKey(relationship) <= relationshipKey(inverse) ? relationship : inverse
        }
        return canonical === relationship ? .list : .reverse(canonical: canonical)
    }

    private static func relationshipKey(_ relationship: RelationshipDescription) -> String {
        "\(relationship.entity?.name ?? "?").\(relationship.name)"
    }

    private func members(of owner: ManagedObjectID, relationship: RelationshipDescription, in current: State) -> [ManagedObjectID] {
        guard let ownerKey = referenceObject(for: owner), let destination = relationship.destinationEntity else { return [] }
        let table = current.rows[destination.rootEntity.name] ?? [:]
        switch Self.storage(of: relationship) {
        case .inverseToOne(let inverse):
            let positions = current.positions[Self.relationshipKey(relationship)] ?? [:]
            let keys = table.keys.filter { key in
                guard let row = table[key], row.entity.isKindOf(entity: destination) else { return false }
                return row.value(forKey: inverse.name) as? ManagedObjectID == owner
            }
            return keys.sorted { a, b in
                let (pa, pb) = (positions[a] ?? Int.max, positions[b] ?? Int.max)
                return relationship.isOrdered && pa != pb ? pa < pb : a < b
            }.compactMap { table[$0]?.objectID }
        case .list:
            return (current.lists[Self.relationshipKey(relationship)]?[ownerKey] ?? []).filter { id in
                referenceObject(for: id).map { table[$0] != nil } ?? false
            }
        case .reverse(let canonical):
            let lists = current.lists[Self.relationshipKey(canonical)] ?? [:]
            return lists.keys.sorted().compactMap { key in
                guard let list = lists[key], list.contains(owner) else { return nil }
                return table[key]?.objectID
            }
        }
    }

    // MARK: Writing

    public override func obtainPermanentIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        state.withLock { current in
            let root = entity.rootEntity.name
            let first = (current.lastKeys[root] ?? 0) + 1
            current.lastKeys[root] = first + Int64(count) - 1
            return (0..<count).map { newObjectID(for: entity, referenceObject: first + Int64($0)) }
        }
    }

    /// How many batch updates the store ran itself (the others Strata ran through `save`).
    public var batchUpdatesRun: Int { batchUpdateCount.withLock { $0 } }
    private let batchUpdateCount = StrataLock(0)

    /// Runs batch updates that set constants only (expressions are left to Strata): the
    /// matching rows get the new values and a new version, all under the store's lock.
    public override func executeBatchUpdate(_ request: StoreBatchUpdateRequest) throws -> StoreBatchUpdateResult? {
        guard request.expressionsToUpdate.isEmpty else { return nil }
        let constants = request.constantsToUpdate
        let matching = try fetchRows(request.rows, options: .default)
        try state.withLock { current in
            var working = current
            for old in matching {
                var values: [String: Any] = [:]
                for property in old.entity.allProperties where !property.isTransient {
                    if let value = old.value(forKey: property.name) { values[property.name] = value }
                }
                for (name, value) in constants { values[name] = value }
                guard let key = referenceObject(for: old.objectID) else { continue }
                guard working.rows[old.entity.rootEntity.name]?[key]?.version == old.version else {
                    throw StrataError(code: StrataError.Code.managedObjectMerge, message: "A save changed a matching row during the batch update", objectID: old.objectID)
                }
                working.rows[old.entity.rootEntity.name]?[key] = try IncrementalStoreNode(objectID: old.objectID, values: values, version: old.version + 1)
            }
            current = working  // all or nothing
        }
        batchUpdateCount.withLock { $0 += 1 }
        return StoreBatchUpdateResult(count: matching.count, updatedObjectIDs: request.returnsObjectIDs ? matching.map(\.objectID) : [])
    }

    /// How many batch inserts the store ran itself (the others Strata ran through `save`).
    public var batchInsertsRun: Int { batchInsertCount.withLock { $0 } }
    private let batchInsertCount = StrataLock(0)

    /// Runs batch inserts without uniqueness constraints (upserts are left to Strata): new
    /// rows under new keys, version 1, all under the store's lock.
    public override func executeBatchInsert(_ request: StoreBatchInsertRequest) throws -> StoreBatchInsertResult? {
        guard request.uniquenessConstraints.isEmpty else { return nil }
        let ids = try obtainPermanentIDs(for: request.entity, count: request.count)
        let attributes = request.attributes
        var nodes: [IncrementalStoreNode] = []
        for (row, id) in ids.enumerated() {
            var values: [String: Any] = [:]
            for (index, attribute) in attributes.enumerated() {
                if let value = request.value(ofRow: row, attributeAt: index) { values[attribute.name] = value }
            }
            nodes.append(try IncrementalStoreNode(objectID: id, values: values, version: 1))
        }
        state.withLock { current in
            for node in nodes {
                guard let key = referenceObject(for: node.objectID) else { continue }
                current.rows[node.entity.rootEntity.name, default: [:]][key] = node
            }
        }
        batchInsertCount.withLock { $0 += 1 }
        return StoreBatchInsertResult(objectIDs: request.returnsObjectIDs ? ids : [])
    }

    /// How many batch deletes the store ran itself (the others Strata ran through `save`).
    public var batchDeletesRun: Int { batchDeleteCount.withLock { $0 } }
    private let batchDeleteCount = StrataLock(0)

    /// Runs batch deletes that reach no other row (no cascade, deny or inverse to clear): the
    /// starting rows removed under the store's lock. Deletes with delete rules to apply are
    /// left to Strata (nil). Callable from any thread.
    public override func executeBatchDelete(_ request: StoreBatchDeleteRequest) throws -> StoreBatchDeleteResult? {
        guard request.cascadeRelationships.isEmpty && request.denyRelationships.isEmpty && request.nullifyRelationships.isEmpty else { return nil }
        let starting: [ManagedObjectID]
        if let ids = request.objectIDs {
            starting = ids
        } else if let rows = request.rows {
            starting = try fetchRows(rows, options: .default).map(\.objectID)
        } else {
            return nil
        }
        let deleted = state.withLock { current -> [ManagedObjectID] in
            var deleted: [ManagedObjectID] = []
            for id in starting {
                let root = id.entity.rootEntity.name
                guard let key = referenceObject(for: id), let row = current.rows[root]?[key], row.entity === id.entity else { continue }
                current.rows[root]?[key] = nil
                for relationship in row.entity.relationshipsByName.values where relationship.isToMany {
                    current.lists[Self.relationshipKey(relationship)]?[key] = nil
                }
                deleted.append(id)
            }
            return deleted
        }
        batchDeleteCount.withLock { $0 += 1 }
        return StoreBatchDeleteResult(count: deleted.count, deletedObjectIDs: request.returnsObjectIDs ? deleted : [])
    }

    public override func save(_ request: SaveChangesRequest) throws -> SaveChangesResult {
        try state.withLock { current in
            var working = current
            let result = try apply(request, to: &working)
            current = working  // all or nothing
            return result
        }
    }

    private func apply(_ request: SaveChangesRequest, to working: inout State) throws -> SaveChangesResult {
        var result = SaveChangesResult()
        let inserted = request.insertedObjects
        for node in inserted {
            if let key = referenceObject(for: node.objectID) {
                result.permanentIDs[node.objectID] = node.objectID
                let root = node.entity.rootEntity.name
                working.lastKeys[root] = max(working.lastKeys[root] ?? 0, key)
                continue
            }
            let root = node.entity.rootEntity.name
            let key = (working.lastKeys[root] ?? 0) + 1
            working.lastKeys[root] = key
            result.permanentIDs[node.objectID] = newObjectID(for: node.entity, referenceObject: key)
        }
        func resolve(_ id: ManagedObjectID) throws -> ManagedObjectID {
            if !id.isTemporaryID { return id }
            guard let permanent = result.permanentIDs[id] else {
                throw StrataError(code: StrataError.Code.persistentStoreSave, message: "An object refers to an unsaved \(id.entityName) that is not part of this save", entityName: id.entityName)
            }
            return permanent
        }
        func values(of node: IncrementalStoreNode, keys: Set<String>? = nil) throws -> [String: Any] {
            var values: [String: Any] = [:]
            let entity = node.entity
            for attribute in entity.attributesByName.values where !attribute.isTransient {
                if keys == nil || keys?.contains(attribute.name) == true { values[attribute.name] = node.value(forKey: attribute.name) }
            }
            for relationship in entity.relationshipsByName.values where !relationship.isToMany {
                if keys == nil || keys?.contains(relationship.name) == true,
                    let target = node.value(forKey: relationship.name) as? ManagedObjectID
                {
                    values[relationship.name] = try resolve(target)
                }
            }
            return values
        }
        for node in inserted {
            guard let permanent = result.permanentIDs[node.objectID], let key = referenceObject(for: permanent) else { continue }
            let row = try IncrementalStoreNode(objectID: permanent, values: values(of: node), version: 1)
            working.rows[node.entity.rootEntity.name, default: [:]][key] = row
            result.versions[permanent] = 1
        }
        var conflicts: [MergeConflict] = []
        for update in request.updatedObjects {
            let node = update.node
            guard let key = referenceObject(for: node.objectID) else { continue }
            let root = node.entity.rootEntity.name
            guard let existing = working.rows[root]?[key], update.ignoresVersion || existing.version == update.baseVersion else {
                conflicts.append(
                    MergeConflict(
                        objectID: node.objectID, oldVersionNumber: update.baseVersion, newVersionNumber: working.rows[root]?[key]?.version ?? 0,
                        cachedSnapshot: [:], persistedSnapshot: nil, objectSnapshot: [:]))
                continue
            }
            var merged = try values(of: existing)
            for (name, value) in try values(of: node, keys: update.changedKeys) { merged[name] = value }
            for name in update.changedKeys where node.value(forKey: name) == nil { merged[name] = nil }
            let row = try IncrementalStoreNode(objectID: existing.objectID, values: merged, version: existing.version + 1)
            working.rows[root]?[key] = row
            result.versions[existing.objectID] = row.version
        }
        for change in request.toManyChanges {
            let owner = try resolve(change.owner)
            guard let ownerKey = referenceObject(for: owner) else { continue }
            let relationshipKey = Self.relationshipKey(change.relationship)
            switch Self.storage(of: change.relationship) {
            case .inverseToOne:
                // Membership is the members' to-one; only the order is kept here.
                guard change.relationship.isOrdered, let ordered = change.ordered else { continue }
                for (index, member) in try ordered.map(resolve).enumerated() {
                    if let key = referenceObject(for: member) { working.positions[relationshipKey, default: [:]][key] = index }
                }
            case .list:
                var list = working.lists[relationshipKey]?[ownerKey] ?? []
                if let ordered = change.ordered {
                    list = try ordered.map(resolve)
                } else {
                    let removed = Set(try change.removed.map(resolve))
                    list.removeAll { removed.contains($0) }
                    for member in try change.added.map(resolve) where !list.contains(member) { list.append(member) }
                }
                working.lists[relationshipKey, default: [:]][ownerKey] = list
            case .reverse(let canonical):
                let canonicalKey = Self.relationshipKey(canonical)
                for member in try change.removed.map(resolve) {
                    if let key = referenceObject(for: member) { working.lists[canonicalKey]?[key]?.removeAll { $0 == owner } }
                }
                for member in try change.added.map(resolve) {
                    guard let key = referenceObject(for: member) else { continue }
                    var list = working.lists[canonicalKey]?[key] ?? []
                    if !list.contains(owner) { list.append(owner) }
                    working.lists[canonicalKey, default: [:]][key] = list
                }
            }
        }
        for deletion in request.deletedObjects {
            guard let key = referenceObject(for: deletion.objectID) else { continue }
            let root = deletion.objectID.entity.rootEntity.name
            guard let existing = working.rows[root]?[key], deletion.ignoresVersion || existing.version == deletion.baseVersion else {
                conflicts.append(
                    MergeConflict(
                        objectID: deletion.objectID, oldVersionNumber: deletion.baseVersion, newVersionNumber: working.rows[root]?[key]?.version ?? 0,
                        cachedSnapshot: [:], persistedSnapshot: nil, objectSnapshot: [:]))
                continue
            }
            working.rows[root]?[key] = nil
            // Lists the row owned go with it; lists holding it skip it when read (keys are never reused).
            for relationship in existing.entity.relationshipsByName.values where relationship.isToMany {
                working.lists[Self.relationshipKey(relationship)]?[key] = nil
            }
        }
        if !conflicts.isEmpty {
            var error = StrataError(code: StrataError.Code.managedObjectMerge, message: "Optimistic locking failure: \(conflicts.count) object(s) changed in the store since they were read")
            error.conflicts = conflicts
            throw error
        }
        return result
    }
}
