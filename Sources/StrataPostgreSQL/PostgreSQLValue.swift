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

/// Statement parameters as `PQexecParams` and `PQexecPrepared` take them: every value's bytes
/// in one buffer (text NUL-terminated), with each parameter's type OID, format (0 text, 1
/// binary), length and offset in the buffer (nil for `NULL`): one allocation for the bytes
/// however many parameters there are.
struct EncodedParameters {
    private(set) var bytes: [UInt8] = []
    private(set) var offsets: [Int?] = []
    private(set) var types: [UInt32] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []

    /// Encodes `parameters` for the statement `sql` (named in errors). Throws `invalidArgument`
    /// for text holding a NUL character (libpq would cut it there, and PostgreSQL text cannot
    /// hold one).
    init(_ parameters: [PostgreSQLValue], sql: String) throws {
        offsets.reserveCapacity(parameters.count)
        types.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        for (index, parameter) in parameters.enumerated() {
            try append(parameter, position: index + 1, sql: sql)
        }
        // An empty `bytea` alone would leave no buffer, and a NULL pointer means SQL NULL.
        if bytes.isEmpty { bytes.append(0) }
    }

    private mutating func append(_ value: PostgreSQLValue, position: Int, sql: String) throws {
        switch value {
        case .null:
            offsets.append(nil)
            types.append(PostgreSQLTypeOID.unknown)
            lengths.append(0)
            formats.append(0)
        case .text(let text): try appendText(text, type: PostgreSQLTypeOID.unknown, position: position, sql: sql)
        case .int64(let number): try appendText(String(number), type: PostgreSQLTypeOID.int8, position: position, sql: sql)
        case .double(let number): try appendText(PostgreSQLValue.floatText(number), type: PostgreSQLTypeOID.float8, position: position, sql: sql)
        case .bool(let flag): try appendText(flag ? "t" : "f", type: PostgreSQLTypeOID.bool, position: position, sql: sql)
        case .uuid(let uuid): try appendText(uuid.uuidString, type: PostgreSQLTypeOID.uuid, position: position, sql: sql)
        case .bytes(let data):
            offsets.append(bytes.count)
            types.append(PostgreSQLTypeOID.bytea)
            lengths.append(Int32(clamping: data.count))
            formats.append(1)
            bytes.append(contentsOf: data)
        }
    }

    private mutating func appendText(_ text: String, type: UInt32, position: Int, sql: String) throws {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        guard !bytes[start...].contains(0) else {
            throw PostgreSQLError(
                kind: .invalidArgument, message: "parameter $\(position) holds a NUL character, which PostgreSQL text cannot store",
                activity: "sending statement parameters", sql: sql)
        }
        bytes.append(0)
        offsets.append(start)
        types.append(type)
        lengths.append(Int32(clamping: bytes.count - start))
        formats.append(0)
    }

    /// The number of parameters.
    var count: Int32 { Int32(clamping: offsets.count) }

    /// Calls `body` with libpq's array of value pointers (NULL for a `NULL` parameter), valid
    /// only during the call.
    func withValuePointers<R>(_ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) }
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { offset in base.map { $0 + offset } } }
            return body(values)
        }
    }
}

extension PostgreSQLValue {
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
