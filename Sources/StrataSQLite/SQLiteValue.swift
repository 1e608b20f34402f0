import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// This is the only value type that crosses the boundary between Strata and SQLite. It is
/// `Sendable` and immutable, so row snapshots built from it can be shared between queues.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether this is SQL `NULL`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether two values are the same stored value: like `==`, but −0.0 differs from 0.0 and NaN
    /// equals NaN (the bits of a real are what gets stored).
    public func isIdentical(to other: SQLiteValue) -> Bool {
        if case .real(let a) = self, case .real(let b) = other { return a.bitPattern == b.bitPattern }
        return self == other
    }

    /// A short name of the storage class, as SQLite's `typeof()` prints it.
    public var storageClassName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}

extension SQLiteValue: CustomStringConvertible {
    /// A literal-like rendering used in debug logs and error messages.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "X'<\(value.count) bytes>'"
        }
    }
}
