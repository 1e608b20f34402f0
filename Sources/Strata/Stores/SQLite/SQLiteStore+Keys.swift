import Foundation
import StrataSQLite

/// Reading rows by key (fault fulfilment, the batches of batched walks, prefetched objects),
/// on reader connections: keys in ascending order that fill most of their range are read with
/// one range read of the table (`Z_PK BETWEEN ? AND ?`), other keys with one `IN` read.
extension SQLiteStore {
    /// The keys asked of one table, with the read plan of the first entity of the table asked.
    private struct KeyGroup {
        let plan: SQLiteEntityReadPlan
        var keys: [Int64]
    }

    /// The rows of `ids` that still exist: per table, one range read when the keys ascend and
    /// fill at least half their range, else one `IN` read. Callable from any thread.
    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        guard !ids.isEmpty else { return [] }
        let groups = keyGroups(of: ids)
        do {
            return try StrataTrace.span(
                "SQL rows by key", .sql, arguments: TraceArguments(.text("table", Self.tableNames(of: groups)), .number("keys", ids.count)),
                outcome: { $1.append(.number("rows", $0.count)) }, body: { try readRows(of: groups, count: ids.count, options: options) })
        } catch {
            throw wrap(error, "Loading rows")
        }
    }

    /// `snapshots(for:options:)`'s read, on one reader connection.
    private func readRows(of groups: [KeyGroup], count: Int, options: ReadOptions) throws -> [RowSnapshot] {
        try pool.withReader(options) { connection in
            var rows: [RowSnapshot] = []
            rows.reserveCapacity(count)
            var decoder = RowDecoder(store: self)
            for group in groups {
                decoder.assumeEntity(of: schema.table(for: group.plan.entity).flatMap(onlyReadPlan(of:)))
                if let range = Self.rangeReadable(group.keys), let sql = group.plan.rowsInKeyRange {
                    let statement = try connection.cachedStatement(sql)
                    let keys = group.keys
                    var next = 0
                    try statement.forEachRow([.integer(range.lowerBound), .integer(range.upperBound)]) { row in
                        // Rows come in key order, like the keys: skip the ones not asked for.
                        let key = row.int64(at: 0)
                        while next < keys.count && keys[next] < key { next += 1 }
                        guard next < keys.count, keys[next] == key else { return }
                        if let snapshot = try decoder.decode(row, offset: 0) { rows.append(snapshot) }
                    }
                } else if let sql = group.plan.rowsByKeys {
                    let statement = try connection.cachedStatement(sql)
                    try statement.forEachRow([.text(FetchStatements.keyListText(group.keys))]) { row in
                        if let snapshot = try decoder.decode(row, offset: 0) { rows.append(snapshot) }
                    }
                }
            }
            return rows
        }
    }

    /// The tables `groups` read, for a trace span: one name as it is (no text is built for the
    /// common case), several joined by commas.
    private static func tableNames(of groups: [KeyGroup]) -> String {
        groups.count == 1 ? groups[0].plan.table : groups.map(\.plan.table).joined(separator: ", ")
    }

    /// The keys of `ids` by table (tables by name, keys in the order asked), without hashing a
    /// table name per ID: consecutive IDs mostly share an entity, whose plan is found by code.
    private func keyGroups(of ids: [ManagedObjectID]) -> [KeyGroup] {
        var groups: [KeyGroup] = []
        var lastEntity: ObjectIdentifier?
        var lastGroup = -1
        for id in ids {
            guard let pk = id.primaryKey else { continue }
            let entity = ObjectIdentifier(id.entity)
            if entity != lastEntity {
                lastEntity = entity
                guard let plan = readPlans.plan(for: id.entity) else {
                    lastGroup = -1
                    continue
                }
                if let index = groups.firstIndex(where: { $0.plan.table == plan.table }) {
                    lastGroup = index
                } else {
                    groups.append(KeyGroup(plan: plan, keys: []))
                    groups[groups.count - 1].keys.reserveCapacity(ids.count)
                    lastGroup = groups.count - 1
                }
            }
            if lastGroup >= 0 { groups[lastGroup].keys.append(pk) }
        }
        return groups.count > 1 ? groups.sorted { $0.plan.table < $1.plan.table } : groups
    }

    /// The closed key range to read for `keys` when a range read is the cheaper one: the keys
    /// strictly ascend and fill at least half their range (a batch of a walk in key order,
    /// with a few rows deleted or filtered out), or there is just one; nil otherwise.
    static func rangeReadable(_ keys: [Int64]) -> ClosedRange<Int64>? {
        guard let first = keys.first, let last = keys.last else { return nil }
        // One key (a fault firing alone) is the range `key...key`: one indexed seek, without
        // building the text of a key list.
        if keys.count == 1 { return first...first }
        let span = last.subtractingReportingOverflow(first)
        guard first < last, !span.overflow, span.partialValue < Int64(keys.count) * 2 else { return nil }
        var previous = first
        for key in keys.dropFirst() {
            guard key > previous else { return nil }
            previous = key
        }
        return first...last
    }

    /// The contents of `relationship` for each of `ids` (every owner gets an entry), in one
    /// read ordered by owner: each owner's members are gathered in one array and filed once,
    /// not appended to the result dictionary row by row. Callable from any thread.
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        result.reserveCapacity(ids.count)
        var owners: [Int64: ManagedObjectID] = [:]
        owners.reserveCapacity(ids.count)
        for id in ids {
            result[id] = []
            if let pk = id.primaryKey { owners[pk] = id }
        }
        guard !owners.isEmpty, let destination = relationship.destinationEntity, let sql = fetchSQL.toManyContents(of: relationship) else { return result }
        do {
            try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql)
                var currentKey: Int64?
                var current: ManagedObjectID?
                var members: [ManagedObjectID] = []
                var spaces = StoreIDSpaces(token: token)
                func file() {
                    if let current, !members.isEmpty { result[current] = members }
                    members = []
                }
                try statement.forEachRow([.text(FetchStatements.keyListText(Array(owners.keys)))]) { row in
                    let key = row.int64(at: 0)
                    if key != currentKey {
                        file()
                        currentKey = key
                        current = owners[key]
                    }
                    guard current != nil else { return }
                    let entity = model.entity(forCode: row.int64(at: 2)) ?? destination
                    members.append(spaces.id(entity, primaryKey: row.int64(at: 1)))
                }
                file()
            }
        } catch {
            throw wrap(error, "Loading \(relationship.entity?.name ?? "?").\(relationship.name)")
        }
        return result
    }
}
