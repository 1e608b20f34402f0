import Foundation

/// One snapshot of an in-memory store's state as a fetch reads it. The state keeps persistent
/// indexes of foreign keys and join rows, so the members of a to-many are found in time
/// proportional to their number. Made for one fetch and used by its `StoredRow`s on the
/// fetching thread only.
final class InMemoryToManyIndex {
    private let store: InMemoryStore
    /// The state the fetch reads.
    let state: InMemoryStore.State

    init(store: InMemoryStore, state: InMemoryStore.State) {
        self.store = store
        self.state = state
    }

    /// The destination keys of `relationship` for the owner with key `owner`, in the order
    /// `InMemoryStore.toMany(of:relationship:in:)` gives. O(members · log members).
    func memberKeys(of owner: Int64, relationship: RelationshipDescription) -> [Int64] {
        guard let destination = relationship.destinationEntity, let storage = store.schema.storage(of: relationship) else { return [] }
        let table = state.tables[destination.rootEntity.name] ?? [:]
        switch storage {
        case .foreignKey:
            guard let inverse = relationship.inverseRelationship else { return [] }
            let referrers = state.referrers[ObjectIdentifier(inverse)]?[owner] ?? []
            let positions = relationship.isOrdered ? (state.positions[InMemoryStore.relationshipKey(relationship)] ?? [:]) : [:]
            return referrers.filter { table[$0] != nil }.sorted { a, b in
                let pa = positions[a] ?? 0
                let pb = positions[b] ?? 0
                return relationship.isOrdered && pa != pb ? pa < pb : a < b
            }
        case .joinTable(let join, let isSourceSide):
            if isSourceSide {
                let keys = state.joins[join.name]?[owner] ?? []
                return (join.isOrdered ? keys : keys.sorted()).filter { table[$0] != nil }
            }
            return (state.reverseJoins[join.name]?[owner] ?? []).filter { table[$0] != nil }.sorted()
        }
    }
}

extension InMemoryStore {
    /// The rows of a table in primary-key order. Keys are handed out densely, so the rows are
    /// placed by key in one pass (O(n)); sparse tables fall back to sorting the keys.
    static func rowsInKeyOrder(_ table: [Int64: RowSnapshot]) -> [RowSnapshot] {
        guard var low = table.keys.first else { return [] }
        var high = low
        for key in table.keys {
            if key < low { low = key }
            if key > high { high = key }
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < Int64(table.count) * 4 + 64 else {
            return table.keys.sorted().compactMap { table[$0] }
        }
        var placed = [RowSnapshot?](repeating: nil, count: Int(span) + 1)
        for (key, row) in table { placed[Int(key - low)] = row }
        return placed.compactMap { $0 }
    }
}
