/// The SQL of a save, from the schema mapping (`SQLiteSchema`); no database connection.
///
/// A save is one write transaction (`BEGIN IMMEDIATE`: `SQLiteStore.writeTransaction`) that
/// allocates primary keys, then inserts, updates, writes to-many changes and deletes, in that
/// order (`SQLiteStore+Save.swift` runs it). Text that depends only on the schema — each
/// entity's INSERT and DELETEs, each join table's writes, each ordered one-to-many's position
/// update — is built here once, when the store opens, so a save binds values into cached
/// statements without building strings per row. Only an UPDATE's text depends on the row's
/// shape (which columns changed); it is assembled from pieces built here once, once per shape
/// and save.
///
/// Statements keep Core Data's layout: `Z_PK` the primary key, `Z_ENT` the entity code,
/// `Z_OPT` the row version that optimistic locking compares.
struct SaveStatements: Sendable {
    /// Hands out primary keys for one table: binds the number of keys and the root entity's
    /// code; returns the last key handed out (the keys are the `count` numbers ending there).
    /// Run inside the save's transaction, so keys are only used up by saves that commit.
    static let allocatePrimaryKeys = "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX"

    /// The statements of one entity's rows.
    private struct EntityWrites: Sendable {
        /// See ``SaveStatements/insert(_:)``.
        let insert: String
        /// See ``SaveStatements/insertChunk(_:)``.
        let insertChunk: (sql: String, rows: Int)?
        /// `DELETE … WHERE Z_PK = ? AND Z_OPT = ?`.
        let deleteCheckingVersion: String
        /// `DELETE … WHERE Z_PK = ?`.
        let delete: String
        /// `UPDATE "<table>" SET `.
        let updatePrefix: String
        /// `"<column>" = ?, ` by attribute slot.
        let attributeAssignments: [String]
        /// By to-one slot: `"<key column>" = ?, ` and, for destinations with sub-entities,
        /// `"<entity code column>" = ?, `; nil for a transient to-one (no column).
        let toOneAssignments: [ToOneAssignment?]
    }

    private struct ToOneAssignment: Sendable {
        let key: String
        let entityCode: String?
    }

    private let entities: [ObjectIdentifier: EntityWrites]
    /// By ordered one-to-many relationship: the update of a member's position.
    private let positionUpdates: [ObjectIdentifier: String]
    /// By join table name.
    private let joinTables: [String: JoinTableStatements]

    init(schema: SQLiteSchema) {
        var entities: [ObjectIdentifier: EntityWrites] = [:]
        for entity in schema.model.entities {
            guard let table = schema.table(for: entity), let columns = schema.columns(for: entity) else { continue }
            let tableName = SQLFragment.identifier(table.name)
            func column(_ index: Int) -> String { SQLFragment.identifier(schema.columnName(index, in: table)) }
            // Z_PK, Z_ENT, Z_OPT, the attributes by slot, then each to-one's key (and entity code).
            var names = ["Z_PK", "Z_ENT", "Z_OPT"].map(SQLFragment.identifier)
            names += columns.attributeColumns.map(column)
            for case let toOne? in columns.toOneColumns {
                names.append(column(toOne.key))
                if let code = toOne.entityCode { names.append(column(code)) }
            }
            let into = " INTO \(tableName) (\(names.joined(separator: ", "))) VALUES "
            let rowParameters = "(\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
            let chunkRows = min(Self.rowsPerInsertChunk, Self.parametersPerStatement / names.count)
            entities[ObjectIdentifier(entity)] = EntityWrites(
                insert: "INSERT" + into + rowParameters,
                insertChunk: chunkRows < 2 ? nil : ("INSERT OR FAIL" + into + Array(repeating: rowParameters, count: chunkRows).joined(separator: ", "), chunkRows),
                deleteCheckingVersion: "DELETE FROM \(tableName) WHERE Z_PK = ? AND Z_OPT = ?",
                delete: "DELETE FROM \(tableName) WHERE Z_PK = ?",
                updatePrefix: "UPDATE \(tableName) SET ",
                attributeAssignments: columns.attributeColumns.map { column($0) + " = ?, " },
                toOneAssignments: columns.toOneColumns.map { toOne in
                    toOne.map { ToOneAssignment(key: column($0.key) + " = ?, ", entityCode: $0.entityCode.map { column($0) + " = ?, " }) }
                })
        }
        self.entities = entities
        var positionUpdates: [ObjectIdentifier: String] = [:]
        for relationship in schema.toManyRelationships {
            guard case .foreignKey(let table, _, let orderColumn?, _)? = schema.storage(of: relationship) else { continue }
            positionUpdates[ObjectIdentifier(relationship)] = "UPDATE \(SQLFragment.identifier(table)) SET \(SQLFragment.identifier(orderColumn)) = ? WHERE Z_PK = ?"
        }
        self.positionUpdates = positionUpdates
        var joinTables: [String: JoinTableStatements] = [:]
        for join in schema.joinTables { joinTables[join.name] = JoinTableStatements(tableName: join.name) }
        self.joinTables = joinTables
    }

    /// The INSERT of a row of `entity`, all columns bound in this order: `Z_PK`, `Z_ENT`,
    /// `Z_OPT`, the stored attributes by slot, then each stored to-one's key (followed by its
    /// destination's entity code where the destination has sub-entities; transient to-ones
    /// have no column). Nil when `entity` has no table in the schema.
    func insert(_ entity: EntityDescription) -> String? {
        entities[ObjectIdentifier(entity)]?.insert
    }

    /// How many rows an entity's `insertChunk` inserts at most. One INSERT per row spends a
    /// good part of each run starting and finishing the statement (opening the table's and its
    /// indexes' cursors, halting); a chunk shares that among its rows, and larger chunks
    /// measured no faster.
    static let rowsPerInsertChunk = 16

    /// The most parameters a chunk binds: 999, the limit of SQLite builds before 3.32 (later
    /// ones allow 32,766), so a wide entity's chunk has fewer rows.
    static let parametersPerStatement = 999

    /// The INSERT of `rows` rows of `entity` in one statement: `insert(_:)`'s columns, each
    /// row's parameters in its order, row after row (row k's first parameter is
    /// k × the column count + 1). Nil when `entity` has no table or too many columns for two
    /// rows in one statement.
    ///
    /// It is `INSERT OR FAIL`: a constraint violation stops the statement and keeps the rows it
    /// inserted before (`sqlite3_changes()` counts them, which names the row that failed). A
    /// plain INSERT of several rows must be able to undo its own rows, so SQLite keeps a
    /// statement journal of every page it touches, which spills to a temporary file beyond
    /// 64 KiB: with an entity's indexes that made a chunk slower than its rows one by one. A
    /// save never keeps a failed statement's rows: its transaction is rolled back.
    func insertChunk(_ entity: EntityDescription) -> (sql: String, rows: Int)? {
        entities[ObjectIdentifier(entity)]?.insertChunk
    }

    /// The UPDATE of the changed columns of a row of `entity`:
    ///
    /// ```sql
    /// UPDATE "<table>" SET <changed attributes>, <changed to-ones>, Z_OPT = Z_OPT + 1
    /// WHERE Z_PK = ? AND Z_OPT = ?          -- checking the version
    /// WHERE Z_PK = ? RETURNING Z_OPT        -- not checking it
    /// ```
    ///
    /// Its text depends only on the row's shape (entity, changed slots, version check), so a
    /// save builds it once per shape and binds each row's values: the attributes in the order
    /// of `changedAttributeSlots`, then each changed to-one's key and, where its destination has
    /// sub-entities, its entity code; then `Z_PK`; then, when `checkingVersion`, the version the
    /// row must still have (optimistic locking: no row changes on a conflict, and the new
    /// version is the expected one plus 1 otherwise, so the statement needs no `RETURNING`,
    /// which costs SQLite a temporary table per run). Slots beyond
    /// the entity's columns (`SQLiteSchema.EntityColumns`) and transient to-one slots are left
    /// out. Nil when `entity` has no table. Callable from any thread.
    func update(_ entity: EntityDescription, changedAttributeSlots: [Int], changedToOneSlots: [Int], checkingVersion: Bool) -> String? {
        guard let writes = entities[ObjectIdentifier(entity)] else { return nil }
        var sql = writes.updatePrefix
        for slot in changedAttributeSlots where slot < writes.attributeAssignments.count {
            sql += writes.attributeAssignments[slot]
        }
        for slot in changedToOneSlots where slot < writes.toOneAssignments.count {
            guard let assignment = writes.toOneAssignments[slot] else { continue }
            sql += assignment.key
            if let entityCode = assignment.entityCode { sql += entityCode }
        }
        sql += "Z_OPT = Z_OPT + 1 WHERE Z_PK = ?"
        sql += checkingVersion ? " AND Z_OPT = ?" : " RETURNING Z_OPT"
        return sql
    }

    /// The DELETE of a row of `entity`: binds `Z_PK`, and when `checkingVersion`, the version
    /// the row must still have (`Z_OPT`; no row is deleted on a conflict). Nil when `entity`
    /// has no table.
    func delete(_ entity: EntityDescription, checkingVersion: Bool) -> String? {
        guard let writes = entities[ObjectIdentifier(entity)] else { return nil }
        return checkingVersion ? writes.deleteCheckingVersion : writes.delete
    }

    /// For an ordered one-to-many (membership in the inverse's foreign key): the update of one
    /// member's position, binding the position (0-based) and the member's `Z_PK`. Nil for
    /// other relationships.
    func positionUpdate(_ relationship: RelationshipDescription) -> String? {
        positionUpdates[ObjectIdentifier(relationship)]
    }

    /// The writes of a join table (many-to-many relationships and to-manys without an inverse).
    func joinTable(_ join: SQLiteSchema.JoinTable) -> JoinTableStatements? {
        joinTables[join.name]
    }
}

/// The writes of one join table `(Z_SOURCE, Z_TARGET[, Z_ORDER])`, whose primary key is
/// `(Z_SOURCE, Z_TARGET)`: the owning relationship's objects are the sources.
struct JoinTableStatements: Sendable {
    /// Adds a pair (binds source, target); adding a pair already there does nothing.
    let insert: String
    /// Adds a pair with its position (binds source, target, position), replacing the pair.
    let insertOrdered: String
    /// Removes a pair (binds source, target).
    let deletePair: String
    /// Removes every pair of a source (binds source): an ordered relationship's rows are
    /// rewritten whole; a deleted source object leaves no rows.
    let deleteSource: String
    /// Removes every pair of a target (binds target): a deleted target object leaves no rows.
    let deleteTarget: String

    init(tableName: String) {
        let table = SQLFragment.identifier(tableName)
        insert = "INSERT OR IGNORE INTO \(table) (Z_SOURCE, Z_TARGET) VALUES (?, ?)"
        insertOrdered = "INSERT OR REPLACE INTO \(table) (Z_SOURCE, Z_TARGET, Z_ORDER) VALUES (?, ?, ?)"
        deletePair = "DELETE FROM \(table) WHERE Z_SOURCE = ? AND Z_TARGET = ?"
        deleteSource = "DELETE FROM \(table) WHERE Z_SOURCE = ?"
        deleteTarget = "DELETE FROM \(table) WHERE Z_TARGET = ?"
    }
}
