import Foundation
import Strata
import StrataPostgreSQL

/// Batch updates and inserts as single statements (`UPDATE … RETURNING`, `INSERT … ON CONFLICT
/// … RETURNING`), each in one transaction whose changes are announced to the other stores on the
/// namespace like a save's. A request SQL cannot run exactly as Strata's engine would is left
/// to Strata (nil), which runs it through reads and ``PostgreSQLStore/save(_:)``: an update whose
/// predicate does not compile exactly or that sets values by expressions SQL cannot compute
/// exactly as Strata does (see PostgreSQLStore+BatchUpdateExpressions.swift), an insert upserting on
/// more than one uniqueness constraint or on one that also covers other entities.
extension PostgreSQLStore {
    /// The most parameters one statement takes (PostgreSQL's limit is 65 535).
    static let maximumParameters = 60_000

    /// Runs a batch update with an exactly compiled predicate, of constants and of expressions
    /// SQL computes exactly as Strata does (PostgreSQLStore+BatchUpdateExpressions.swift), as one
    /// `UPDATE`. An expression result PostgreSQL refuses (22003) or a required attribute set to
    /// nil by one rolls it back and leaves it to Strata (nil).
    func runBatchUpdate(_ request: StoreBatchUpdateRequest) throws -> StoreBatchUpdateResult? {
        let rows = request.rows
        let compiled = compiledFetch(rows)
        guard compiled.predicateIsExact else { return nil }
        let plan = try plan(for: rows.entity)
        var parameters = compiled.parameters
        var assignments: [String] = []
        for (name, value) in request.constantsToUpdate.sorted(by: { $0.key < $1.key }) {
            guard let attribute = rows.entity.attributesByName[name], let column = plan.table.column(forKey: name, ofEntityNamed: rows.entity.name) else {
                return nil
            }
            parameters.append(try PostgreSQLValueMapping.parameter(value, for: attribute))
            assignments.append("\(try PostgreSQLIdentifier.quoted(column)) = $\(parameters.count)")
        }
        guard let expressions = try updateExpressions(request, table: plan.table, parameters: &parameters) else { return nil }
        assignments += expressions.assignments
        let version = "\"\(PostgreSQLTable.versionColumn)\""
        assignments.append("\(version) = \(version) + 1")
        let sql =
            "UPDATE \(plan.table.quotedName) AS \"\(Self.fetchAlias)\" SET \(assignments.joined(separator: ", ")) WHERE \(compiled.whereClause) RETURNING \"\(PostgreSQLTable.primaryKeyColumn)\", \"\(PostgreSQLTable.entityColumn)\", \(version)"
            + expressions.requiredChecks.map { ", " + $0 }.joined()
        let entities = model.entitiesByName
        struct LeftToStrata: Error {}
        return try withConnection("Running a batch update of \(rows.entity.name) on the PostgreSQL store", code: StrataError.Code.persistentStoreSave) { connection in
            do {
                return try connection.transaction(isolation: .readCommitted) {
                    var updated: [(entity: String, key: Int64, version: Int64)] = []
                    var ids: [ManagedObjectID] = []
                    for row in try connection.execute(sql, parameters: parameters) {
                        guard let key = try row.int64(0), let name = try row.string(1), let entity = entities[name], let newVersion = try row.int64(2) else { continue }
                        for index in expressions.requiredChecks.indices where try row.bool(3 + index) == true { throw LeftToStrata() }
                        updated.append((name, key, newVersion))
                        if request.returnsObjectIDs { ids.append(newObjectID(for: entity, referenceObject: key)) }
                    }
                    var history: Int64?
                    if tracksHistory {
                        let names = (Array(request.constantsToUpdate.keys) + Array(request.expressionsToUpdate.keys)).sorted()
                        history = try recordHistory(
                            updated.compactMap { row in
                                entities[row.entity].map { StoreHistoryChange(objectID: newObjectID(for: $0, referenceObject: row.key), changeType: .update, updatedProperties: names) }
                            }, author: request.transactionAuthor, contextName: request.contextName, on: connection)
                    }
                    try announce(inserted: [], updated: updated, deleted: [], historyTransactionNumber: history, on: connection)
                    return StoreBatchUpdateResult(count: updated.count, updatedObjectIDs: ids)
                }
            } catch is LeftToStrata {
                return nil  // rolled back: a required attribute would be nil
            } catch let error as PostgreSQLError where !expressions.assignments.isEmpty && error.sqlState == PostgreSQLUpdateExpressions.numericValueOutOfRange {
                return nil  // rolled back: Strata computes such a value otherwise
            }
        }
    }

    /// Runs a batch insert as `INSERT` statements (as many rows each as the parameter limit
    /// allows) in one transaction; with one uniqueness constraint, as `INSERT … ON CONFLICT DO
    /// UPDATE` on the constraint's unique index, so a row matching a stored row updates it.
    func runBatchInsert(_ request: StoreBatchInsertRequest) throws -> StoreBatchInsertResult? {
        let constraints = request.uniquenessConstraints
        guard constraints.count <= 1 else { return nil }
        let entity = request.entity
        let plan = try plan(for: entity)
        let attributes = request.attributes
        var columns: [String] = []
        for attribute in attributes {
            guard let column = plan.table.column(forKey: attribute.name, ofEntityNamed: entity.name) else { return nil }
            columns.append(try PostgreSQLIdentifier.quoted(column))
        }
        let pk = "\"\(PostgreSQLTable.primaryKeyColumn)\""
        let entityColumn = "\"\(PostgreSQLTable.entityColumn)\""
        let version = "\"\(PostgreSQLTable.versionColumn)\""
        var conflictClause = ""
        if let constraint = constraints.first {
            var keys: [String] = []
            for key in constraint.keys {
                guard let column = plan.table.column(forKey: key, ofEntityNamed: constraint.entity.name) else { return nil }
                keys.append(try PostgreSQLIdentifier.quoted(column))
            }
            let covered = plan.table.entityNames.filter { name in model.entitiesByName[name]?.isKindOf(entity: constraint.entity) == true }
            // A row matching a stored row of another entity of the constraint's tree is a
            // constraint conflict (133021), not an update: Strata's run reports it exactly.
            guard covered == [entity.name] else { return nil }
            let entityList = covered.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ")
            let updates = columns.map { "\($0) = EXCLUDED.\($0)" } + ["\(version) = \"\(Self.fetchAlias)\".\(version) + 1"]
            conflictClause = " ON CONFLICT (\(keys.joined(separator: ", "))) WHERE \(entityColumn) IN (\(entityList)) DO UPDATE SET \(updates.joined(separator: ", "))"
        }
        let allColumns = [pk, entityColumn, version] + columns
        let rowsPerStatement = max(1, Self.maximumParameters / allColumns.count)
        return try withConnection("Running a batch insert of \(entity.name) on the PostgreSQL store", code: StrataError.Code.persistentStoreSave) { connection in
            try connection.transaction(isolation: .readCommitted) {
                let keys = try nextKeys(request.count, of: plan.table, on: connection)
                var result = StoreBatchInsertResult()
                var inserted: [(entity: String, key: Int64)] = []
                var updated: [(entity: String, key: Int64, version: Int64)] = []
                // The history's changes, in row order (when the store tracks history).
                var changes: [StoreHistoryChange] = []
                let names = attributes.map(\.name)
                var start = 0
                while start < request.count {
                    let end = min(start + rowsPerStatement, request.count)
                    var parameters: [PostgreSQLValue] = []
                    var tuples: [String] = []
                    for row in start..<end {
                        var placeholders: [String] = []
                        for value in [PostgreSQLValue.int64(keys[row]), .text(entity.name), .int64(1)] {
                            parameters.append(value)
                            placeholders.append("$\(parameters.count)")
                        }
                        for (index, attribute) in attributes.enumerated() {
                            parameters.append(try PostgreSQLValueMapping.parameter(request.value(ofRow: row, attributeAt: index), for: attribute))
                            placeholders.append("$\(parameters.count)")
                        }
                        tuples.append("(" + placeholders.joined(separator: ", ") + ")")
                    }
                    // RETURNING gives one row per inserted row, in VALUES order (a row that
                    // updated a stored one returns that row's key and version).
                    let sql =
                        "INSERT INTO \(plan.table.quotedName) AS \"\(Self.fetchAlias)\" (\(allColumns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))\(conflictClause) RETURNING \(pk), \(version)"
                    for row in try connection.execute(sql, parameters: parameters) {
                        guard let key = try row.int64(0), let newVersion = try row.int64(1) else { continue }
                        let id = newObjectID(for: entity, referenceObject: key)
                        if newVersion == 1 {
                            inserted.append((entity.name, key))
                            if tracksHistory { changes.append(StoreHistoryChange(objectID: id, changeType: .insert)) }
                        } else {
                            updated.append((entity.name, key, newVersion))
                            if request.returnsObjectIDs { result.updatedObjectIDs.append(id) }
                            if tracksHistory { changes.append(StoreHistoryChange(objectID: id, changeType: .update, updatedProperties: names)) }
                        }
                        if request.returnsObjectIDs { result.objectIDs.append(id) }
                    }
                    start = end
                }
                let history = try recordHistory(changes, author: request.transactionAuthor, contextName: request.contextName, on: connection)
                try announce(inserted: inserted, updated: updated, deleted: [], historyTransactionNumber: history, on: connection)
                return result
            }
        }
    }
}
