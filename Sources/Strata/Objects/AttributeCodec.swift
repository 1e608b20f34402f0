import Foundation
import StrataSQLite

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
    /// The stored form of `value` for `attribute`, or why it cannot be stored.
    /// Integer range checks for `integer16`/`integer32` happen at save, not here: the value is
    /// kept as is so the save can report it, never wrapped.
    static func encode(_ value: Any?, for attribute: AttributeDescription) -> Result<SQLiteValue, ValueProblem> {
        guard let value = unwrapOptional(value) else { return .success(.null) }
        let type = attribute.type
        func wrongType() -> Result<SQLiteValue, ValueProblem> {
            .failure(
                ValueProblem(
                    code: StrataError.Code.managedObjectValidation,
                    message: "A value of type \(Swift.type(of: value)) cannot be stored in \(entityName(attribute)).\(attribute.name), an attribute of type \(type.rawValue)"))
        }
        switch type {
        case .integer16, .integer32, .integer64:
            switch integerValue(value) {
            case .some(.exact(let int)): return .success(.integer(int))
            case .some(.tooLarge):
                return .failure(ValueProblem(code: StrataError.Code.validationNumberTooLarge, message: "\(value) is too large for \(entityName(attribute)).\(attribute.name) (\(type.rawValue))"))
            case .some(.tooSmall):
                return .failure(ValueProblem(code: StrataError.Code.validationNumberTooSmall, message: "\(value) is too small for \(entityName(attribute)).\(attribute.name) (\(type.rawValue))"))
            case .some(.fractional):
                return .failure(
                    ValueProblem(
                        code: StrataError.Code.managedObjectValidation, message: "\(value) has a fractional part and cannot be stored in \(entityName(attribute)).\(attribute.name) (\(type.rawValue))")
                )
            case .none: return wrongType()
            }
        case .double, .float:
            guard var double = doubleValue(value) else { return wrongType() }
            if type == .float { double = Double(Float(double)) }
            return .success(storedDouble(double))
        case .decimal:
            guard let decimal = decimalValue(value) else { return wrongType() }
            return .success(.text(DecimalText.canonical(decimal)))
        case .string:
            if let string = value as? String { return .success(.text(string)) }
            if let substring = value as? Substring { return .success(.text(String(substring))) }
            if let string = value as? NSString { return .success(.text(string as String)) }
            return wrongType()
        case .boolean:
            if let bool = value as? Bool { return .success(.integer(bool ? 1 : 0)) }
            if case .some(.exact(let int)) = integerValue(value), int == 0 || int == 1 { return .success(.integer(int)) }
            return wrongType()
        case .date:
            if let date = value as? Date { return .success(.real(date.timeIntervalSinceReferenceDate)) }
            if let date = value as? NSDate { return .success(.real(date.timeIntervalSinceReferenceDate)) }
            return wrongType()
        case .binaryData:
            if let data = value as? Data { return .success(.blob(data)) }
            if let bytes = value as? [UInt8] { return .success(.blob(Data(bytes))) }
            if let data = value as? NSData { return .success(.blob(data as Data)) }
            return wrongType()
        case .uuid:
            if let uuid = value as? UUID { return .success(.blob(uuidData(uuid))) }
            if let uuid = value as? NSUUID { return .success(.blob(uuidData(uuid as UUID))) }
            return wrongType()
        case .uri:
            if let url = value as? URL { return .success(.text(url.absoluteString)) }
            return wrongType()
        case .transformable:
            let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            guard let transformer = AttributeValueTransformers.transformer(forName: name) else {
                return .failure(
                    ValueProblem(
                        code: StrataError.Code.managedObjectValidation, message: "No value transformer is registered under the name '\(name)' used by \(entityName(attribute)).\(attribute.name)"))
            }
            do {
                return .success(.blob(try transformer.transformedValue(value)))
            } catch let error as StrataError {
                return .failure(ValueProblem(code: error.code, message: "\(entityName(attribute)).\(attribute.name): \(error.message)"))
            } catch {
                return .failure(ValueProblem(code: StrataError.Code.managedObjectValidation, message: "\(entityName(attribute)).\(attribute.name): the transformer '\(name)' failed: \(error)"))
            }
        case .undefined, .objectID:
            return wrongType()
        }
    }

    /// The Swift value of a stored value. Values that do not decode (a damaged row written by
    /// another program) come back as `nil` rather than trapping.
    static func decode(_ stored: SQLiteValue, for attribute: AttributeDescription) -> Any? {
        switch (attribute.type, stored) {
        case (_, .null): return nil
        case (.integer16, .integer(let v)): return Int16(truncatingIfNeeded: v)
        case (.integer32, .integer(let v)): return Int32(truncatingIfNeeded: v)
        case (.integer64, .integer(let v)): return v
        case (.integer16, .real(let v)): return Int16(exactly: v.rounded(.towardZero)) ?? 0
        case (.integer32, .real(let v)): return Int32(exactly: v.rounded(.towardZero)) ?? 0
        case (.integer64, .real(let v)): return Int64(exactly: v.rounded(.towardZero)) ?? 0
        case (.double, _): return doubleFromStored(stored)
        case (.float, _): return doubleFromStored(stored).map { Float($0) }
        case (.decimal, .text(let text)): return Decimal(string: text, locale: DecimalText.posix)
        case (.decimal, .integer(let v)): return Decimal(v)
        case (.decimal, .real(let v)): return Decimal(v)
        case (.string, .text(let text)): return text
        case (.string, .integer(let v)): return String(v)
        case (.string, .real(let v)): return String(v)
        case (.boolean, .integer(let v)): return v != 0
        case (.date, .real(let v)): return Date(timeIntervalSinceReferenceDate: v)
        case (.date, .integer(let v)): return Date(timeIntervalSinceReferenceDate: Double(v))
        case (.binaryData, .blob(let data)): return data
        case (.binaryData, .text(let text)): return Data(text.utf8)
        case (.uuid, .blob(let data)) where data.count == 16: return uuid(from: data)
        case (.uuid, .text(let text)): return UUID(uuidString: text)
        case (.uri, .text(let text)): return URL(string: text)
        case (.transformable, .blob(let data)):
            let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            return try? AttributeValueTransformers.transformer(forName: name)?.reverseTransformedValue(data)
        default: return nil
        }
    }

    // MARK: Doubles

    /// NaN is stored as the text 'NaN' (SQLite turns a bound NaN into NULL); every other double,
    /// −0.0 and the infinities included, as a REAL in a column without affinity.
    static func storedDouble(_ double: Double) -> SQLiteValue {
        double.isNaN ? .text("NaN") : .real(double)
    }

    static func doubleFromStored(_ stored: SQLiteValue) -> Double? {
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

    private static func entityName(_ attribute: AttributeDescription) -> String {
        attribute.entity?.name ?? "?"
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
