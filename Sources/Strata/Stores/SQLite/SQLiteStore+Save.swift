import Foundation
import StrataSQLite

/// Writing: one `BEGIN IMMEDIATE` transaction per save; primary keys come from `Z_PRIMARYKEY`
/// inside it, so IDs are only handed out for saves that commit. The statements come from
/// `SaveStatements` (in `SQL/`); this file prepares, binds and steps them.
extension SQLiteStore {
    /// Every write transaction begins `IMMEDIATE`: it takes the write lock at once, waiting up to
    /// the busy timeout. A deferred transaction that reads and then writes fails with
    /// `SQLITE_BUSY` at once in WAL mode, whatever the timeout, when another connection wrote
    /// in between.
    static let writeTransaction = SQLiteTransactionKind.immediate

    /// Runs `body` in one write transaction on the writer connection (rolled back if it throws)
    /// and, once committed, wakes the remote-change poster. A `StrataError` passes through; any
    /// other error is wrapped, naming `what` ("Saving", "Batch delete of Mail"). Callable from
    /// any thread.
    func inWriteTransaction<T>(_ what: @autoclosure () -> String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        // Files of external binary data the transaction dropped (or wrote, when it rolls back)
        // are removed after it ends (`SQLiteStore+External.swift`).
        defer { sweepExternalData() }
        do {
            let result = try StrataTrace.span("write transaction", .sql, arguments: TraceArguments(.text("what", what()))) {
                try pool.withWriter { connection in
                    try connection.transaction(Self.writeTransaction) { try body(connection) }
                }
            }
            didCommitTransaction()
            return result
        } catch let error as StrataError {
            throw error
        } catch {
            throw wrap(error, what())
        }
    }

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        if configuration.refusesWrites { throw readOnlyError() }
        do {
            return try pool.withWriter { connection in
                try connection.transaction(Self.writeTransaction) { try allocate(count, for: entity, on: connection) }
            }
        } catch {
            throw wrap(error, "Obtaining permanent IDs")
        }
    }

    /// Hands out `count` primary keys for `entity`'s table inside the caller's write
    /// transaction (a save, a batch insert), so keys are used up only if it commits.
    func allocate(_ count: Int, for entity: EntityDescription, on connection: SQLiteConnection) throws -> [Int64] {
        let root = entity.rootEntity
        let statement = try connection.cachedStatement(SaveStatements.allocatePrimaryKeys)
        var returned: SQLiteValue?
        try statement.forEachRow([.integer(Int64(count)), .integer(root.layout.code)]) { returned = $0.value(at: 0) }
        // A damaged key table (no row for the entity, a maximum that is not an integer or
        // overflowed into a real, a negative one) must not hand out keys 0, -1… or trap: it is
        // a damaged store, as Core Data reports one (NSSQLiteError).
        guard case .integer(let last)? = returned, last >= Int64(count) else {
            let found = returned.map { "Z_MAX became \($0)" } ?? "it has no row for Z_ENT \(root.layout.code)"
            throw StrataError(
                code: StrataError.Code.sqlite,
                message: "The store's key table Z_PRIMARYKEY is damaged for entity '\(root.name)': \(found), so no primary key can be handed out",
                entityName: root.name, url: url)
        }
        return Array((last - Int64(count) + 1)...last)
    }

    /// The error of a write of `entity`'s rows that SQLite refused with `SQLITE_CONSTRAINT` (a
    /// unique index, for one): Core Data's constraint merge error (133021), saying what was being
    /// done (`what`) and naming the object whose row failed when it is known. Called inside the
    /// write's transaction, on the writer's thread.
    func constraintFailure(_ error: SQLiteError, while what: String, entity: EntityDescription, objectID: ManagedObjectID?) -> StrataError {
        var failure = StrataError.sqlite(error, while: what, url: url, defaultCode: StrataError.Code.managedObjectConstraintMerge)
        failure.entityName = entity.name
        failure.objectID = objectID
        return failure
    }

    /// Why a write is refused: the store was opened read-only, or it keeps a persistent history
    /// and was opened without tracking.
    func readOnlyError() -> StrataError {
        if configuration.hasUntrackedHistory {
            return StrataError(
                code: StrataError.Code.persistentStoreSave,
                message:
                    "The store keeps a persistent history but was added without PersistentStoreOption.persistentHistoryTracking: it is read-only (as in Core Data), so its history has no holes. Add it with the option set to true",
                url: url)
        }
        return StrataError(code: StrataError.Code.persistentStoreSave, message: "The store was opened read-only", url: url)
    }

    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try save(changes, holdingTransactionOpenFor: {})
    }

    func save(_ changes: StoreChangeSet, holdingTransactionOpenFor body: () throws -> Void) throws -> StoreSaveResult {
        if changes.isEmpty {
            try body()
            return StoreSaveResult()
        }
        if configuration.refusesWrites { throw readOnlyError() }
        return try inWriteTransaction("Saving") { connection in
            let tombstones = try historyTombstones(of: changes.deletes, on: connection)
            let result = try write(changes, on: connection)
            if tracksHistory {
                try recordHistory(changes.historyChanges(saved: result, tombstones: tombstones), origin: changes.origin, on: connection)
            }
            try body()
            return result
        }
    }

    private func write(_ changes: StoreChangeSet, on connection: SQLiteConnection) throws -> StoreSaveResult {
        var result = StoreSaveResult()
        // Versions are recorded only where they differ from what the saving context computes
        // itself (1 for a new row, the base version plus one for an update; see
        // `SaveChangesResult.versions`): a hashed write and read per saved object less.
        // 1. Permanent IDs for inserted objects, per table; `insertKeys` holds each insert's
        // primary key by position, so step 2 looks nothing up.
        var insertKeys = [Int64?](repeating: nil, count: changes.inserts.count)
        var byRoot: [ObjectIdentifier: [Int]] = [:]
        // Changes are read in place, field by field (`for insert in changes.inserts` copied each
        // one whole: six references retained and released per saved object).
        for index in changes.inserts.indices {
            let id = changes.inserts[index].objectID
            if !id.isTemporaryID {
                insertKeys[index] = id.primaryKey
            } else {
                byRoot[id.entity.layout.rootIdentifier, default: []].append(index)
            }
        }
        for (_, indexes) in byRoot.sorted(by: { $0.value[0] < $1.value[0] }) {
            let entity = changes.inserts[indexes[0]].objectID.entity
            let keys = try allocate(indexes.count, for: entity, on: connection)
            for (position, index) in indexes.enumerated() { insertKeys[index] = keys[position] }
        }
        // The permanent IDs go back by insert position (`SaveChangesResult.insertedIDs`): the
        // saving context finds each object's new ID at its own position, with no dictionary
        // filled here and searched there.
        result.insertedIDs.reserveCapacity(changes.inserts.count)
        var spaces = StoreIDSpaces(token: token)
        for index in changes.inserts.indices {
            let id = changes.inserts[index].objectID
            if id.isTemporaryID, let key = insertKeys[index] {
                result.insertedIDs.append(.init(temporary: id, permanent: spaces.id(id.entityIdentity, primaryKey: key)))
            } else {
                result.insertedIDs.append(.init(temporary: id, permanent: id))
            }
        }
        // References to objects inserted by this save name their temporary IDs; the map from
        // those to the new keys is made on the first such reference. `resolve` captures the
        // inserts and their keys alone, as constants: capturing the whole change set (and a
        // variable) made every call that takes it copy the change set and the row it was lent.
        let inserts = changes.inserts
        let keysByPosition = insertKeys
        var insertedKeys: [ManagedObjectID: Int64]?
        func resolve(_ id: ManagedObjectID?) throws -> SQLiteValue {
            guard let id else { return .null }
            if let pk = id.primaryKey { return .integer(pk) }
            if insertedKeys == nil {
                var keys: [ManagedObjectID: Int64] = [:]
                keys.reserveCapacity(inserts.count)
                for index in inserts.indices {
                    if let key = keysByPosition[index] { keys[inserts[index].objectID] = key }
                }
                insertedKeys = keys
            }
            if let pk = insertedKeys?[id] { return .integer(pk) }
            throw StrataError(
                code: StrataError.Code.persistentStoreSave, message: "An object refers to an unsaved \(id.entity.name) that is not part of this save (insert it in the same context)",
                entityName: id.entity.name, url: url)
        }
        // 2. Inserts (SQLiteStore+Inserts.swift).
        try writeInserts(inserts, keys: keysByPosition, resolve: resolve, on: connection)
        // 3. Updates, with optimistic locking.
        var conflicts = try writeUpdates(changes.updates, versions: &result.versions, resolve: resolve, on: connection)
        // 4. To-many changes (join tables and ordered positions).
        for change in changes.toManyChanges {
            try writeToMany(change, resolve: resolve, on: connection)
        }
        // 5. Deletes, with optimistic locking; join rows of the deleted object go too.
        for deletion in changes.deletes {
            guard let pk = deletion.objectID.primaryKey, let sql = saveSQL.delete(deletion.objectID.entity, checkingVersion: !deletion.ignoresVersion) else { continue }
            try noteReferencesDropped(by: deletion.objectID.entity, pk: pk, slots: nil, on: connection)
            let statement = try connection.cachedStatement(sql)
            try statement.execute(deletion.ignoresVersion ? [.integer(pk)] : [.integer(pk), .integer(deletion.baseVersion)])
            if connection.changes == 0 {
                conflicts.append(try conflict(for: deletion.objectID, baseVersion: deletion.baseVersion, objectValues: nil, on: connection))
                continue
            }
            try deleteJoinRows(of: deletion.objectID, pk: pk, on: connection)
        }
        if !conflicts.isEmpty {
            var error = StrataError(code: StrataError.Code.managedObjectMerge, message: "Optimistic locking failure: \(conflicts.count) object(s) changed in the store since they were read", url: url)
            error.conflicts = conflicts
            throw error
        }
        return result
    }

    /// Writes the updated rows (step 3 of `write`), checking each row's version; records the
    /// versions that differ from the base version plus one in `versions` and returns the rows
    /// whose version had moved. (Looped over inside `write`, with a `resolve` that captured the
    /// whole change set, each row and the change set were copied and destroyed around every
    /// call: more time than the rows' statements outside SQLite.)
    private func writeUpdates(
        _ updates: [RowChange], versions: inout [ManagedObjectID: Int64], resolve: (ManagedObjectID?) throws -> SQLiteValue, on connection: SQLiteConnection
    ) throws -> [MergeConflict] {
        var conflicts: [MergeConflict] = []
        var statements = PreparedUpdates()
        for index in updates.indices {
            guard let pk = updates[index].objectID.primaryKey else { continue }
            if let version = try updateRow(updates[index], pk: pk, statements: &statements, resolve: resolve, on: connection) {
                if version != updates[index].baseVersion + 1 { versions[updates[index].objectID] = version }
            } else {
                conflicts.append(try conflict(for: updates[index].objectID, baseVersion: updates[index].baseVersion, objectValues: updates[index], on: connection))
            }
        }
        return conflicts
    }

    private func conflict(for id: ManagedObjectID, baseVersion: Int64, objectValues: RowChange?, on connection: SQLiteConnection) throws -> MergeConflict {
        var persisted: RowSnapshot?
        if let pk = id.primaryKey, let table = schema.table(for: id.entity), let sql = fetchSQL.rowByKey(inTable: table.name) {
            let statement = try connection.cachedStatement(sql)
            try statement.forEachRow([.integer(pk)]) { persisted = try decodeRow($0, offset: 0) }
        }
        let objectSnapshot =
            objectValues.map {
                RowSnapshot.make(objectID: id, version: baseVersion, attributes: $0.attributes, toOne: $0.toOne).printable()
            } ?? [:]
        return MergeConflict(
            objectID: id, oldVersionNumber: baseVersion, newVersionNumber: persisted?.version ?? 0,
            cachedSnapshot: [:], persistedSnapshot: persisted?.printable(), objectSnapshot: objectSnapshot)
    }

    private func writeToMany(_ change: ToManyChange, resolve: (ManagedObjectID?) throws -> SQLiteValue, on connection: SQLiteConnection) throws {
        guard let storage = schema.storage(of: change.relationship) else { return }
        let owner = try resolve(change.owner)
        switch storage {
        case .foreignKey:
            // Membership lives in the inverse foreign key (written with the other side's row);
            // only the order of an ordered relationship is written here.
            guard let ordered = change.ordered, let sql = saveSQL.positionUpdate(change.relationship) else { return }
            let statement = try connection.cachedStatement(sql)
            for (index, member) in ordered.enumerated() {
                try statement.execute([.integer(Int64(index)), try resolve(member)])
            }
        case .joinTable(let join, let isSourceSide):
            guard isSourceSide, let sql = saveSQL.joinTable(join) else { return }  // the owning side writes the rows
            if join.isOrdered, let ordered = change.ordered {
                try connection.cachedStatement(sql.deleteSource).execute([owner])
                let insert = try connection.cachedStatement(sql.insertOrdered)
                for (index, member) in ordered.enumerated() {
                    try insert.execute([owner, try resolve(member), .integer(Int64(index))])
                }
                return
            }
            if !change.removed.isEmpty {
                let delete = try connection.cachedStatement(sql.deletePair)
                for member in change.removed { try delete.execute([owner, try resolve(member)]) }
            }
            if !change.added.isEmpty {
                let insert = try connection.cachedStatement(sql.insert)
                for member in change.added { try insert.execute([owner, try resolve(member)]) }
            }
        }
    }

    private func deleteJoinRows(of id: ManagedObjectID, pk: Int64, on connection: SQLiteConnection) throws {
        for join in schema.joinTables {
            guard let owner = join.owner.entity, let destination = join.owner.destinationEntity, let sql = saveSQL.joinTable(join) else { continue }
            if id.entity.isKindOf(entity: owner) {
                try connection.cachedStatement(sql.deleteSource).execute([.integer(pk)])
            }
            if id.entity.isKindOf(entity: destination) {
                try connection.cachedStatement(sql.deleteTarget).execute([.integer(pk)])
            }
        }
    }
}
