import StrataSQLite

/// The UPDATEs of one save: one prepared statement per row shape (entity, changed slots,
/// version check), each row's values bound straight into it — no SQL text, bindings array or
/// statement-cache lookup per row.
extension SQLiteStore {
    /// The shape of an updated row: what its UPDATE's text depends on.
    struct UpdateShape: Hashable {
        let entity: ObjectIdentifier
        let attributeSlots: [Int]
        let toOneSlots: [Int]
        let checksVersion: Bool

        init(_ update: borrowing RowChange) {
            entity = ObjectIdentifier(update.objectID.entity)
            attributeSlots = update.changedAttributeSlots
            toOneSlots = update.changedToOneSlots
            checksVersion = !update.ignoresVersion
        }
    }

    /// One shape's UPDATE, prepared on the save's connection, with the columns of its entity.
    /// A class, so that handing it to each row of the shape is one retain: as a tuple of the
    /// shape's slot arrays, the statement and the columns' arrays, each row copied it whole
    /// (a retain and a release per array).
    final class PreparedUpdate {
        let shape: UpdateShape
        let statement: SQLiteStatement
        let columns: SQLiteSchema.EntityColumns

        init(shape: UpdateShape, statement: SQLiteStatement, columns: SQLiteSchema.EntityColumns) {
            self.shape = shape
            self.statement = statement
            self.columns = columns
        }

        /// Whether `update` has this shape. The change set reuses its slot arrays for the rows
        /// of one shape, so the array comparisons mostly end at the identity of their storage.
        @inline(__always) func fits(_ update: borrowing RowChange) -> Bool {
            shape.entity == ObjectIdentifier(update.objectID.entity) && shape.checksVersion == !update.ignoresVersion
                && shape.attributeSlots == update.changedAttributeSlots && shape.toOneSlots == update.changedToOneSlots
        }
    }

    /// The statements prepared so far in one save, by shape. Used inside the save's write
    /// transaction, on the writer connection's thread.
    struct PreparedUpdates {
        private var byShape: [UpdateShape: PreparedUpdate] = [:]
        // Rows of one save mostly share a shape: the last one is tried first.
        private var last: PreparedUpdate?

        /// The UPDATE for `update`'s shape, prepared on `connection` on first use. Nil when the
        /// entity has no table in `store`.
        mutating func statement(for update: borrowing RowChange, store: SQLiteStore, on connection: SQLiteConnection) throws -> PreparedUpdate? {
            if let last, last.fits(update) { return last }
            let shape = UpdateShape(update)
            if let prepared = byShape[shape] {
                last = prepared
                return prepared
            }
            guard
                let columns = store.schema.columns(for: update.objectID.entity),
                let sql = store.saveSQL.update(
                    update.objectID.entity, changedAttributeSlots: shape.attributeSlots, changedToOneSlots: shape.toOneSlots,
                    checkingVersion: shape.checksVersion)
            else { return nil }
            let prepared = PreparedUpdate(shape: shape, statement: try connection.cachedStatement(sql), columns: columns)
            byShape[shape] = prepared
            last = prepared
            return prepared
        }
    }

    /// Writes the changed columns of `update` with its shape's statement (see
    /// ``SaveStatements/update(_:changedAttributeSlots:changedToOneSlots:checkingVersion:)``
    /// for the binding order); returns the new version, or nil on a version conflict (or when
    /// the entity has no table). Runs inside the save's transaction, on the writer's thread.
    func updateRow(
        _ update: borrowing RowChange, pk: Int64, statements: inout PreparedUpdates, resolve: (ManagedObjectID?) throws -> SQLiteValue,
        on connection: SQLiteConnection
    ) throws -> Int64? {
        let entity = update.objectID.entity
        // A version at Int64.max (a damaged or hostile file) has no next one: SQLite would make
        // Z_OPT + 1 a REAL and the version arithmetic here would overflow.
        guard update.baseVersion < Int64.max else {
            throw StrataError(
                code: StrataError.Code.sqlite,
                message: "The row of '\(entity.name)' with Z_PK \(pk) has the version Z_OPT \(update.baseVersion), the largest there is: the store is damaged and the row cannot be updated",
                entityName: entity.name, objectID: update.objectID, url: url)
        }
        guard let prepared = try statements.statement(for: update, store: self, on: connection) else { return nil }
        let statement = prepared.statement
        let externalSlots = externalSQL.externalSlots(of: entity)
        try noteReferencesDropped(by: entity, pk: pk, slots: update.changedAttributeSlots, on: connection)
        var index: Int32 = 1
        for slot in update.changedAttributeSlots where slot < prepared.columns.attributeColumns.count {
            try statement.bind(slot < update.attributes.count ? try columnValue(update.attributes[slot], slot: slot, externalSlots: externalSlots) : .null, at: index)
            index += 1
        }
        for slot in update.changedToOneSlots where slot < prepared.columns.toOneColumns.count {
            guard let column = prepared.columns.toOneColumns[slot] else { continue }  // transient: no column
            let target = slot < update.toOne.count ? update.toOne[slot] : nil
            try statement.bind(try resolve(target), at: index)
            index += 1
            if column.entityCode != nil {
                if let target { statement.bind(int64: target.entity.layout.code, at: index) } else { try statement.bind(.null, at: index) }
                index += 1
            }
        }
        statement.bind(int64: pk, at: index)
        var newVersion: Int64?
        do {
            if update.ignoresVersion {
                try statement.forEachRow { newVersion = $0.int64(at: 0) }
            } else {
                // The row had the expected version when (and only when) it changed.
                statement.bind(int64: update.baseVersion, at: index + 1)
                try statement.execute()
                if connection.changes > 0 { newVersion = update.baseVersion + 1 }
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw constraintFailure(error, while: "Updating \(entity.name)", entity: entity, objectID: update.objectID)
        }
        return newVersion
    }
}
