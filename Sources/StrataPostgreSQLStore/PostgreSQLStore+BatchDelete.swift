import Foundation
import Strata
import StrataPostgreSQL

/// Batch deletes in SQL (``PostgreSQLBatchDelete``), with the model's delete rules, in one
/// `READ COMMITTED` transaction announced to the other stores on the namespace like a save.
///
/// - A delete that reaches no other row (no cascade, deny or inverse to clear) is one
///   `DELETE … RETURNING`.
/// - Otherwise: one recursive query finds every row the delete reaches; those rows are locked
///   (`FOR UPDATE`, per table in key order) and the query runs again until it reaches no row
///   that is not locked, so no save can add a member to a doomed row or change one unseen
///   before the commit; one statement checks the `deny` rules (a row that stays fails the
///   whole delete with 1600, as on SQLite, and the transaction rolls back); one `UPDATE` per
///   nullify relationship clears the inverse of the partners that stay and bumps their
///   versions; one `DELETE` per table removes the rows (join-table rows go with them by their
///   `ON DELETE CASCADE` foreign keys).
///
/// With persistent history tracking, the deleted rows' preserved values are read before they
/// go and the delete is recorded as one history transaction (a delete per row, an update per
/// partner that lost one, naming its relationships), in the same transaction.
///
/// Starting rows chosen by a predicate or sort the SQL compiler cannot run exactly are found
/// first by the store's own fetch (`matchingIDs`, which finishes the request with Strata's
/// in-memory engine) and deleted by key, as Strata's row-by-row path finds them. The store
/// returns nil, for Strata to run the delete by rows, only when a table or relationship the
/// delete reaches has no storage in this store (an entity of another configuration). A
/// deadlock or serialization failure runs the whole delete again (``saveAttempts`` times in
/// all).
extension PostgreSQLStore {
    /// How many times the doomed rows are read again after locking new ones before the delete
    /// gives up (other saves kept adding rows it reaches).
    static let batchDeleteLockRounds = 8

    /// Runs `request` in SQL, or returns nil for Strata to run it (see above). Callable from
    /// any thread.
    func runBatchDelete(_ request: StoreBatchDeleteRequest) throws -> StoreBatchDeleteResult? {
        let entity = request.entity
        let start: PostgreSQLBatchDelete.Start
        if let ids = request.objectIDs {
            start = .keys(ids.compactMap { referenceObject(for: $0) }, entities: [entity.name])
        } else if let rows = request.rows {
            let compiled = compiledFetch(rows)
            let windowed = rows.fetchLimit > 0 || rows.fetchOffset > 0
            if compiled.predicateIsExact && (!windowed || compiled.canWindowInSQL) {
                var window = ""
                if windowed, let orderBy = compiled.orderBy {
                    window = " ORDER BY \(orderBy)"
                    if rows.fetchLimit > 0 { window += " LIMIT \(rows.fetchLimit)" }
                    if rows.fetchOffset > 0 { window += " OFFSET \(rows.fetchOffset)" }
                }
                start = .matching(whereClause: compiled.whereClause, parameters: compiled.parameters, window: window)
            } else {
                // Strata's engine chooses the starting rows (as its row-by-row path would); the
                // rest runs in SQL.
                let ids = try matchingIDs(rows, options: .default)
                var names: [String] = []
                for id in ids where !names.contains(id.entity.name) { names.append(id.entity.name) }
                start = .keys(ids.compactMap { referenceObject(for: $0) }, entities: names)
            }
        } else {
            return nil
        }
        guard let program = try PostgreSQLBatchDelete(request, start: start, schema: schema, fetchAlias: Self.fetchAlias) else { return nil }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try pool.withConnection { connection in
                    try connection.transaction(isolation: .readCommitted) {
                        try runBatchDelete(program, request, on: connection)
                    }
                }
            } catch let error as PostgreSQLError where error.isTransactionRetryable && attempt < Self.saveAttempts {
                continue  // a deadlock or serialization failure rolled it back: run it again
            } catch {
                throw strataError(error, while: "Running a batch delete of \(entity.name) on the PostgreSQL store", code: StrataError.Code.persistentStoreSave)
            }
        }
    }

    /// One run of the delete inside its transaction on `connection`.
    private func runBatchDelete(_ program: PostgreSQLBatchDelete, _ request: StoreBatchDeleteRequest, on connection: PostgreSQLConnection) throws -> StoreBatchDeleteResult {
        let entities = model.entitiesByName
        func objectID(_ name: String?, _ key: Int64?) throws -> ManagedObjectID {
            guard let name, let key, let entity = entities[name] else {
                throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "A row of the PostgreSQL store has no key or an unknown entity", url: redactedURL)
            }
            return newObjectID(for: entity, referenceObject: key)
        }
        if program.isDirect && !tracksHistory {
            var deleted: [ManagedObjectID] = []
            for row in try connection.execute(program.directDelete, parameters: program.doomedParameters) {
                deleted.append(try objectID(row.string(1), row.int64(0)))
            }
            try announce(inserted: [], updated: [], deleted: try deleted.map { ($0.entity.name, try key(of: $0)) }, on: connection)
            return StoreBatchDeleteResult(count: deleted.count, deletedObjectIDs: request.returnsObjectIDs ? deleted : [])
        }
        // 1. The rows the delete reaches, locked, read again until nothing new is reached.
        func readDoomed() throws -> PostgreSQLBatchDelete.Doomed {
            var doomed = PostgreSQLBatchDelete.Doomed()
            for row in try connection.execute(program.doomedQuery, parameters: program.doomedParameters) {
                guard let table = try row.int64(0), let key = try row.int64(1), let name = try row.string(2) else { continue }
                doomed.rows.append((Int(table), key, name))
            }
            return doomed
        }
        var doomed = try readDoomed()
        var locked: [Int: Set<Int64>] = [:]
        var round = 0
        while true {
            let fresh = PostgreSQLBatchDelete.Doomed(rows: doomed.rows.filter { !(locked[$0.table]?.contains($0.key) ?? false) })
            if fresh.rows.isEmpty { break }
            round += 1
            guard round <= Self.batchDeleteLockRounds else {
                throw StrataError(
                    code: StrataError.Code.managedObjectMerge,
                    message: "Batch delete of \(request.entity.name): other saves kept changing the rows it reaches; nothing was deleted", entityName: request.entity.name,
                    url: redactedURL)
            }
            for lock in program.locks(fresh) { try connection.execute(lock.sql, parameters: lock.parameters) }
            for row in fresh.rows { locked[row.table, default: []].insert(row.key) }
            doomed = try readDoomed()
        }
        // 2. Deny rules: a partner that stays refuses the whole delete.
        if let deny = try program.denyQuery(doomed), let row = try connection.execute(deny.sql, parameters: deny.parameters).first,
            let key = try row.int64(0), let index = try row.int64(1), index >= 0, Int(index) < request.denyRelationships.count
        {
            let relationship = request.denyRelationships[Int(index)]
            let name = program.entityName(of: key, owning: relationship, in: doomed) ?? relationship.entity?.name ?? request.entity.name
            let owner = try objectID(name, key)
            // Thrown inside the transaction: it rolls back, nothing is deleted.
            throw StrataError(
                code: StrataError.Code.validationRelationshipDeniedDelete,
                message:
                    "Batch delete of \(request.entity.name): \(owner.entity.name) \(owner.uriRepresentation().absoluteString) cannot be deleted: its relationship '\(relationship.name)' still holds an object that is not deleted (delete rule deny); nothing was deleted",
                entityName: owner.entity.name, key: relationship.name, objectID: owner, url: redactedURL)
        }
        // 3. Partners that stay lose the deleted rows, and get new versions.
        var changed: [ManagedObjectID] = []
        var lost: [ManagedObjectID: [String]] = [:]
        var versions: [ManagedObjectID: Int64] = [:]
        for update in try program.nullifyUpdates(doomed) {
            for row in try connection.execute(update.sql, parameters: update.parameters) {
                let partner = try objectID(row.string(1), row.int64(0))
                if lost[partner] == nil { changed.append(partner) }
                lost[partner, default: []].append(update.property)
                versions[partner] = try row.int64(2)
            }
        }
        // 4. The rows themselves (with history, their tombstones read first), then the history
        // and the announcement.
        let tombstones = tracksHistory ? try historyTombstones(of: doomed, on: connection) : [:]
        for delete in program.deletes(doomed) { try connection.execute(delete.sql, parameters: delete.parameters) }
        let deleted = try doomed.rows.map { try objectID($0.entity, $0.key) }
        var history: Int64?
        if tracksHistory {
            history = try recordHistory(
                deleted.map { StoreHistoryChange(objectID: $0, changeType: .delete, tombstone: tombstones[$0]) }
                    + changed.map { StoreHistoryChange(objectID: $0, changeType: .update, updatedProperties: lost[$0]) },
                author: request.transactionAuthor, contextName: request.contextName, on: connection)
        }
        try announce(
            inserted: [], updated: try changed.map { ($0.entity.name, try key(of: $0), versions[$0] ?? Int64.max) },
            deleted: doomed.rows.map { ($0.entity, $0.key) }, historyTransactionNumber: history, on: connection)
        var result = StoreBatchDeleteResult(count: deleted.count, deletedObjectIDs: request.returnsObjectIDs ? deleted : [])
        if request.returnsChangedObjectIDs {
            result.changedObjectIDs = changed
            result.lostRelationships = lost
        }
        return result
    }

    /// The values of the preserved attributes (`attributesPreservedInHistory`) of the doomed
    /// rows whose entity has some, by object ID: one `SELECT` per such entity. Runs inside the
    /// delete's transaction, before the rows go.
    private func historyTombstones(
        of doomed: PostgreSQLBatchDelete.Doomed, on connection: PostgreSQLConnection
    ) throws -> [ManagedObjectID: [String: Any]] {
        var keysByEntity: [String: [Int64]] = [:]
        for row in doomed.rows { keysByEntity[row.entity, default: []].append(row.key) }
        var tombstones: [ManagedObjectID: [String: Any]] = [:]
        let entities = model.entitiesByName
        for name in keysByEntity.keys.sorted() {
            guard let entity = entities[name], let keys = keysByEntity[name] else { continue }
            let preserved = entity.attributesPreservedInHistory
            guard !preserved.isEmpty else { continue }
            let table = try plan(for: entity).table
            let columns = try preserved.map { attribute -> String in
                guard let column = table.column(forKey: attribute.name, ofEntityNamed: name) else {
                    throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "'\(name).\(attribute.name)' has no column in the PostgreSQL store", url: redactedURL)
                }
                return try PostgreSQLIdentifier.quoted(column)
            }
            let sql = "SELECT \"\(PostgreSQLTable.primaryKeyColumn)\", \(columns.joined(separator: ", ")) FROM \(table.quotedName) WHERE \"\(PostgreSQLTable.primaryKeyColumn)\" = ANY($1::bigint[])"
            for row in try connection.execute(sql, parameters: [PostgreSQLValueMapping.keyArray(keys)]) {
                guard let key = try row.int64(0) else { continue }
                var values: [String: Any] = [:]
                for (index, attribute) in preserved.enumerated() {
                    if let value = try PostgreSQLValueMapping.value(of: row, column: index + 1, for: attribute) { values[attribute.name] = value }
                }
                tombstones[newObjectID(for: entity, referenceObject: key)] = values
            }
        }
        return tombstones
    }

    /// The key of an object ID of this store (throws for any other).
    private func key(of id: ManagedObjectID) throws -> Int64 {
        guard let key = referenceObject(for: id) else {
            throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "\(id.entity.name) \(id) is not an object of this PostgreSQL store", url: redactedURL)
        }
        return key
    }
}
