import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLStore {
    /// Applies a save in one `READ COMMITTED` transaction: all of it or none of it.
    ///
    /// 1. Inserted objects with temporary IDs get keys from their root's sequence (one
    ///    statement per table); rows are inserted with version 1, many per statement (one
    ///    multi-row `INSERT` per entity and batch), to-ones naming inserted objects resolved to
    ///    their new keys (foreign keys are deferred to the commit, so objects may point at each
    ///    other).
    /// 2. Updates write only their changed keys, bump `"$version"` and check the base version
    ///    (`WHERE "$version" = base`, unless the update ignores versions), in key order so that
    ///    two saves lock rows in the same order. An update that touches no row is a conflict.
    /// 3. To-many changes stored in join tables: pairs removed and added (`ON CONFLICT DO
    ///    NOTHING`, so a many-to-many change arriving from both sides is written once), then the
    ///    positions of ordered ones rewritten from their new order. Membership of an owner is
    ///    guarded by the owner's version check (Strata sends the owner as an update), and the
    ///    pair key and foreign keys keep two concurrent saves from making duplicate or dangling
    ///    pairs.
    /// 4. Deletes, with the same version check (join rows go with the row; to-ones pointing at
    ///    it become NULL).
    /// 5. When the store tracks history, the save recorded as one history transaction
    ///    (PostgreSQLStore+History.swift), deleted rows' preserved values read as they go.
    /// 6. The changes announced to the other stores on the namespace (PostgreSQLStore+Changes.swift),
    ///    delivered at the commit.
    ///
    /// A deadlock or serialization failure reported by the server rolls the transaction back and
    /// the save runs again (at most ``saveAttempts`` times in all). Stale updates and deletes
    /// roll the transaction back and throw 133020 with a
    /// `MergeConflict` for each (the row's current version and values, 0 and nil when it is
    /// gone), as the SQLite and in-memory stores do. A uniqueness violation is 133021; any other
    /// failure is 134030 carrying the SQLSTATE and the server's message. Callable from any thread.
    func saveChanges(_ request: SaveChangesRequest) throws -> SaveChangesResult {
        let inserted = request.insertedObjects
        let updates = request.updatedObjects
        let deletes = request.deletedObjects
        let toMany = request.toManyChanges
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try attemptSave(request, inserted: inserted, updates: updates, deletes: deletes, toMany: toMany)
            } catch let error as PostgreSQLError where error.isTransactionRetryable && attempt < Self.saveAttempts {
                // A deadlock (40P01) or serialization failure (40001) rolled everything back:
                // the save runs again from the start, with new keys for its inserted objects.
                continue
            } catch let error as PostgreSQLError where error.isUniqueViolation {
                throw strataError(error, while: "Saving to the PostgreSQL store (a uniqueness constraint)", code: StrataError.Code.managedObjectConstraintMerge)
            } catch {
                throw strataError(error, while: "Saving to the PostgreSQL store", code: StrataError.Code.persistentStoreSave)
            }
        }
    }

    /// How many times a save runs when the server rolls it back for a deadlock or a
    /// serialization failure (which a retry resolves) before the error is thrown.
    static let saveAttempts = 3

    /// One run of a save's transaction, announcing its changes to other stores inside it
    /// (`NOTIFY` is sent at commit only); throws `PostgreSQLError`s as they come (see
    /// ``saveChanges(_:)``).
    private func attemptSave(
        _ request: SaveChangesRequest, inserted: [IncrementalStoreNode], updates: [SaveChangesRequest.Update], deletes: [SaveChangesRequest.Deletion], toMany: [SaveChangesRequest.ToManyChange]
    ) throws -> SaveChangesResult {
        try pool.withConnection { connection in
            try connection.transaction(isolation: .readCommitted) {
                var writer = SaveWriter(store: self, connection: connection)
                try writer.assignKeys(inserted)
                try writer.insert(inserted)
                // Each `node` is made on access: take the IDs once, then sort.
                let ordered = updates.map { (update: $0, id: $0.node.objectID) }.sorted { writer.lockOrder($0.id, $1.id) }
                for entry in ordered { try writer.update(entry.update) }
                try writer.writeToMany(toMany)
                for deletion in deletes.sorted(by: { writer.lockOrder($0.objectID, $1.objectID) }) { try writer.delete(deletion) }
                if !writer.conflicts.isEmpty {
                    var error = StrataError(
                        code: StrataError.Code.managedObjectMerge,
                        message: "Optimistic locking failure: \(writer.conflicts.count) object(s) changed in the store since they were read")
                    error.conflicts = writer.conflicts
                    throw error
                }
                var history: Int64?
                if tracksHistory {
                    history = try recordHistory(
                        request.historyChanges(permanentIDs: writer.result.permanentIDs, tombstones: writer.tombstones), author: request.transactionAuthor,
                        contextName: request.contextName, on: connection)
                }
                try announceChanges(of: request, result: writer.result, historyTransactionNumber: history, on: connection)
                return writer.result
            }
        }
    }
}

/// The state of one save while its transaction is open: the permanent IDs handed out, the
/// versions written, the conflicts found. Lives on the saving thread only, for one save.
struct SaveWriter {
    let store: PostgreSQLStore
    let connection: PostgreSQLConnection
    /// What the save returns.
    var result = SaveChangesResult()
    /// Stale updates and deletes found so far.
    var conflicts: [MergeConflict] = []
    /// The preserved attribute values of the deleted rows, when the store tracks history.
    var tombstones: [ManagedObjectID: [String: Any]] = [:]

    private var pk: String { "\"\(PostgreSQLTable.primaryKeyColumn)\"" }
    private var versionColumn: String { "\"\(PostgreSQLTable.versionColumn)\"" }

    init(store: PostgreSQLStore, connection: PostgreSQLConnection) {
        self.store = store
        self.connection = connection
    }

    /// Whether `a` is locked before `b`: by table, then key.
    func lockOrder(_ a: ManagedObjectID, _ b: ManagedObjectID) -> Bool {
        let (rootA, rootB) = (a.entity.rootEntity.name, b.entity.rootEntity.name)
        if rootA != rootB { return rootA < rootB }
        return (store.referenceObject(for: a) ?? 0) < (store.referenceObject(for: b) ?? 0)
    }

    /// Gives every inserted object a permanent ID: its own when it has one, else a key from its
    /// root's sequence.
    mutating func assignKeys(_ inserted: [IncrementalStoreNode]) throws {
        var waiting: [String: (table: PostgreSQLTable, nodes: [IncrementalStoreNode])] = [:]
        for node in inserted {
            if store.referenceObject(for: node.objectID) != nil {
                result.permanentIDs[node.objectID] = node.objectID
                continue
            }
            let table = try store.plan(for: node.entity).table
            waiting[table.rootEntityName, default: (table, [])].nodes.append(node)
        }
        for name in waiting.keys.sorted() {
            guard let (table, nodes) = waiting[name] else { continue }
            let keys = try store.nextKeys(nodes.count, of: table, on: connection)
            for (node, key) in zip(nodes, keys) {
                result.permanentIDs[node.objectID] = store.newObjectID(for: node.entity, referenceObject: key)
            }
        }
    }

    /// The key of `id` in this store after the save (an inserted object's new key). Throws
    /// 134030 for an unsaved object that is not part of the save.
    func key(of id: ManagedObjectID) throws -> Int64 {
        if let key = store.referenceObject(for: result.permanentIDs[id] ?? id) { return key }
        throw StrataError(
            code: StrataError.Code.persistentStoreSave, message: "An object refers to an unsaved \(id.entity.name) that is not part of this save", entityName: id.entity.name)
    }

    /// The parameter for `field` of `node`.
    private func parameter(_ field: PostgreSQLEntityPlan.Field, of node: IncrementalStoreNode) throws -> PostgreSQLValue {
        switch field.kind {
        case .attribute(let attribute):
            return try PostgreSQLValueMapping.parameter(node.value(forKey: field.key), for: attribute)
        case .toOne:
            guard let target = node.value(forKey: field.key) as? ManagedObjectID else { return .null }
            return .int64(try key(of: target))
        }
    }

    /// The most parameters one multi-row `INSERT` binds (PostgreSQL's limit is 65,535).
    static let parametersPerInsert = 30_000

    /// Inserts the rows of `nodes` at version 1: one multi-row `INSERT` per entity (in name
    /// order) and batch of at most ``parametersPerInsert`` parameters.
    mutating func insert(_ nodes: [IncrementalStoreNode]) throws {
        var byEntity: [String: [IncrementalStoreNode]] = [:]
        for node in nodes { byEntity[node.entity.name, default: []].append(node) }
        for name in byEntity.keys.sorted() {
            guard let group = byEntity[name], let first = group.first else { continue }
            let plan = try store.plan(for: first.entity)
            let columns = [pk, "\"\(PostgreSQLTable.entityColumn)\"", versionColumn] + plan.fields.map(\.quotedColumn)
            let rowsPerStatement = max(1, Self.parametersPerInsert / columns.count)
            var start = 0
            while start < group.count {
                let batch = group[start..<min(start + rowsPerStatement, group.count)]
                start += rowsPerStatement
                var parameters: [PostgreSQLValue] = []
                var tuples: [String] = []
                for node in batch {
                    guard let permanent = result.permanentIDs[node.objectID], let key = store.referenceObject(for: permanent) else { continue }
                    let base = parameters.count
                    parameters += [.int64(key), .text(node.entity.name), .int64(1)]
                    for field in plan.fields { parameters.append(try parameter(field, of: node)) }
                    tuples.append("(" + (base + 1...parameters.count).map { "$\($0)" }.joined(separator: ", ") + ")")
                    result.versions[permanent] = 1
                }
                guard !tuples.isEmpty else { continue }
                try connection.execute(
                    "INSERT INTO \(plan.table.quotedName) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))", parameters: parameters)
            }
        }
    }

    /// Writes `update`'s changed keys and bumps the version, or records a conflict when the row
    /// is gone or (unless versions are ignored) at another version.
    mutating func update(_ update: SaveChangesRequest.Update) throws {
        let node = update.node
        let plan = try store.plan(for: node.entity)
        guard let key = store.referenceObject(for: node.objectID) else { return }
        let changed = update.changedKeys
        var assignments = ["\(versionColumn) = \(versionColumn) + 1"]
        var parameters: [PostgreSQLValue] = [.int64(key)]
        for field in plan.fields where changed.contains(field.key) {
            parameters.append(try parameter(field, of: node))
            assignments.append("\(field.quotedColumn) = $\(parameters.count)")
        }
        var sql = "UPDATE \(plan.table.quotedName) SET \(assignments.joined(separator: ", ")) WHERE \(pk) = $1"
        if !update.ignoresVersion {
            parameters.append(.int64(update.baseVersion))
            sql += " AND \(versionColumn) = $\(parameters.count)"
        }
        sql += " RETURNING \(versionColumn)"
        if let row = try store.run(sql, parameters: parameters, on: connection).first, let version = try row.int64(0) {
            result.versions[node.objectID] = version
            return
        }
        conflicts.append(try conflict(for: node.objectID, baseVersion: update.baseVersion, objectSnapshot: Self.printable(node)))
    }

    /// Deletes the row of `deletion`, or records a conflict as ``update(_:)`` does.
    mutating func delete(_ deletion: SaveChangesRequest.Deletion) throws {
        let plan = try store.plan(for: deletion.objectID.entity)
        guard let key = store.referenceObject(for: deletion.objectID) else { return }
        var sql = "DELETE FROM \(plan.table.quotedName) WHERE \(pk) = $1"
        var parameters: [PostgreSQLValue] = [.int64(key)]
        if !deletion.ignoresVersion {
            parameters.append(.int64(deletion.baseVersion))
            sql += " AND \(versionColumn) = $2"
        }
        // With history, the row's preserved values go into its tombstone.
        let preserved = store.tracksHistory ? deletion.objectID.entity.attributesPreservedInHistory : []
        let columns = preserved.compactMap { plan.table.column(forKey: $0.name, ofEntityNamed: deletion.objectID.entity.name) }
        if !preserved.isEmpty, columns.count == preserved.count {
            sql += " RETURNING " + (try columns.map { try PostgreSQLIdentifier.quoted($0) }.joined(separator: ", "))
        }
        let deleted = try store.run(sql, parameters: parameters, on: connection)
        if deleted.rowsAffected ?? 0 > 0 {
            if !preserved.isEmpty, columns.count == preserved.count, let row = deleted.first {
                var values: [String: Any] = [:]
                for (index, attribute) in preserved.enumerated() {
                    if let value = try PostgreSQLValueMapping.value(of: row, column: index, for: attribute) { values[attribute.name] = value }
                }
                tombstones[deletion.objectID] = values
            }
            return
        }
        conflicts.append(try conflict(for: deletion.objectID, baseVersion: deletion.baseVersion, objectSnapshot: [:]))
    }

    /// Writes the join-table pairs of `changes` (all pairs first, so that positions written
    /// next find every pair whichever side of a many-to-many brought it), then the positions of
    /// ordered relationships. To-manys stored as the inverse to-one need nothing here: the
    /// members' rows carry them.
    mutating func writeToMany(_ changes: [SaveChangesRequest.ToManyChange]) throws {
        var positions: [(sql: String, owner: Int64, members: [Int64])] = []
        for change in changes {
            guard case .joinTable(let join, let ownerColumn, let memberColumn, let positionColumn)? = store.schema.toManyStorage(of: change.relationship, for: change.owner.entity)
            else { continue }
            let owner = try key(of: change.owner)
            let ownerName = "\"\(ownerColumn)\""
            let memberName = "\"\(memberColumn)\""
            let insert = "INSERT INTO \(join.quotedName) (\(ownerName), \(memberName)) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING"
            if let ordered = change.ordered {
                let members = try ordered.map { try key(of: $0) }
                try connection.execute(
                    "DELETE FROM \(join.quotedName) WHERE \(ownerName) = $1 AND NOT (\(memberName) = ANY($2::bigint[]))",
                    parameters: [.int64(owner), PostgreSQLValueMapping.keyArray(members)])
                if !members.isEmpty { try connection.execute(insert, parameters: [.int64(owner), PostgreSQLValueMapping.keyArray(members)]) }
                if let positionColumn {
                    positions.append(
                        (
                            "UPDATE \(join.quotedName) AS j SET \"\(positionColumn)\" = t.n - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS t(m, n) WHERE j.\(ownerName) = $1 AND j.\(memberName) = t.m",
                            owner, members
                        ))
                }
                continue
            }
            // In key order, so that concurrent saves take the pairs' index locks in one order.
            let removed = try change.removed.map { try key(of: $0) }.sorted()
            let added = try change.added.map { try key(of: $0) }.sorted()
            if !removed.isEmpty {
                try connection.execute(
                    "DELETE FROM \(join.quotedName) WHERE \(ownerName) = $1 AND \(memberName) = ANY($2::bigint[])", parameters: [.int64(owner), PostgreSQLValueMapping.keyArray(removed)])
            }
            if !added.isEmpty { try connection.execute(insert, parameters: [.int64(owner), PostgreSQLValueMapping.keyArray(added)]) }
        }
        for position in positions {
            try connection.execute(position.sql, parameters: [.int64(position.owner), PostgreSQLValueMapping.keyArray(position.members)])
        }
    }

    /// A conflict for `id`: the version the change was based on, the row's current version and
    /// values (0 and nil when it is gone), and the object's values.
    private func conflict(for id: ManagedObjectID, baseVersion: Int64, objectSnapshot: [String: String]) throws -> MergeConflict {
        var persisted: IncrementalStoreNode?
        if let key = store.referenceObject(for: id) {
            let plan = try store.plan(for: id.entity)
            let rows = try connection.execute(
                "SELECT \(plan.selectList) FROM \(plan.table.quotedName) WHERE \(pk) = $1", parameters: [.int64(key)])
            persisted = try store.rowList(from: rows, plan: plan, on: connection).nodes.first
        }
        return MergeConflict(
            objectID: id, oldVersionNumber: baseVersion, newVersionNumber: persisted?.version ?? 0,
            cachedSnapshot: [:], persistedSnapshot: persisted.map(Self.printable), objectSnapshot: objectSnapshot)
    }

    /// `node`'s stored values as `[key: description]` (to-ones as URIs, no value as "nil"),
    /// the form conflicts carry.
    static func printable(_ node: IncrementalStoreNode) -> [String: String] {
        var values: [String: String] = [:]
        for property in node.entity.allProperties where !property.isTransient {
            if let relationship = property as? RelationshipDescription {
                guard !relationship.isToMany else { continue }
                values[property.name] = (node.value(forKey: property.name) as? ManagedObjectID)?.uriRepresentation().absoluteString ?? "nil"
            } else {
                values[property.name] = node.value(forKey: property.name).map { String(describing: $0) } ?? "nil"
            }
        }
        return values
    }
}
