import StrataSQLite

/// Stored values at the SQLite boundary. SQLite's five storage classes are exactly the stored
/// form's, so each conversion is one `switch` that moves the payload.
extension StoredValue {
    /// The stored value of a value SQLite returned.
    @inline(__always) init(_ value: SQLiteValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .real(v)
        case .text(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }

    /// The value to bind to a SQLite statement.
    @inline(__always) var sqliteValue: SQLiteValue {
        switch self {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        }
    }
}

extension SQLiteStatement {
    /// The column as a stored value.
    @inline(__always) func storedValue(at index: Int32) -> StoredValue {
        StoredValue(value(at: index))
    }

    /// Binds a stored value to a parameter (1-based).
    @inline(__always) func bind(stored value: StoredValue, at index: Int32) throws {
        try bind(value.sqliteValue, at: index)
    }
}

extension Array where Element == StoredValue {
    /// The values to bind to a SQLite statement.
    var sqliteValues: [SQLiteValue] { map(\.sqliteValue) }
}
