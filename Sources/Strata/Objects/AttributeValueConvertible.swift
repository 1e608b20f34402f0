import Foundation

/// A Swift type that a typed ``Attribute`` property can have.
///
/// Strata provides conformances for the attribute types (`Int16`, `Int32`, `Int64`, `Int`,
/// `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`) and for
/// `Optional` of any of them. For `transformable` attributes, conform your own type.
///
/// Conversions run on the queue of the context whose object is read or written.
public protocol AttributeValueConvertible {
    /// Converts a value read with `value(forKey:)` (or `nil`) to this type; `nil` when it cannot.
    static func fromAttributeValue(_ value: Any?) -> Self?
    /// The value passed to `setValue(_:forKey:)`.
    var attributeValue: Any? { get }
    /// The value a non-optional property reads while the attribute is nil (a required attribute
    /// of a new object that was given no value and no default).
    static var absentAttributeValue: Self { get }

    /// Fast path for Strata's own types: the value from its stored form, without boxing it in
    /// `Any`. Leave the default (nil) in your own conformances.
    static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Self?
    /// Fast path for Strata's own types: the stored form of the value, without boxing it in
    /// `Any`. Leave the default (nil) in your own conformances.
    func _toStored(type: AttributeType) -> StoredAttributeValue?
}

/// A value in the form the store keeps it (opaque outside Strata; see
/// ``AttributeValueConvertible``'s fast-path requirements).
///
/// Made and read by Strata on the queue of the context that reads or writes the value.
public struct StoredAttributeValue {
    let raw: StoredValue
    init(_ raw: StoredValue) { self.raw = raw }
}

extension AttributeValueConvertible {
    public var attributeValue: Any? { self }
    public static func fromAttributeValue(_ value: Any?) -> Self? { value as? Self }
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Self? { nil }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? { nil }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Wrapped?? {
        guard let value = AttributeCodec.unwrapOptional(value) else { return .some(nil) }
        return Wrapped.fromAttributeValue(value).map { .some($0) }
    }
    public var attributeValue: Any? { self.flatMap { $0.attributeValue } }
    public static var absentAttributeValue: Wrapped? { nil }
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Wrapped?? {
        if value.raw.isNull { return .some(nil) }
        return Wrapped._fromStored(value, type: type).map { .some($0) }
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        switch self {
        case .none: return StoredAttributeValue(.null)
        case .some(let wrapped): return wrapped._toStored(type: type)
        }
    }
}

private func convertInteger<T: FixedWidthInteger>(_ value: Any?) -> T? {
    guard let value else { return nil }
    if let exact = value as? T { return exact }
    if case .some(.exact(let int)) = AttributeCodec.integerValue(value) { return T(exactly: int) }
    return nil
}

extension Int: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Int? {
        guard type.isInteger, case .integer(let v) = value.raw else { return nil }
        return Int(exactly: v)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type.isInteger ? StoredAttributeValue(.integer(Int64(self))) : nil
    }
    public static func fromAttributeValue(_ value: Any?) -> Int? { convertInteger(value) }
    public static var absentAttributeValue: Int { 0 }
}
extension Int16: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Int16? {
        guard type.isInteger, case .integer(let v) = value.raw else { return nil }
        return Int16(exactly: v)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type.isInteger ? StoredAttributeValue(.integer(Int64(self))) : nil
    }
    public static func fromAttributeValue(_ value: Any?) -> Int16? { convertInteger(value) }
    public static var absentAttributeValue: Int16 { 0 }
}
extension Int32: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Int32? {
        guard type.isInteger, case .integer(let v) = value.raw else { return nil }
        return Int32(exactly: v)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type.isInteger ? StoredAttributeValue(.integer(Int64(self))) : nil
    }
    public static func fromAttributeValue(_ value: Any?) -> Int32? { convertInteger(value) }
    public static var absentAttributeValue: Int32 { 0 }
}
extension Int64: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Int64? {
        guard type.isInteger, case .integer(let v) = value.raw else { return nil }
        return Int64(exactly: v)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type.isInteger ? StoredAttributeValue(.integer(Int64(self))) : nil
    }
    public static func fromAttributeValue(_ value: Any?) -> Int64? { convertInteger(value) }
    public static var absentAttributeValue: Int64 { 0 }
}
extension Double: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Double? {
        guard type == .double || type == .float else { return nil }
        return AttributeCodec.doubleFromStored(value.raw)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        switch type {
        case .double: return StoredAttributeValue(AttributeCodec.storedDouble(self))
        case .float: return StoredAttributeValue(AttributeCodec.storedDouble(Double(Float(self))))
        default: return nil
        }
    }
    public static func fromAttributeValue(_ value: Any?) -> Double? { value.flatMap(AttributeCodec.doubleValue) }
    public static var absentAttributeValue: Double { 0 }
}
extension Float: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Float? {
        guard type == .double || type == .float else { return nil }
        return AttributeCodec.doubleFromStored(value.raw).map(Float.init)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type == .double || type == .float ? StoredAttributeValue(AttributeCodec.storedDouble(Double(self))) : nil
    }
    public static func fromAttributeValue(_ value: Any?) -> Float? { value.flatMap(AttributeCodec.doubleValue).map(Float.init) }
    public static var absentAttributeValue: Float { 0 }
}
extension Decimal: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Decimal? { value.flatMap(AttributeCodec.decimalValue) }
    public static var absentAttributeValue: Decimal { 0 }
}
extension String: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> String? {
        guard type == .string, case .text(let text) = value.raw else { return nil }
        return text
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type == .string ? StoredAttributeValue(.text(self)) : nil
    }
    public static var absentAttributeValue: String { "" }
}
extension Bool: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Bool? {
        guard type == .boolean, case .integer(let v) = value.raw else { return nil }
        return v != 0
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type == .boolean ? StoredAttributeValue(.integer(self ? 1 : 0)) : nil
    }
    public static var absentAttributeValue: Bool { false }
}
extension Date: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Date? {
        guard type == .date, case .real(let v) = value.raw else { return nil }
        return Date(timeIntervalSinceReferenceDate: v)
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type == .date ? StoredAttributeValue(.real(timeIntervalSinceReferenceDate)) : nil
    }
    public static var absentAttributeValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
}
extension Data: AttributeValueConvertible {
    public static func _fromStored(_ value: StoredAttributeValue, type: AttributeType) -> Data? {
        guard type == .binaryData, case .blob(let data) = value.raw else { return nil }
        return data
    }
    public func _toStored(type: AttributeType) -> StoredAttributeValue? {
        type == .binaryData ? StoredAttributeValue(.blob(self)) : nil
    }
    public static var absentAttributeValue: Data { Data() }
}
extension UUID: AttributeValueConvertible {
    public static var absentAttributeValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}
extension URL: AttributeValueConvertible {
    public static var absentAttributeValue: URL { URL(fileURLWithPath: "/") }
}
