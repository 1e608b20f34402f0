import Foundation

/// Quoting of SQL identifiers (table, column, channel names) for PostgreSQL.
///
/// A quoted identifier (`"order"`) may be any text, reserved words (`order`, `group`, `user`)
/// included, and keeps its case; a double quote inside is written twice (PostgreSQL's "Lexical
/// Structure: Identifiers and Key Words"). Pure functions: usable from any thread.
public enum PostgreSQLIdentifier {
    /// The longest identifier PostgreSQL keeps, in bytes (`NAMEDATALEN` − 1): it silently cuts
    /// longer ones, so two long names could become one.
    public static let maximumLength = 63

    /// `name` in double quotes, inner double quotes doubled: `order` → `"order"`, `a"b` → `"a""b"`.
    ///
    /// Throws `PostgreSQLError` with kind `invalidArgument` for an empty name, one holding a NUL
    /// character, or one longer than ``maximumLength`` UTF-8 bytes.
    public static func quoted(_ name: String) throws -> String {
        let length = name.utf8.count
        guard length > 0, length <= maximumLength, !name.utf8.contains(0) else {
            throw PostgreSQLError(
                kind: .invalidArgument,
                message: "\"\(name.prefix(80))\" cannot be a PostgreSQL identifier: it must be 1 to \(maximumLength) UTF-8 bytes without NUL (it has \(length))",
                activity: "quoting an identifier")
        }
        // Most names hold no double quote: they are only wrapped (this runs for every fetch).
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
