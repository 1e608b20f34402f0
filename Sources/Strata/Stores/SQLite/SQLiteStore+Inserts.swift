import StrataSQLite

/// The INSERTs of one save: each entity's new rows go in chunks through its multi-row INSERT
/// (``SaveStatements/insertChunk(_:)``), the rest one row a statement; every row's values bound
/// straight into the statement.
extension SQLiteStore {
    /// Inserts the rows of `inserts` whose primary key `keys` holds (by position), grouped by
    /// entity. A constraint violation is thrown as a ``StrataError`` naming the object whose row
    /// failed; the caller's transaction must then be rolled back (a chunk keeps the rows it
    /// inserted before the failure: ``SaveStatements/insertChunk(_:)``).
    /// Runs inside the save's transaction, on the writer's thread.
    func writeInserts(_ inserts: [RowChange], keys: [Int64?], resolve: (ManagedObjectID?) throws -> SQLiteValue, on connection: SQLiteConnection) throws {
        // Each entity's rows (position in `inserts`, primary key), entities in order of first
        // appearance; a save's inserts mostly come in runs of one entity.
        var groups: [(entity: EntityDescription, rows: [(position: Int, pk: Int64)])] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        var last: (entity: ObjectIdentifier, group: Int)?
        for position in inserts.indices {
            guard let pk = keys[position] else { continue }
            let entity = inserts[position].objectID.entity
            let identifier = ObjectIdentifier(entity)
            let group: Int
            if let last, last.entity == identifier {
                group = last.group
            } else if let known = groupIndex[identifier] {
                group = known
            } else {
                group = groups.count
                groups.append((entity, []))
                groupIndex[identifier] = group
            }
            last = (identifier, group)
            groups[group].rows.append((position, pk))
        }
        for (entity, rows) in groups {
            guard let columns = schema.columns(for: entity), let single = saveSQL.insert(entity) else {
                throw StrataError(code: StrataError.Code.persistentStoreSave, message: "Entity '\(entity.name)' is not stored in this store", entityName: entity.name, url: url)
            }
            let externalSlots = externalSQL.externalSlots(of: entity)
            var start = 0
            if let chunk = saveSQL.insertChunk(entity), rows.count >= chunk.rows {
                let statement = try connection.cachedStatement(chunk.sql)
                while rows.count - start >= chunk.rows {
                    var index: Int32 = 1
                    for row in rows[start..<start + chunk.rows] {
                        try bindInsert(inserts[row.position], pk: row.pk, columns: columns, externalSlots: externalSlots, resolve: resolve, to: statement, at: &index)
                    }
                    do {
                        try statement.execute()
                    } catch let error as SQLiteError where error.isConstraintViolation {
                        // `INSERT OR FAIL` kept the rows before the one that failed: their
                        // count is its place in the chunk (the save's transaction is rolled
                        // back after this error).
                        let failed = connection.changes
                        throw constraintFailure(
                            error, while: "Inserting \(entity.name)", entity: entity,
                            objectID: failed >= 0 && failed < chunk.rows ? inserts[rows[start + failed].position].objectID : nil)
                    }
                    start += chunk.rows
                }
            }
            guard start < rows.count else { continue }
            let insert = try connection.cachedStatement(single)
            for row in rows[start...] {
                try insertRow(inserts[row.position], pk: row.pk, columns: columns, externalSlots: externalSlots, resolve: resolve, statement: insert)
            }
        }
    }

    /// Inserts one row with `statement` (its entity's ``SaveStatements/insert(_:)``); a
    /// constraint violation is thrown as a ``StrataError`` naming the object.
    private func insertRow(
        _ insert: borrowing RowChange, pk: Int64, columns: SQLiteSchema.EntityColumns, externalSlots: [Int], resolve: (ManagedObjectID?) throws -> SQLiteValue,
        statement: SQLiteStatement
    ) throws {
        var index: Int32 = 1
        try bindInsert(insert, pk: pk, columns: columns, externalSlots: externalSlots, resolve: resolve, to: statement, at: &index)
        do {
            try statement.execute()
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw constraintFailure(error, while: "Inserting \(insert.objectID.entity.name)", entity: insert.objectID.entity, objectID: insert.objectID)
        }
    }

    /// Binds the row of `insert` to the parameters from `index` on, in the column order of
    /// ``SaveStatements/insert(_:)``, and moves `index` past them.
    private func bindInsert(
        _ insert: borrowing RowChange, pk: Int64, columns: SQLiteSchema.EntityColumns, externalSlots: [Int], resolve: (ManagedObjectID?) throws -> SQLiteValue,
        to statement: SQLiteStatement, at index: inout Int32
    ) throws {
        func bind(_ value: SQLiteValue) throws {
            try statement.bind(value, at: index)
            index += 1
        }
        let entity = insert.objectID.entity
        statement.bind(int64: pk, at: index)
        statement.bind(int64: entity.layout.code, at: index + 1)
        statement.bind(int64: 1, at: index + 2)
        index += 3
        for slot in columns.attributeColumns.indices {
            try bind(slot < insert.attributes.count ? try columnValue(insert.attributes[slot], slot: slot, externalSlots: externalSlots) : .null)
        }
        for (slot, column) in columns.toOneColumns.enumerated() {
            guard let column else { continue }  // transient: no column
            let target = slot < insert.toOne.count ? insert.toOne[slot] : nil
            try bind(try resolve(target))
            if column.entityCode != nil {
                try bind(target.map { .integer($0.entity.layout.code) } ?? .null)
            }
        }
    }
}
