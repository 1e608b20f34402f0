import Foundation

/// A value in stored form: what a store keeps for an attribute, one of five storage classes
/// (SQLite's, which every store of Strata uses as its neutral form).
///
/// Objects hold their attribute values in this form, row snapshots carry it between queues, and
/// it is what crosses the store seam in both directions: a store converts it to and from its own
/// representation (the SQLite store binds and reads it directly, `Stores/SQLite/StoredValue+SQLite.swift`).
/// ``AttributeCodec`` converts between it and Swift values. `Sendable` and immutable.
enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether this is `NULL`.
    @inline(__always) var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether two values are the same stored value: like `==`, but −0.0 differs from 0.0 and NaN
    /// equals NaN (the bits of a real are what gets stored).
    func isIdentical(to other: StoredValue) -> Bool {
        if case .real(let a) = self, case .real(let b) = other { return a.bitPattern == b.bitPattern }
        return self == other
    }

    /// A short name of the storage class, as SQLite's `typeof()` prints it.
    var storageClassName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}

extension StoredValue: CustomStringConvertible {
    /// A literal-like rendering used in debug logs and error messages.
    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "X'<\(value.count) bytes>'"
        }
    }
}
