import Foundation
import StrataSQLite

/// Reading: fetches, counts, fault fulfilment and to-many loading, on reader connections.
extension SQLiteStore {
    /// `plan`, once its entity is known to have a table here (`FetchStatements` builds its SQL).
    private func stored(_ plan: FetchPlan) throws -> FetchPlan {
        _ = try table(of: plan)
        return plan
    }

    /// The table of `plan`'s entity; throws when it has none here.
    private func table(of plan: FetchPlan) throws -> SQLiteSchema.Table {
        guard let table = schema.table(for: plan.entity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(plan.entity.name)' is not stored in this store", entityName: plan.entity.name, url: url)
        }
        return table
    }

    /// The read plan of the one entity `table` holds (``SQLiteSchema/Table/holdsOneEntity``), or
    /// nil when it holds an inheritance tree: a decoder given it does not read `Z_ENT` (see
    /// ``RowDecoder/assumeEntity(of:)``).
    func onlyReadPlan(of table: SQLiteSchema.Table) -> SQLiteEntityReadPlan? {
        table.holdsOneEntity ? readPlans.plan(for: table.root) : nil
    }

    /// Runs `body` (a statement's execution) inside an SQL span of a ``StrataTrace`` recording,
    /// whose `label` argument is the result's `count`.
    private func traced<T>(_ sql: String, _ label: StaticString, _ count: (T) -> Int, _ body: () throws -> T) rethrows -> T {
        try StrataTrace.span("SQL", .sql, arguments: TraceArguments(.text("sql", sql)), outcome: { $1.append(.number(label, count($0))) }, body: body)
    }

    /// The most rows a limited fetch makes room for before reading (see ``fetchRows(_:options:)``).
    static var limitedFetchReserve: Int { 4096 }

    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] {
        let table = try table(of: plan)
        let sql = try fetchSQL.rows(plan)
        do {
            return try traced(sql.text, "rows", \.count) {
                try pool.withReader(options) { connection in
                    let statement = try connection.cachedStatement(sql.text)
                    // A ContiguousArray: appending to an Array of class references calls the
                    // standard library's unspecialized entry points, which retain and release
                    // each row once more. Handed over as an Array without a copy.
                    var rows = ContiguousArray<RowSnapshot>()
                    // A limited fetch reads at most `limit` rows: room for them at once, not
                    // seven or eight regrowths of the array for a `fetchLimit` of 100. Capped, as
                    // a large limit is an upper bound the table may be far below.
                    if plan.limit > 0 { rows.reserveCapacity(Swift.min(plan.limit, Self.limitedFetchReserve)) }
                    var decoder = RowDecoder(store: self)
                    decoder.assumeEntity(of: onlyReadPlan(of: table))
                    let start = DispatchTime.now()
                    let watcher = options.watcher
                    var read = 0
                    try statement.forEachRow(sql.bindings.sqliteValues) { row in
                        if let snapshot = try decoder.decode(row, offset: 0) { rows.append(snapshot) }
                        if let watcher {
                            read += 1
                            if read % ReadWatcher.reportInterval == 0 { try watcher.rowsRead(read) }
                        }
                    }
                    try watcher?.finished(read)
                    SQLTracing.logRowCount(rows.count, of: plan.entity.name, since: start)
                    return Array(rows)
                }
            }
        } catch {
            throw wrap(error, "Fetching \(plan.entity.name)")
        }
    }

    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] {
        let sql = try fetchSQL.objectIDs(stored(plan))
        do {
            return try traced(sql.text, "rows", \.count) {
                try pool.withReader(options) { connection in
                    let statement = try connection.cachedStatement(sql.text)
                    var ids: [ManagedObjectID] = []
                    let fallback = plan.entity
                    let start = DispatchTime.now()
                    defer { SQLTracing.logRowCount(ids.count, of: plan.entity.name, since: start) }
                    let watcher = options.watcher
                    var spaces = StoreIDSpaces(token: token)
                    try statement.forEachRow(sql.bindings.sqliteValues) { row in
                        let entity = model.entity(forCode: row.int64(at: 1)) ?? fallback
                        ids.append(spaces.id(entity, primaryKey: row.int64(at: 0)))
                        if let watcher, ids.count % ReadWatcher.reportInterval == 0 { try watcher.rowsRead(ids.count) }
                    }
                    try watcher?.finished(ids.count)
                    return ids
                }
            }
        } catch {
            throw wrap(error, "Fetching \(plan.entity.name) IDs")
        }
    }

    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList {
        let sql = try fetchSQL.objectIDs(stored(plan))
        do {
            return try traced(sql.text, "rows", \.count) {
                try pool.withReader(options) { connection in
                    let statement = try connection.cachedStatement(sql.text)
                    var list = ObjectIDList(entity: plan.entity, store: token, model: model)
                    let watcher = options.watcher
                    try statement.forEachRow(sql.bindings.sqliteValues) { row in
                        list.append(key: row.int64(at: 0), code: row.int64(at: 1))
                        if let watcher, list.count % ReadWatcher.reportInterval == 0 { try watcher.rowsRead(list.count) }
                    }
                    try watcher?.finished(list.count)
                    return list
                }
            }
        } catch {
            throw wrap(error, "Fetching \(plan.entity.name) IDs")
        }
    }

    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int {
        let sql = try fetchSQL.count(stored(plan))
        do {
            return try traced(sql.text, "count", \.self) {
                try pool.withReader(options) { connection in
                    let statement = try connection.cachedStatement(sql.text)
                    var count = 0
                    try statement.forEachRow(sql.bindings.sqliteValues) { count = Int($0.int64(at: 0)) }
                    return count
                }
            }
        } catch {
            throw wrap(error, "Counting \(plan.entity.name)")
        }
    }

    /// Decodes the row at the cursor (columns `Z_PK, Z_ENT, Z_OPT, <table columns>` from `offset`).
    func decodeRow(_ row: SQLiteStatement, offset: Int32) throws -> RowSnapshot? {
        var decoder = RowDecoder(store: self)
        return try decoder.decode(row, offset: offset)
    }

    /// Decodes the rows of one query: the read plan of the last entity code seen is kept (a
    /// query's rows mostly share one), and every snapshot gets the query's read time.
    struct RowDecoder {
        let store: SQLiteStore
        let fetchedAt = RowSnapshot.now()
        private var lastCode: Int64?
        /// The plan of `lastCode`, held here. A row borrows it (through `Unmanaged`) with its `let`
        /// fields (entity, column lists) instead of retaining and releasing each of them once per
        /// row (perf of the fault fetch: retains and releases were a fifth of decoding a row).
        private var lastPlan: SQLiteEntityReadPlan?
        /// The ID spaces of the rows' entities and to-one targets (taken once per entity, not
        /// under the token's lock per row).
        private var spaces: StoreIDSpaces

        init(store: SQLiteStore) {
            self.store = store
            self.spaces = StoreIDSpaces(token: store.token)
        }

        /// Whether every row is `lastPlan`'s entity's, so that `Z_ENT` is not read.
        private var entityIsFixed = false

        /// Decodes the rows that follow as rows of `plan`'s entity without reading their `Z_ENT`
        /// (`plan`: the one entity of their table, ``SQLiteStore/onlyReadPlan(of:)``), or, for
        /// nil, by the entity their `Z_ENT` names.
        mutating func assumeEntity(of plan: SQLiteEntityReadPlan?) {
            entityIsFixed = plan != nil
            guard let plan else { return }
            lastPlan = plan
            lastCode = plan.entity.layout.code
        }

        mutating func decode(_ row: SQLiteStatement, offset: Int32) throws -> RowSnapshot? {
            if !entityIsFixed {
                let code = row.int64(at: offset + 1)
                if code != lastCode {
                    lastPlan = store.readPlans.plan(forCode: code)
                    lastCode = code
                }
            }
            // `lastPlan` keeps the plan alive for the whole call: nothing below assigns it.
            guard let reference = lastPlan.map(Unmanaged.passUnretained) else { return nil }
            return try reference._withUnsafeGuaranteedRef { plan in try decode(row, offset: offset, plan: plan) }
        }

        /// Decodes the row at the cursor with `plan` (its entity's).
        @inline(__always)
        private mutating func decode(_ row: SQLiteStatement, offset: Int32, plan: SQLiteEntityReadPlan) throws -> RowSnapshot {
            let entity = plan.entity
            let pk = row.int64(at: offset)
            let version = row.int64(at: offset + 2)
            let objectID = spaces.id(entity, primaryKey: pk)
            let attributeColumns = plan.columns.attributeColumns
            let toOneColumns = plan.columns.toOneColumns
            if !plan.referenceSlots.isEmpty {
                var attributes = StoredValues(ContiguousArray(attributeColumns.map { row.storedValue(at: offset + Int32($0)) }))
                try store.resolveReferences(&attributes, slots: plan.referenceSlots)
                return RowSnapshot.make(objectID: objectID, version: version, fetchedAt: fetchedAt, count: attributes.count, toOneCount: toOneColumns.count) { values, targets in
                    attributes.copyInitialize(into: values)
                    decodeToOnes(row, offset: offset, entity: entity, columns: toOneColumns, into: targets)
                }
            }
            // The values and to-one targets are decoded straight into the snapshot's own storage.
            return RowSnapshot.make(objectID: objectID, version: version, fetchedAt: fetchedAt, count: attributeColumns.count, toOneCount: toOneColumns.count) { values, targets in
                attributeColumns.withUnsafeBufferPointer { columns in
                    for slot in columns.indices {
                        (values + slot).initialize(to: row.storedValue(at: offset + Int32(columns[slot])))
                    }
                }
                if !toOneColumns.isEmpty { decodeToOnes(row, offset: offset, entity: entity, columns: toOneColumns, into: targets) }
            }
        }

        /// Initializes the targets of the to-one columns (nil for a transient to-one, which has none).
        private mutating func decodeToOnes(
            _ row: SQLiteStatement, offset: Int32, entity: EntityDescription, columns: [SQLiteSchema.ToOneColumns?], into targets: UnsafeMutablePointer<ManagedObjectID?>
        ) {
            let relationships = entity.layout.toOneRelationships
            for (slot, column) in columns.enumerated() {
                var target: ManagedObjectID?
                if let column, let key = row.optionalInt64(at: offset + Int32(column.key)) {
                    var destination = relationships[slot].destinationEntity ?? entity
                    if let codeColumn = column.entityCode, let concrete = store.model.entity(forCode: row.int64(at: offset + Int32(codeColumn))) {
                        destination = concrete
                    }
                    target = spaces.id(destination, primaryKey: key)
                }
                (targets + slot).initialize(to: target)
            }
        }
    }
}
