import Foundation

/// Declares a typed property of a ``ManagedObject`` subclass backed by the attribute `key`.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Attribute("name") var name: String
///     @Attribute("score") var score: Double?
/// }
/// ```
/// Reads and writes go through `value(forKey:)` / `setValue(_:forKey:)`, so they fire faults,
/// track changes and record problems the same way. Use it on the object's context's queue.
@propertyWrapper
public struct Attribute<Value: AttributeValueConvertible> {
    /// The attribute's name in the model.
    public let key: String

    /// Binds the property to the attribute named `key`.
    public init(_ key: String) { self.key = key }

    /// Not available: the value lives in the enclosing object, reached through the enclosing-self
    /// subscript below. Declaring it unavailable makes any direct use a compile-time error.
    @available(*, unavailable, message: "@Attribute can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable: wrappedValue is unavailable") }
        // swiftlint:disable:next unused_setter_value
        set { preconditionFailure("unreachable: wrappedValue is unavailable") }
    }

    /// Reads and writes the attribute on the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get {
            let key = object[keyPath: storageKeyPath].key
            return Value.fromAttributeValue(object.value(forKey: key)) ?? Value.absentAttributeValue
        }
        set {
            let key = object[keyPath: storageKeyPath].key
            object.setValue(newValue.attributeValue, forKey: key)
        }
    }
}
