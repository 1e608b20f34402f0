import Foundation
import StrataSQLite

/// Reading: fetches, counts, fault fulfilment and to-many loading, on reader connections.
extension SQLiteStore {
    /// `SELECT Z_PK, Z_ENT, Z_OPT, <every column> FROM <table> t0 …` for a plan.
    private func selectSQL(_ plan: FetchPlan, columns: String) throws -> SQLFragment {
        guard let table = schema.table(for: plan.entity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(plan.entity.name)' is not stored in this store", entityName: plan.entity.name, url: url)
        }
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

    private func allColumns(of entity: EntityDescription, alias: String) -> String {
        guard let table = schema.table(for: entity) else { return alias + ".Z_PK" }
        return ([alias + ".Z_PK", alias + ".Z_ENT", alias + ".Z_OPT"] + table.columns.map { alias + "." + SQLFragment.identifier($0.name) }).joined(separator: ", ")
    }

    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] {
        let sql = try selectSQL(plan, columns: allColumns(of: plan.entity, alias: "t0"))
        do {
            return try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql.text)
                var rows: [RowSnapshot] = []
                var decoder = RowDecoder(store: self)
                let start = DispatchTime.now()
                try statement.forEachRow(sql.bindings.sqliteValues) { row in
                    if let snapshot = decoder.decode(row, offset: 0) { rows.append(snapshot) }
                }
                SQLTracing.logRowCount(rows.count, of: plan.entity.name, since: start)
                return rows
            }
        } catch {
            throw wrap(error, "Fetching \(plan.entity.name)")
        }
    }

    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] {
        let sql = try selectSQL(plan, columns: "t0.Z_PK, t0.Z_ENT")
        do {
            return try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql.text)
                var ids: [ManagedObjectID] = []
                let fallback = plan.entity
                let start = DispatchTime.now()
                defer { SQLTracing.logRowCount(ids.count, of: plan.entity.name, since: start) }
                try statement.forEachRow(sql.bindings.sqliteValues) { row in
                    let entity = model.entity(forCode: row.int64(at: 1)) ?? fallback
                    ids.append(ManagedObjectID(entity: entity, primaryKey: row.int64(at: 0), store: token))
                }
                return ids
            }
        } catch {
            throw wrap(error, "Fetching \(plan.entity.name) IDs")
        }
    }

    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList {
        let sql = try selectSQL(plan, columns: "t0.Z_PK, t0.Z_ENT")
        do {
            return try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql.text)
                var list = ObjectIDList(entity: plan.entity, store: token, model: model)
                try statement.forEachRow(sql.bindings.sqliteValues) { row in
                    list.append(key: row.int64(at: 0), code: row.int64(at: 1))
                }
                return list
            }
        } catch {
            throw wrap(error, "Fetching \(plan.entity.name) IDs")
        }
    }

    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int {
        var sql: SQLFragment
        if plan.limit > 0 || plan.offset > 0 {
            sql = "SELECT count(*) FROM (" + (try selectSQL(plan, columns: "1")) + ")"
        } else {
            sql = try selectSQL(plan.with(resultKind: .count), columns: "count(*)")
        }
        do {
            return try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql.text)
                var count = 0
                try statement.forEachRow(sql.bindings.sqliteValues) { count = Int($0.int64(at: 0)) }
                return count
            }
        } catch {
            throw wrap(error, "Counting \(plan.entity.name)")
        }
    }

    /// Decodes the row at the cursor (columns `Z_PK, Z_ENT, Z_OPT, <table columns>` from `offset`).
    func decodeRow(_ row: SQLiteStatement, offset: Int32) -> RowSnapshot? {
        var decoder = RowDecoder(store: self)
        return decoder.decode(row, offset: offset)
    }

    /// Decodes the rows of one query: the entity and column layout of the last entity code
    /// seen are kept (a query's rows mostly share one), and every snapshot gets the query's
    /// read time.
    struct RowDecoder {
        let store: SQLiteStore
        let fetchedAt = RowSnapshot.now()
        private var lastCode: Int64?
        private var lastEntity: EntityDescription?
        private var lastColumns: SQLiteSchema.EntityColumns?

        init(store: SQLiteStore) { self.store = store }

        mutating func decode(_ row: SQLiteStatement, offset: Int32) -> RowSnapshot? {
            let code = row.int64(at: offset + 1)
            if code != lastCode {
                lastEntity = store.model.entity(forCode: code)
                lastColumns = lastEntity.flatMap { store.schema.columns(for: $0) }
                lastCode = code
            }
            guard let entity = lastEntity, let columns = lastColumns else { return nil }
            let pk = row.int64(at: offset)
            let version = row.int64(at: offset + 2)
            var attributes = ContiguousArray<StoredValue>()
            attributes.reserveCapacity(columns.attributeColumns.count)
            for column in columns.attributeColumns {
                attributes.append(row.storedValue(at: offset + Int32(column)))
            }
            var toOne = ContiguousArray<ManagedObjectID?>()
            if !columns.toOneColumns.isEmpty {
                let relationships = entity.layout.toOneRelationships
                toOne.reserveCapacity(relationships.count)
                for (slot, column) in columns.toOneColumns.enumerated() {
                    let keyIndex = offset + Int32(column.key)
                    if row.isNull(at: keyIndex) {
                        toOne.append(nil)
                        continue
                    }
                    var destination = relationships[slot].destinationEntity ?? entity
                    if let codeColumn = column.entityCode, let concrete = store.model.entity(forCode: row.int64(at: offset + Int32(codeColumn))) {
                        destination = concrete
                    }
                    toOne.append(ManagedObjectID(entity: destination, primaryKey: row.int64(at: keyIndex), store: store.token))
                }
            }
            return RowSnapshot(objectID: ManagedObjectID(entity: entity, primaryKey: pk, store: store.token), version: version, attributes: attributes, toOne: toOne, fetchedAt: fetchedAt)
        }
    }

    /// A JSON array of keys, bound as one parameter and read with `json_each`.
    private func jsonKeys(_ keys: [Int64]) -> SQLiteValue {
        .text("[" + keys.map(String.init).joined(separator: ",") + "]")
    }

    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        guard !ids.isEmpty else { return [] }
        var byTable: [String: (entity: EntityDescription, keys: [Int64])] = [:]
        for id in ids {
            guard let pk = id.primaryKey, let table = schema.table(for: id.entity) else { continue }
            byTable[table.name, default: (id.entity.rootEntity, [])].keys.append(pk)
        }
        do {
            return try pool.withReader(options) { connection in
                var rows: [RowSnapshot] = []
                rows.reserveCapacity(ids.count)
                var decoder = RowDecoder(store: self)
                for (tableName, group) in byTable.sorted(by: { $0.key < $1.key }) {
                    let sql =
                        "SELECT " + allColumns(of: group.entity, alias: "t0") + " FROM " + SQLFragment.identifier(tableName)
                        + " t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
                    let statement = try connection.cachedStatement(sql)
                    try statement.forEachRow([jsonKeys(group.keys)]) { row in
                        if let snapshot = decoder.decode(row, offset: 0) { rows.append(snapshot) }
                    }
                }
                return rows
            }
        } catch {
            throw wrap(error, "Loading rows")
        }
    }

    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        var owners: [Int64: ManagedObjectID] = [:]
        for id in ids {
            result[id] = []
            if let pk = id.primaryKey { owners[pk] = id }
        }
        guard !owners.isEmpty, let destination = relationship.destinationEntity, let storage = schema.storage(of: relationship),
            let destinationTable = schema.table(for: destination)
        else { return result }
        let sql: String
        switch storage {
        case .foreignKey(let table, let column, let orderColumn, _):
            let order = orderColumn.map { "\(SQLFragment.identifier($0)), " } ?? ""
            sql =
                "SELECT \(SQLFragment.identifier(column)), Z_PK, Z_ENT FROM \(SQLFragment.identifier(table)) WHERE \(SQLFragment.identifier(column)) IN (SELECT value FROM json_each(?)) ORDER BY \(SQLFragment.identifier(column)), \(order)Z_PK"
        case .joinTable(let join, let isSourceSide):
            let mine = isSourceSide ? "Z_SOURCE" : "Z_TARGET"
            let other = isSourceSide ? "Z_TARGET" : "Z_SOURCE"
            let order = join.isOrdered && isSourceSide ? "j.Z_ORDER, " : ""
            sql =
                "SELECT j.\(mine), j.\(other), d.Z_ENT FROM \(SQLFragment.identifier(join.name)) j JOIN \(SQLFragment.identifier(destinationTable.name)) d ON d.Z_PK = j.\(other) WHERE j.\(mine) IN (SELECT value FROM json_each(?)) ORDER BY j.\(mine), \(order)j.\(other)"
        }
        do {
            try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql)
                try statement.forEachRow([jsonKeys(Array(owners.keys))]) { row in
                    guard let owner = owners[row.int64(at: 0)] else { return }
                    let entity = model.entity(forCode: row.int64(at: 2)) ?? destination
                    result[owner, default: []].append(ManagedObjectID(entity: entity, primaryKey: row.int64(at: 1), store: token))
                }
            }
        } catch {
            throw wrap(error, "Loading \(relationship.entity?.name ?? "?").\(relationship.name)")
        }
        return result
    }
}
