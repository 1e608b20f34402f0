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

    /// Reads and writes the attribute on the enclosing object. Inlinable so that the key-path
    /// read of the wrapper's key compiles to a field access in the subclass's module.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        // Always inlined into the caller, where the key paths are constants: the read of the
        // wrapper's key then compiles to a field load. Out of line, it went through the runtime's
        // generic key-path projection on every write (a sixth of an insert's time).
        @inline(__always) get { read(object[keyPath: storageKeyPath].key, of: object, wrapped: wrappedKeyPath) }
        @inline(__always) set { write(newValue, object[keyPath: storageKeyPath].key, of: object) }
    }

    /// The typed read: the stored value converted without boxing it in `Any` (inlined and
    /// specialized in the subclass's module), or the general path below. `wrapped` is the
    /// property's own key path, which a key-path probe records (`Objects/KeyPathKeys.swift`).
    @inlinable @inline(__always)
    static func read(_ key: String, of object: ManagedObject, wrapped: AnyKeyPath) -> Value {
        if let (stored, type) = object._storedAttribute(forKey: key), let value = Value._fromStored(stored, type: type) {
            return value
        }
        return readThroughKVC(key, of: object, wrapped: wrapped)
    }

    @usableFromInline
    static func readThroughKVC(_ key: String, of object: ManagedObject, wrapped: AnyKeyPath) -> Value {
        object.recordProbedKeyPath(wrapped)
        let raw = object.value(forKey: key)
        if let value = Value.fromAttributeValue(raw) { return value }
        if let raw {
            object.record(
                StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "'\(object.entity.name).\(key)' holds a \(type(of: raw)) value, which the property's type \(Value.self) cannot represent",
                    entityName: object.entity.name, key: key, objectID: object.objectID))
        }
        return Value.absentAttributeValue
    }

    /// The typed write: the stored form set without boxing it in `Any` (inlined and specialized
    /// in the subclass's module), or `setValue(_:forKey:)`.
    @inlinable @inline(__always)
    static func write(_ newValue: Value, _ key: String, of object: ManagedObject) {
        if let (slot, type) = object._storedAttributeSlot(forKey: key), let stored = newValue._toStored(type: type) {
            object._setStoredAttribute(stored, slot: slot, forKey: key)
            return
        }
        object.setValue(newValue.attributeValue, forKey: key)
    }
}
