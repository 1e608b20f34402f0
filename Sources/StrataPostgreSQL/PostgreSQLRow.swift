import CLibPQ
import Foundation

/// One row of a ``PostgreSQLResult``, read by column index or by exact column name.
///
/// Every reader returns nil for SQL `NULL` and throws `PostgreSQLError.Kind.conversion` when the
/// column does not exist or its text is not of the type asked for; nothing traps. Values arrive
/// in PostgreSQL's text output format: `int2`/`int4`/`int8` as decimal, `float8` as its shortest
/// exact form (`extra_float_digits` 1, the default since PostgreSQL 12), `bool` as `t`/`f`,
/// `bytea` as `\x` and hex (`bytea_output` hex, the default), `numeric`, `timestamptz` and the
/// rest as the server prints them. A value type, `Sendable`.
public struct PostgreSQLRow: Sendable {
    /// The result the row belongs to.
    public let result: PostgreSQLResult
    /// The row's position in the result.
    public let index: Int

    /// Throws unless `column` and the row exist.
    private func checkBounds(_ column: Int) throws {
        guard column >= 0, column < result.columnNames.count, index >= 0, index < result.count else {
            throw PostgreSQLError(
                kind: .conversion, message: "no column \(column) in row \(index) (the result has \(result.columnNames.count) columns, \(result.count) rows)",
                activity: "reading a row")
        }
    }

    /// `body` on the column's bytes (valid only inside it), or nil for NULL.
    private func withBytes<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T? {
        try checkBounds(column)
        let row = Int32(index)
        let field = Int32(column)
        if PQgetisnull(result.handle, row, field) == 1 { return nil }
        guard let value = PQgetvalue(result.handle, row, field) else { return nil }
        let length = Int(PQgetlength(result.handle, row, field))
        return try value.withMemoryRebound(to: UInt8.self, capacity: length) { try body(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// The column's text, or nil for NULL.
    private func raw(_ column: Int) throws -> String? {
        // The connection asks for client_encoding UTF8, so text values are UTF-8.
        try withBytes(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// The decimal integer `bytes` spell (an optional `-`, then digits), or nil for anything
    /// else, including a value outside `Int64`. No text is made: reading many rows is mostly this.
    private static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var position = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { position = 1 }
        guard position < bytes.count else { return nil }
        var value: Int64 = 0
        while position < bytes.count {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times10.subtractingReportingOverflow(Int64(digit)) : times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            position += 1
        }
        return value
    }

    private func column(named name: String) throws -> Int {
        guard let column = result.columnIndex(named: name) else {
            throw PostgreSQLError(
                kind: .conversion, message: "no column named \"\(name)\" (columns: \(result.columnNames.joined(separator: ", ")))", activity: "reading a row")
        }
        return column
    }

    private func converted<T>(_ column: Int, as type: String, _ convert: (String) -> T?) throws -> T? {
        guard let text = try raw(column) else { return nil }
        guard let value = convert(text) else {
            throw PostgreSQLError(
                kind: .conversion, message: "column \"\(result.columnNames[column])\" holds \"\(text.prefix(40))\", not a \(type)", activity: "reading a row")
        }
        return value
    }

    /// `body` on the column's bytes as the server sent them (its text output; the buffer is
    /// valid only inside `body`), or nil for NULL: reads a value without making a `String`. Any
    /// thread (a result is read-only).
    public func withUnsafeBytes<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T? {
        try withBytes(column, body)
    }

    /// Whether the column is NULL.
    public func isNull(_ column: Int) throws -> Bool {
        try checkBounds(column)
        return PQgetisnull(result.handle, Int32(index), Int32(column)) == 1
    }
    /// The column's text as the server printed it (any type), or nil for NULL.
    public func string(_ column: Int) throws -> String? { try raw(column) }
    /// The column as a 64-bit integer (`int2`, `int4`, `int8`, or text holding one), or nil.
    public func int64(_ column: Int) throws -> Int64? {
        switch try withBytes(column, Self.parseInteger) {
        case nil: return nil  // NULL
        case let parsed??: return parsed
        case .some(nil): return try converted(column, as: "64-bit integer") { Int64($0) }  // `+1`, spaces: as before
        }
    }
    /// The column as a double (`float4`, `float8`, integers, `Infinity`, `NaN`), or nil.
    public func double(_ column: Int) throws -> Double? {
        switch try withBytes(column, Self.parseShortDecimal) {
        case nil: return nil  // NULL
        case let parsed??: return parsed
        case .some(nil): return try converted(column, as: "double") { Double($0) }  // long, or not a plain decimal
        }
    }

    /// Exact powers of ten a double holds: 10⁰ … 10²².
    private static let exactPowersOfTen: [Double] = (0...22).reduce(into: []) { powers, exponent in powers.append(exponent == 0 ? 1 : powers[exponent - 1] * 10) }

    /// The double a plain decimal spells (`-12.5`, `600`, `1.5e-3`) when its digits make an
    /// integer of at most 2⁵³ and its power of ten is within ±22, or nil for anything else. Both
    /// are then exact doubles, so one multiplication or division rounds as a full parse would
    /// (Clinger's fast path); no text is made. Most stored numbers are short.
    static func parseShortDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var position = 0
        let count = bytes.count
        let negative = count > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        var mantissa: UInt64 = 0
        var exponent = 0
        var digits = 0
        var seenPoint = false
        while position < count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else if case let digit = byte &- UInt8(ascii: "0"), digit < 10 {
                digits += 1
                guard mantissa < 100_000_000_000_000_000 else { return nil }  // 18 digits: no overflow
                mantissa = mantissa * 10 + UInt64(digit)
                if seenPoint { exponent -= 1 }
            } else {
                break
            }
            position += 1
        }
        guard digits > 0 else { return nil }
        if position < count {
            guard bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") else { return nil }
            position += 1
            var sign = 1
            if position < count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
                if bytes[position] == UInt8(ascii: "-") { sign = -1 }
                position += 1
            }
            var power = 0
            var powerDigits = 0
            while position < count, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
                guard powerDigits < 4 else { return nil }
                power = power * 10 + Int(digit)
                powerDigits += 1
                position += 1
            }
            guard powerDigits > 0, position == count else { return nil }
            exponent += sign * power
        }
        guard mantissa <= 1 << 53, (-22...22).contains(exponent) else { return nil }
        var value = Double(mantissa)
        if exponent < 0 { value /= exactPowersOfTen[-exponent] } else { value *= exactPowersOfTen[exponent] }
        return negative ? -value : value
    }
    /// The column as a boolean (`bool`: `t` or `f`), or nil.
    public func bool(_ column: Int) throws -> Bool? {
        // The server prints `t` or `f`: read from the byte, without making a String.
        let byte = try withBytes(column) { $0.count == 1 ? $0[0] : nil }
        switch byte {
        case nil: return nil  // NULL
        case UInt8(ascii: "t")?: return true
        case UInt8(ascii: "f")?: return false
        default: break
        }
        return try converted(column, as: "boolean") {
            switch $0 {
            case "t", "true": return true
            case "f", "false": return false
            default: return nil
            }
        }
    }
    /// The column as a UUID (`uuid`), or nil.
    public func uuid(_ column: Int) throws -> UUID? { try converted(column, as: "UUID") { UUID(uuidString: $0) } }
    /// The bytes of a `bytea` column, decoded from its text form by libpq's `PQunescapeBytea`, or nil.
    public func data(_ column: Int) throws -> Data? { try converted(column, as: "bytea value", Self.unescapeBytea) }

    /// Whether the column called `name` is NULL.
    public func isNull(_ name: String) throws -> Bool { try isNull(column(named: name)) }
    /// The text of the column called `name`, or nil for NULL.
    public func string(_ name: String) throws -> String? { try string(column(named: name)) }
    /// The column called `name` as a 64-bit integer, or nil.
    public func int64(_ name: String) throws -> Int64? { try int64(column(named: name)) }
    /// The column called `name` as a double, or nil.
    public func double(_ name: String) throws -> Double? { try double(column(named: name)) }
    /// The column called `name` as a boolean, or nil.
    public func bool(_ name: String) throws -> Bool? { try bool(column(named: name)) }
    /// The column called `name` as a UUID, or nil.
    public func uuid(_ name: String) throws -> UUID? { try uuid(column(named: name)) }
    /// The bytes of the `bytea` column called `name`, or nil.
    public func data(_ name: String) throws -> Data? { try data(column(named: name)) }

    /// The column as the value its type maps to: integers as `.int64`, `float4`/`float8` as
    /// `.double`, `bool`, `bytea` as `.bytes`, `uuid`, NULL as `.null`, any other type as `.text`.
    public func value(_ column: Int) throws -> PostgreSQLValue {
        guard try raw(column) != nil else { return .null }
        switch result.columnType(column) {
        case PostgreSQLTypeOID.int2, PostgreSQLTypeOID.int4, PostgreSQLTypeOID.int8, PostgreSQLTypeOID.oid: return try int64(column).map(PostgreSQLValue.int64) ?? .null
        case PostgreSQLTypeOID.float4, PostgreSQLTypeOID.float8: return try double(column).map(PostgreSQLValue.double) ?? .null
        case PostgreSQLTypeOID.bool: return try bool(column).map(PostgreSQLValue.bool) ?? .null
        case PostgreSQLTypeOID.bytea: return try data(column).map(PostgreSQLValue.bytes) ?? .null
        case PostgreSQLTypeOID.uuid: return try uuid(column).map(PostgreSQLValue.uuid) ?? .null
        default: return try string(column).map(PostgreSQLValue.text) ?? .null
        }
    }

    /// The column called `name` as the value its type maps to.
    public func value(_ name: String) throws -> PostgreSQLValue { try value(column(named: name)) }

    /// Decodes `bytea` text output (hex `\x…` or the older escape format); nil when malformed.
    static func unescapeBytea(_ text: String) -> Data? {
        var length = 0
        guard let bytes = PQunescapeBytea(text, &length) else { return nil }
        defer { PQfreemem(bytes) }
        return Data(bytes: bytes, count: length)
    }
}
