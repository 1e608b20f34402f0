import Foundation
import StrataSQLite

/// Prefetching a to-many relationship: the members of many owners and the members' rows in
/// one read ordered by owner, filed into one list per owner without a dictionary.
extension SQLiteStore {
    /// The contents of `relationship` for each of `ids` (`members[i]` for `ids[i]`) and the
    /// members' rows, with one statement. Callable from any thread.
    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows {
        guard let sql = fetchSQL.toManyRows(of: relationship) else {
            return try ToManyRows.byTwoReads(of: ids, relationship: relationship, options: options, contents: toManyIDs, rows: snapshots)
        }
        var members = [[ManagedObjectID]](repeating: [], count: ids.count)
        // The owners in key order (rows come ordered by owner key): positions into `ids`.
        let keys = ids.map { $0.primaryKey ?? Int64.min }
        var order = Array(ids.indices)
        if !Self.ascends(keys) { order.sort { keys[$0] < keys[$1] } }
        let asked = keys.filter { $0 != Int64.min }
        guard !asked.isEmpty else { return ToManyRows(members: members, rows: []) }
        var rows: [RowSnapshot] = []
        do {
            try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql)
                var decoder = RowDecoder(store: self)
                var next = 0
                try statement.forEachRow([.text(FetchStatements.keyListText(asked))]) { row in
                    let owner = row.int64(at: 0)
                    while next < order.count && keys[order[next]] < owner { next += 1 }
                    guard let member = try decoder.decode(row, offset: 1) else { return }
                    rows.append(member)
                    var position = next
                    // Every owner asked for under this key (an ID asked twice gets the members twice).
                    while position < order.count && keys[order[position]] == owner {
                        members[order[position]].append(member.objectID)
                        position += 1
                    }
                }
            }
        } catch {
            throw wrap(error, "Prefetching \(relationship.entity?.name ?? "?").\(relationship.name)")
        }
        return ToManyRows(members: members, rows: rows)
    }

    /// Whether `keys` never decrease.
    private static func ascends(_ keys: [Int64]) -> Bool {
        var previous = Int64.min
        for key in keys {
            if key < previous { return false }
            previous = key
        }
        return true
    }
}
