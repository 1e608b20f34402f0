/// The SELECTs of the SQLite store's reads, from the schema mapping (`SQLiteSchema`) and fetch
/// plans; no database connection. (Dictionary fetches: `DictionarySQLCompiler`.)
///
/// A statement that reads whole rows selects `Z_PK, Z_ENT, Z_OPT` and then every column of the
/// table in `SQLiteSchema.Table.columns` order (for a table of one entity, its code in place of
/// `Z_ENT`: see `entityCode(of:)`), so the select-list indexes of
/// `SQLiteSchema.EntityColumns` address the columns of any entity of the table (one table holds
/// a whole inheritance tree, as in Core Data). Text that depends only on the schema (reads by
/// key, to-many contents) is built once, when the store opens; a plan's SELECT is built once
/// per shape of plan (`FetchStatementCache`), with every value of the predicate, limit and
/// offset a binding.
struct FetchStatements: Sendable {
    private let schema: SQLiteSchema
    /// The compiled SELECTs of plans by shape; `nil` to compile every plan.
    private let shapes: FetchStatementCache?
    /// By table name: `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0."<column>", …` (see `rowColumns(of:)`).
    private let rowColumns: [String: String]
    /// By table name: the rows whose keys are in a key list.
    private let rowsByKeys: [String: String]
    /// By table name: the row with a key.
    private let rowsByKey: [String: String]
    /// By table name: the rows whose keys are in a closed range, in key order.
    private let rowsInKeyRange: [String: String]
    /// By to-many relationship: its contents for a key list of owners.
    private let toManyContents: [ObjectIdentifier: String]
    /// By to-many relationship: its contents for a key list of owners, with the members' rows.
    private let toManyRows: [ObjectIdentifier: String]

    /// Statements of `schema`'s tables; `cachesShapes` keeps the compiled SELECT of each shape
    /// of plan (off only to compare with the uncached statements).
    init(schema: SQLiteSchema, cachesShapes: Bool = true) {
        self.schema = schema
        self.shapes = cachesShapes ? FetchStatementCache(model: schema.model) : nil
        var rowColumns: [String: String] = [:]
        var rowsByKeys: [String: String] = [:]
        var rowsByKey: [String: String] = [:]
        var rowsInKeyRange: [String: String] = [:]
        for (name, table) in schema.tables {
            let columns = Self.rowColumns(of: table)
            rowColumns[name] = columns
            rowsByKeys[name] = "SELECT " + columns + " FROM " + SQLFragment.identifier(name) + " t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
            rowsByKey[name] = "SELECT " + columns + " FROM " + SQLFragment.identifier(name) + " t0 WHERE t0.Z_PK = ?"
            rowsInKeyRange[name] = "SELECT " + columns + " FROM " + SQLFragment.identifier(name) + " t0 WHERE t0.Z_PK BETWEEN ? AND ? ORDER BY t0.Z_PK"
        }
        self.rowColumns = rowColumns
        self.rowsByKeys = rowsByKeys
        self.rowsByKey = rowsByKey
        self.rowsInKeyRange = rowsInKeyRange
        var toManyContents: [ObjectIdentifier: String] = [:]
        var toManyRows: [ObjectIdentifier: String] = [:]
        for relationship in schema.toManyRelationships {
            guard let destination = relationship.destinationEntity, let storage = schema.storage(of: relationship),
                let destinationTable = schema.table(for: destination)
            else { continue }
            toManyContents[ObjectIdentifier(relationship)] = Self.contents(storage, destinationTable: destinationTable.name)
            if let columns = rowColumns[destinationTable.name] {
                toManyRows[ObjectIdentifier(relationship)] = Self.memberRows(storage, destinationTable: destinationTable.name, columns: columns)
            }
        }
        self.toManyContents = toManyContents
        self.toManyRows = toManyRows
    }

    // MARK: Plans

    /// The rows matching `plan`, with every column (see the type's comment), in the plan's
    /// order (ending with `t0.Z_PK`, so the order is total), with `LIMIT ? OFFSET ?` when the
    /// plan has a limit or an offset.
    func rows(_ plan: FetchPlan) throws -> SQLFragment {
        try cached(plan, .rows) { plan in
            let table = try table(of: plan)
            return try select(plan, from: table, columns: rowColumns[table.name] ?? Self.rowColumns(of: table))
        }
    }

    /// The keys and entity codes (`t0.Z_PK, t0.Z_ENT`, see `entityCode(of:)`) of the rows
    /// matching `plan`, in order.
    func objectIDs(_ plan: FetchPlan) throws -> SQLFragment {
        try cached(plan, .objectIDs) { plan in
            let table = try table(of: plan)
            return try select(plan, from: table, columns: "t0.Z_PK, " + Self.entityCode(of: table))
        }
    }

    /// The number of rows matching `plan`: `SELECT count(*)` without ordering, or, when the plan
    /// has a limit or an offset, the count of the limited SELECT (`SELECT count(*) FROM (…)`).
    func count(_ plan: FetchPlan) throws -> SQLFragment {
        try cached(plan, .count) { plan in try countStatement(plan) }
    }

    /// The number of shapes of plan whose statements are cached now.
    var cachedShapeCount: Int { shapes?.count ?? 0 }

    private func cached(_ plan: FetchPlan, _ kind: FetchStatementKind, compile: (FetchPlan) throws -> SQLFragment) throws -> SQLFragment {
        guard let shapes else { return try compile(plan) }
        return try shapes.statement(plan, kind: kind, compile: compile)
    }

    private func countStatement(_ plan: FetchPlan) throws -> SQLFragment {
        let table = try table(of: plan)
        if plan.limit > 0 || plan.offset > 0 {
            return "SELECT count(*) FROM (" + (try select(plan, from: table, columns: "1")) + ")"
        }
        return try select(plan.with(resultKind: .count), from: table, columns: "count(*)")
    }

    /// `SELECT <columns> FROM <table> t0 <joins> WHERE <entity codes> AND <predicate> ORDER BY
    /// <sorts>, t0.Z_PK LIMIT ? OFFSET ?`. The entity-code filter is left out when the plan takes
    /// a whole table (a root entity with its sub-entities); a count without limit and offset is
    /// not ordered.
    private func select(_ plan: FetchPlan, from table: SQLiteSchema.Table, columns: String) throws -> SQLFragment {
        let scope = SQLQueryScope(schema: schema, entity: plan.entity)
        let compiler = PredicateSQLCompiler(scope: scope)
        var conditions: [SQLFragment] = []
        if plan.needsEntityFilter {
            conditions.append(SQLFragment("t0.Z_ENT IN (" + plan.entityCodes.map(String.init).joined(separator: ", ") + ")"))
        }
        if let predicate = plan.predicate { conditions.append(try compiler.compile(predicate)) }
        let orderBy = plan.resultKind == .count && plan.limit == 0 && plan.offset == 0 ? nil : try compiler.orderBy(plan.sorts)
        var sql = SQLFragment("SELECT " + columns + " FROM " + SQLFragment.identifier(table.name) + " t0")
        for join in scope.joins { sql.text += " " + join }
        if !conditions.isEmpty { sql = sql + " WHERE " + SQLFragment.join(conditions, separator: " AND ") }
        if let orderBy { sql = sql + " ORDER BY " + orderBy }
        if plan.limit > 0 || plan.offset > 0 {
            sql = sql + " LIMIT " + SQLFragment.value(.integer(plan.limit > 0 ? Int64(plan.limit) : -1)) + " OFFSET " + SQLFragment.value(.integer(Int64(plan.offset)))
        }
        return sql
    }

    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0."<column>", …`: every column of `table` (the entity
    /// code as `entityCode(of:)` selects it).
    private static func rowColumns(of table: SQLiteSchema.Table) -> String {
        (["t0.Z_PK", entityCode(of: table), "t0.Z_OPT"] + table.columns.map { "t0." + SQLFragment.identifier($0.name) }).joined(separator: ", ")
    }

    /// What a read selects as a row's entity code: `t0.Z_ENT`, or, for a table that holds one
    /// entity only (a root without sub-entities), that entity's code as a literal named `Z_ENT`
    /// (statements that wrap a SELECT, such as a batch delete's, select the column by name), so
    /// that SQLite does not read the column for every row. Core Data's SQLite store does the
    /// same: it selects a constant in that place for such a table (`SELECT 0, t0.Z_PK, t0.Z_OPT,
    /// …`). A fetch then takes a row of such a table as its entity's whatever its `Z_ENT` holds,
    /// as a count (which does not filter on `Z_ENT` there) already did.
    private static func entityCode(of table: SQLiteSchema.Table) -> String {
        table.holdsOneEntity ? "\(table.root.layout.code) AS Z_ENT" : "t0.Z_ENT"
    }

    private func table(of plan: FetchPlan) throws -> SQLiteSchema.Table {
        guard let table = schema.table(for: plan.entity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(plan.entity.name)' is not stored in this store", entityName: plan.entity.name)
        }
        return table
    }

    // MARK: Rows by key

    /// The rows of a table whose keys are in a key list (bind ``keyList(_:)``), with every
    /// column: how faults are fulfilled, a batch at a time. Nil for an unknown table.
    func rowsByKeys(inTable table: String) -> String? {
        rowsByKeys[table]
    }

    /// The rows of a table whose keys lie in a closed range (binds the first and the last key),
    /// in key order, with every column: one range read of the table's rowid b-tree, how a batch
    /// of consecutive keys (a batched walk in key order) is loaded. Nil for an unknown table.
    func rowsInKeyRange(inTable table: String) -> String? {
        rowsInKeyRange[table]
    }

    /// The row of a table with a key (binds `Z_PK`), with every column: how a save reads the
    /// stored row of a conflict. Nil for an unknown table.
    func rowByKey(inTable table: String) -> String? {
        rowsByKey[table]
    }

    /// The binding of a key list: a JSON array of keys, read with `json_each`, so one statement
    /// serves any number of keys.
    static func keyList(_ keys: [Int64]) -> StoredValue {
        .text(keyListText(keys))
    }

    /// The JSON text of a key list, written digit by digit into one buffer (no string per key).
    static func keyListText(_ keys: [Int64]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.count * 8 + 2)
        bytes.append(UInt8(ascii: "["))
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        for (index, key) in keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if key < 0 { bytes.append(UInt8(ascii: "-")) }
            var magnitude = key.magnitude
            var count = 0
            withUnsafeMutableBytes(of: &digits) { buffer in
                repeat {
                    buffer[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                    magnitude /= 10
                    count += 1
                } while magnitude > 0
                for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[position]) }
            }
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: To-many relationships

    /// The contents of a to-many relationship for owners whose keys are in a key list (bind
    /// ``keyList(_:)``): rows of (owner key, member key, member entity code), by owner, then
    /// in the relationship's order (position, for an ordered relationship read from its owning
    /// side), then by member key. Nil for a relationship without storage in the schema.
    func toManyContents(of relationship: RelationshipDescription) -> String? {
        toManyContents[ObjectIdentifier(relationship)]
    }

    /// The contents of a to-many relationship for owners whose keys are in a key list, with
    /// the members' rows: the owner's key, then every column of the member's row (as
    /// ``rows(_:)`` selects them), by owner, then in the relationship's order, then by member
    /// key. Nil for a relationship without storage in the schema.
    func toManyRows(of relationship: RelationshipDescription) -> String? {
        toManyRows[ObjectIdentifier(relationship)]
    }

    /// ``toManyRows(of:)``: the statement of ``contents(_:destinationTable:)`` selecting whole
    /// member rows (alias `t0`, as `columns` expects).
    private static func memberRows(_ storage: SQLiteSchema.ToManyStorage, destinationTable: String, columns: String) -> String {
        switch storage {
        case .foreignKey(let table, let column, let orderColumn, _):
            let key = "t0." + SQLFragment.identifier(column)
            let order = orderColumn.map { "t0.\(SQLFragment.identifier($0)), " } ?? ""
            return
                "SELECT \(key), \(columns) FROM \(SQLFragment.identifier(table)) t0 WHERE \(key) IN (SELECT value FROM json_each(?)) ORDER BY \(key), \(order)t0.Z_PK"
        case .joinTable(let join, let isSourceSide):
            let mine = isSourceSide ? "Z_SOURCE" : "Z_TARGET"
            let other = isSourceSide ? "Z_TARGET" : "Z_SOURCE"
            let order = join.isOrdered && isSourceSide ? "j.Z_ORDER, " : ""
            return
                "SELECT j.\(mine), \(columns) FROM \(SQLFragment.identifier(join.name)) j JOIN \(SQLFragment.identifier(destinationTable)) t0 ON t0.Z_PK = j.\(other) WHERE j.\(mine) IN (SELECT value FROM json_each(?)) ORDER BY j.\(mine), \(order)j.\(other)"
        }
    }

    /// A one-to-many is read through the inverse's foreign key on the members' table (ordered:
    /// its position column); a many-to-many through its join table, joined to the members'
    /// table for their entity codes.
    private static func contents(_ storage: SQLiteSchema.ToManyStorage, destinationTable: String) -> String {
        switch storage {
        case .foreignKey(let table, let column, let orderColumn, _):
            let order = orderColumn.map { "\(SQLFragment.identifier($0)), " } ?? ""
            return
                "SELECT \(SQLFragment.identifier(column)), Z_PK, Z_ENT FROM \(SQLFragment.identifier(table)) WHERE \(SQLFragment.identifier(column)) IN (SELECT value FROM json_each(?)) ORDER BY \(SQLFragment.identifier(column)), \(order)Z_PK"
        case .joinTable(let join, let isSourceSide):
            let mine = isSourceSide ? "Z_SOURCE" : "Z_TARGET"
            let other = isSourceSide ? "Z_TARGET" : "Z_SOURCE"
            let order = join.isOrdered && isSourceSide ? "j.Z_ORDER, " : ""
            return
                "SELECT j.\(mine), j.\(other), d.Z_ENT FROM \(SQLFragment.identifier(join.name)) j JOIN \(SQLFragment.identifier(destinationTable)) d ON d.Z_PK = j.\(other) WHERE j.\(mine) IN (SELECT value FROM json_each(?)) ORDER BY j.\(mine), \(order)j.\(other)"
        }
    }
}
