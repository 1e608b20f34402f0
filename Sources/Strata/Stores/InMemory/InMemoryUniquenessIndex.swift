/// The constrained values of a table's rows, per uniqueness constraint, for the checks of one
/// save of the in-memory store (see `InMemoryStore.checkUniqueness`). Rows with a nil or NULL
/// constrained value are left out: NULLs never collide, as in SQLite.
struct UniquenessIndex {
    struct Key: Hashable {
        var owner: ObjectIdentifier
        var constraint: Int
    }

    private var maps: [Key: [[StoredValue]: RowSnapshot]] = [:]

    func isBuilt(_ key: Key) -> Bool { maps[key] != nil }

    mutating func build(_ key: Key, keys: [String], rows: some Sequence<RowSnapshot>) {
        var map: [[StoredValue]: RowSnapshot] = [:]
        for row in rows {
            if let values = Self.values(of: row, keys: keys), map[values] == nil { map[values] = row }
        }
        maps[key] = map
    }

    func row(matching row: RowSnapshot, keys: [String], key: Key) -> RowSnapshot? {
        guard let values = Self.values(of: row, keys: keys) else { return nil }
        return maps[key]?[values]
    }

    mutating func add(_ row: RowSnapshot, keys: [String], key: Key) {
        guard let values = Self.values(of: row, keys: keys) else { return }
        maps[key, default: [:]][values] = row
    }

    mutating func remove(_ row: RowSnapshot, keys: [String], key: Key) {
        guard let values = Self.values(of: row, keys: keys), maps[key]?[values]?.objectID == row.objectID else { return }
        maps[key]?[values] = nil
    }

    /// The row's values of `keys` (a to-one as its destination's key), or nil when one is nil
    /// or NULL.
    static func values(of row: RowSnapshot, keys: [String]) -> [StoredValue]? {
        var result: [StoredValue] = []
        result.reserveCapacity(keys.count)
        for key in keys {
            let value: StoredValue?
            switch row.entity.layout.slot(forKey: key) {
            case .attribute(let slot)?: value = row.attributes[safe: slot]
            case .toOne(let slot)?: value = (row.toOne[safe: slot] ?? nil).flatMap { $0.primaryKey.map { .integer($0) } }
            default: value = nil
            }
            guard let value, value != .null else { return nil }
            result.append(value)
        }
        return result
    }
}
