import Foundation

/// A statement parameter, or a column value read with its column's type.
///
/// Parameters go to the server as `PQexecParams` sends them: text is sent in text format with no
/// type (the server infers it from where the `$n` stands, so a string fills a `uuid`, `numeric` or
/// `timestamptz` column as well as a `text` one); integers as `int8`, doubles as `float8`, booleans
/// as `bool` and UUIDs as `uuid`, in text format; bytes as `bytea` in binary format. A value type,
/// `Sendable`.
public enum PostgreSQLValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// Text (PostgreSQL text cannot hold U+0000: such a string is refused with
    /// `PostgreSQLError.Kind.invalidArgument`).
    case text(String)
    /// A 64-bit integer (`int8`).
    case int64(Int64)
    /// A double (`float8`); infinities and NaN included.
    case double(Double)
    /// A boolean (`bool`).
    case bool(Bool)
    /// Bytes (`bytea`).
    case bytes(Data)
    /// A UUID (`uuid`).
    case uuid(UUID)
}

extension PostgreSQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    /// A `.text` parameter.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An `.int64` parameter.
    public init(integerLiteral value: Int64) { self = .int64(value) }
    /// A `.double` parameter.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A `.bool` parameter.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Type OIDs of the built-in types Strata sends or reads (PostgreSQL's `pg_type.dat`, stable
/// across versions).
enum PostgreSQLTypeOID {
    static let unknown: UInt32 = 0
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let oid: UInt32 = 26
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let uuid: UInt32 = 2950
}

/// One parameter as `PQexecParams` takes it: its type OID, format (0 text, 1 binary) and bytes
/// (NUL-terminated for text; nil for `NULL`).
struct EncodedParameter {
    let type: UInt32
    let format: Int32
    let bytes: [UInt8]?
}

extension PostgreSQLValue {
    /// The value as libpq sends it. Throws `invalidArgument` for text holding a NUL character
    /// (libpq would cut it there, and PostgreSQL text cannot hold one).
    func encoded(position: Int, sql: String) throws -> EncodedParameter {
        func text(_ string: String, type: UInt32) throws -> EncodedParameter {
            var bytes = Array(string.utf8)
            guard !bytes.contains(0) else {
                throw PostgreSQLError(
                    kind: .invalidArgument, message: "parameter $\(position) holds a NUL character, which PostgreSQL text cannot store",
                    activity: "sending statement parameters", sql: sql)
            }
            bytes.append(0)
            return EncodedParameter(type: type, format: 0, bytes: bytes)
        }
        switch self {
        case .null: return EncodedParameter(type: PostgreSQLTypeOID.unknown, format: 0, bytes: nil)
        case .text(let value): return try text(value, type: PostgreSQLTypeOID.unknown)
        case .int64(let value): return try text(String(value), type: PostgreSQLTypeOID.int8)
        case .double(let value): return try text(Self.floatText(value), type: PostgreSQLTypeOID.float8)
        case .bool(let value): return try text(value ? "t" : "f", type: PostgreSQLTypeOID.bool)
        case .uuid(let value): return try text(value.uuidString, type: PostgreSQLTypeOID.uuid)
        case .bytes(let value): return EncodedParameter(type: PostgreSQLTypeOID.bytea, format: 1, bytes: Array(value))
        }
    }

    /// A double in the text `float8in` reads back to the same bits: Swift's shortest round-trip
    /// form, with PostgreSQL's spellings of the infinities and NaN.
    static func floatText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return String(value)
    }
}

extension PostgreSQLValue: CustomStringConvertible {
    /// A literal-like rendering for logs and test failures.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .int64(let value): return String(value)
        case .double(let value): return Self.floatText(value)
        case .bool(let value): return value ? "true" : "false"
        case .bytes(let value): return "bytea(<\(value.count) bytes>)"
        case .uuid(let value): return "uuid '\(value.uuidString.lowercased())'"
        }
    }
}
