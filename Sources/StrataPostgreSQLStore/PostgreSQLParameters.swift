import StrataPostgreSQL

/// The parameters of a statement being written: each value added gets the next `$n`, so values
/// never appear in SQL text. A value type: a compiler copies it before compiling a part it may
/// drop, and keeps the copy only when the part compiled.
struct PostgreSQLParameters: Sendable {
    /// The values of `$1`, `$2`, … in order.
    private(set) var values: [PostgreSQLValue] = []

    /// Appends `value` and returns its placeholder (`$1` for the first). O(1) amortized.
    mutating func add(_ value: PostgreSQLValue) -> String {
        values.append(value)
        return "$\(values.count)"
    }
}

/// Small helpers for SQL text that holds no values: quoting of aliases, and the spellings of
/// constants the compilers write.
enum PostgreSQLText {
    /// `name` double-quoted, inner double quotes doubled (an alias; table and column names come
    /// quoted from ``PostgreSQLSchema``).
    static func quoted(_ name: String) -> String {
        // Most names hold no double quote: they are only wrapped (this runs for every fetch).
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `alias.column` with both quoted (`column` unquoted, as ``PostgreSQLTable`` names it).
    static func column(_ column: String, of alias: String) -> String {
        alias + "." + quoted(column)
    }
}
