import Foundation

/// Why a value cannot be stored in an attribute.
struct ValueProblem: Error {
    var code: Int
    var message: String
}

/// Converts between the Swift values of an attribute and their stored form.
///
/// The stored form is what SQLite keeps (see ``AttributeType``); objects hold their values in
/// that form, so saving binds them without conversion and fetching fills objects without
/// conversion. Conversions to Swift types happen only when a value is read.
enum AttributeCodec {
    // MARK: Doubles

    /// NaN is stored as the text 'NaN' (SQLite turns a bound NaN into NULL); every other double,
    /// −0.0 and the infinities included, as a REAL in a column without affinity.
    static func storedDouble(_ double: Double) -> StoredValue {
        double.isNaN ? .text("NaN") : .real(double)
    }

    static func doubleFromStored(_ stored: StoredValue) -> Double? {
        switch stored {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        case .text(let text): return text == "NaN" ? .nan : Double(text)
        default: return nil
        }
    }

    // MARK: Numbers from any Swift value

    enum IntegerConversion {
        case exact(Int64)
        case tooLarge
        case tooSmall
        case fractional
    }

    /// Converts any integer, floating-point, decimal or NSNumber value to an `Int64` when it fits.
    static func integerValue(_ value: Any) -> IntegerConversion? {
        switch value {
        case let v as Int: return .exact(Int64(v))
        case let v as Int64: return .exact(v)
        case let v as Int32: return .exact(Int64(v))
        case let v as Int16: return .exact(Int64(v))
        case let v as Int8: return .exact(Int64(v))
        case let v as UInt: return Int64(exactly: v).map { .exact($0) } ?? .tooLarge
        case let v as UInt64: return Int64(exactly: v).map { .exact($0) } ?? .tooLarge
        case let v as UInt32: return .exact(Int64(v))
        case let v as UInt16: return .exact(Int64(v))
        case let v as UInt8: return .exact(Int64(v))
        case let v as Double: return integerFromDouble(v)
        case let v as Float: return integerFromDouble(Double(v))
        case let v as Decimal:
            if v.isNaN { return .fractional }
            var rounded = v
            var source = v
            NSDecimalRound(&rounded, &source, 0, .plain)
            if rounded != v { return .fractional }
            if v > Decimal(Int64.max) { return .tooLarge }
            if v < Decimal(Int64.min) { return .tooSmall }
            return .exact(NSDecimalNumber(decimal: v).int64Value)
        case let v as NSNumber:
            let kind = String(cString: v.objCType)
            if kind == "d" || kind == "f" { return integerFromDouble(v.doubleValue) }
            return .exact(v.int64Value)
        default: return nil
        }
    }

    private static func integerFromDouble(_ v: Double) -> IntegerConversion {
        if v.isNaN { return .fractional }
        if v.rounded(.towardZero) != v { return v.isInfinite ? (v > 0 ? .tooLarge : .tooSmall) : .fractional }
        if v >= 9_223_372_036_854_775_808.0 { return .tooLarge }
        if v < -9_223_372_036_854_775_808.0 { return .tooSmall }
        return .exact(Int64(v))
    }

    /// Converts any numeric value to a `Double`.
    static func doubleValue(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Int: return Double(v)
        case let v as Int64: return Double(v)
        case let v as Int32: return Double(v)
        case let v as Int16: return Double(v)
        case let v as Int8: return Double(v)
        case let v as UInt: return Double(v)
        case let v as UInt64: return Double(v)
        case let v as UInt32: return Double(v)
        case let v as UInt16: return Double(v)
        case let v as UInt8: return Double(v)
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    /// Converts any numeric value to a `Decimal` (doubles through their shortest description,
    /// so 0.1 becomes exactly 0.1).
    static func decimalValue(_ value: Any) -> Decimal? {
        switch value {
        case let v as Decimal: return v
        case let v as Double: return v.isFinite ? Decimal(string: String(v), locale: DecimalText.posix) : nil
        case let v as Float: return v.isFinite ? Decimal(string: String(v), locale: DecimalText.posix) : nil
        default:
            if case .some(.exact(let int)) = integerValue(value) { return Decimal(int) }
            if let v = value as? NSNumber { return v.decimalValue }
            return nil
        }
    }

    // MARK: Helpers

    /// Unwraps `Optional<Any>` nested inside `Any`, so `Optional<String>.none` passed as `Any`
    /// counts as nil.
    @inline(__always)
    static func unwrapOptional(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? OptionalUnwrapping { return optional.unwrappedValue }
        return value
    }

    static func uuidData(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }

    static func uuid(from data: Data) -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { target in
            data.withUnsafeBytes { source in target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(16))) }
        }
        return UUID(uuid: bytes)
    }
}

/// Lets `unwrapOptional` see through an `Optional` boxed in `Any` without reflection.
protocol OptionalUnwrapping {
    var unwrappedValue: Any? { get }
}

extension Optional: OptionalUnwrapping {
    var unwrappedValue: Any? {
        switch self {
        case .some(let wrapped): return AttributeCodec.unwrapOptional(wrapped)
        case .none: return nil
        }
    }
}

/// The canonical text of a `Decimal`: plain digits with a `.` separator, no exponent, so equal
/// decimals have equal text and the `STRATA_DECIMAL` collation can compare them numerically.
enum DecimalText {
    static let posix = Locale(identifier: "en_US_POSIX")

    static func canonical(_ decimal: Decimal) -> String {
        if decimal.isNaN { return "NaN" }
        var value = decimal
        var source = decimal
        // Normalise trailing zeros: 1.50 and 1.5 get the same text.
        NSDecimalRound(&value, &source, Int(Int16.max), .plain)
        return value.description
    }
}
