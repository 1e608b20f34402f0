import Foundation

/// One snapshot of an in-memory store's state as a fetch reads it, with the members of to-many
/// relationships computed once per relationship for all owners (one pass over the destination
/// table) instead of one pass per owner. Made for one fetch and used by its `StoredRow`s on the
/// fetching thread only.
final class InMemoryToManyIndex {
    private let store: InMemoryStore
    /// The state the fetch reads.
    let state: InMemoryStore.State
    /// Member keys by relationship, then by owner key, in the store's order.
    private var members: [ObjectIdentifier: [Int64: [Int64]]] = [:]

    init(store: InMemoryStore, state: InMemoryStore.State) {
        self.store = store
        self.state = state
    }

    /// The destination rows of `relationship` for the owner with key `owner`, in the order
    /// `InMemoryStore.toMany(of:relationship:in:)` gives. O(1) after the first call per relationship.
    func memberKeys(of owner: Int64, relationship: RelationshipDescription) -> [Int64] {
        let key = ObjectIdentifier(relationship)
        if let built = members[key] { return built[owner] ?? [] }
        let built = build(relationship)
        members[key] = built
        return built[owner] ?? []
    }

    private func build(_ relationship: RelationshipDescription) -> [Int64: [Int64]] {
        guard let destination = relationship.destinationEntity, let storage = store.schema.storage(of: relationship) else { return [:] }
        switch storage {
        case .foreignKey:
            guard let inverse = relationship.inverseRelationship else { return [:] }
            let positions = state.positions[InMemoryStore.relationshipKey(relationship)] ?? [:]
            var grouped: [Int64: [(position: Int64, key: Int64)]] = [:]
            // The inverse's slot is the same in every sub-entity of the destination.
            let slot = PropertySlot.index(of: inverse, in: destination)
            guard slot >= 0 else { return [:] }
            for (key, row) in state.tables[destination.rootEntity.name] ?? [:] {
                guard slot < row.toOne.count, row.entity.isKindOf(entity: destination), let owner = row.toOne[slot]?.primaryKey else { continue }
                grouped[owner, default: []].append((positions[key] ?? 0, key))
            }
            return grouped.mapValues { list in
                list.sorted { relationship.isOrdered && $0.position != $1.position ? $0.position < $1.position : $0.key < $1.key }.map(\.key)
            }
        case .joinTable(let join, let isSourceSide):
            let rows = state.joins[join.name] ?? [:]
            let table = state.tables[destination.rootEntity.name] ?? [:]
            if isSourceSide {
                return rows.mapValues { keys in (join.isOrdered ? keys : keys.sorted()).filter { table[$0] != nil } }
            }
            var inverse: [Int64: [Int64]] = [:]
            for (source, targets) in rows {
                for target in Set(targets) where table[source] != nil { inverse[target, default: []].append(source) }
            }
            return inverse.mapValues { $0.sorted() }
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
