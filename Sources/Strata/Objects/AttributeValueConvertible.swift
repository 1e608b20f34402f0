import Foundation

/// A Swift type that a typed ``Attribute`` property can have.
///
/// Strata provides conformances for the attribute types (`Int16`, `Int32`, `Int64`, `Int`,
/// `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`) and for
/// `Optional` of any of them. For `transformable` attributes, conform your own type.
public protocol AttributeValueConvertible {
    /// Converts a value read with `value(forKey:)` (or `nil`) to this type; `nil` when it cannot.
    static func fromAttributeValue(_ value: Any?) -> Self?
    /// The value passed to `setValue(_:forKey:)`.
    var attributeValue: Any? { get }
    /// The value a non-optional property reads while the attribute is nil (a required attribute
    /// of a new object that was given no value and no default).
    static var absentAttributeValue: Self { get }
}

extension AttributeValueConvertible {
    public var attributeValue: Any? { self }
    public static func fromAttributeValue(_ value: Any?) -> Self? { value as? Self }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Wrapped?? {
        guard let value = AttributeCodec.unwrapOptional(value) else { return .some(nil) }
        return Wrapped.fromAttributeValue(value).map { .some($0) }
    }
    public var attributeValue: Any? { self.flatMap { $0.attributeValue } }
    public static var absentAttributeValue: Wrapped? { nil }
}

private func convertInteger<T: FixedWidthInteger>(_ value: Any?) -> T? {
    guard let value else { return nil }
    if let exact = value as? T { return exact }
    if case .some(.exact(let int)) = AttributeCodec.integerValue(value) { return T(exactly: int) }
    return nil
}

extension Int: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Int? { convertInteger(value) }
    public static var absentAttributeValue: Int { 0 }
}
extension Int16: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Int16? { convertInteger(value) }
    public static var absentAttributeValue: Int16 { 0 }
}
extension Int32: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Int32? { convertInteger(value) }
    public static var absentAttributeValue: Int32 { 0 }
}
extension Int64: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Int64? { convertInteger(value) }
    public static var absentAttributeValue: Int64 { 0 }
}
extension Double: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Double? { value.flatMap(AttributeCodec.doubleValue) }
    public static var absentAttributeValue: Double { 0 }
}
extension Float: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Float? { value.flatMap(AttributeCodec.doubleValue).map(Float.init) }
    public static var absentAttributeValue: Float { 0 }
}
extension Decimal: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: Any?) -> Decimal? { value.flatMap(AttributeCodec.decimalValue) }
    public static var absentAttributeValue: Decimal { 0 }
}
extension String: AttributeValueConvertible {
    public static var absentAttributeValue: String { "" }
}
extension Bool: AttributeValueConvertible {
    public static var absentAttributeValue: Bool { false }
}
extension Date: AttributeValueConvertible {
    public static var absentAttributeValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
}
extension Data: AttributeValueConvertible {
    public static var absentAttributeValue: Data { Data() }
}
extension UUID: AttributeValueConvertible {
    public static var absentAttributeValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}
extension URL: AttributeValueConvertible {
    public static var absentAttributeValue: URL { URL(fileURLWithPath: "/") }
}
