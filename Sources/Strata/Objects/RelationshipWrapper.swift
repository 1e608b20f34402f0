import Foundation

/// Declares a typed property of a ``ManagedObject`` subclass backed by the relationship `key`.
///
/// ```swift
/// final class Employee: ManagedObject {
///     @Relationship("department") var department: Department?     // to-one
/// }
/// final class Department: ManagedObject {
///     @Relationship("employees") var employees: Set<Employee>       // to-many
/// }
/// final class Playlist: ManagedObject {
///     @Relationship("songs") var songs: [Song]                      // ordered to-many
/// }
///
/// ann.department = sales                 // sales.employees now holds ann
/// sales.$employees.add(bo)               // a live MutableRelationshipSet<Employee>
/// playlist.$songs.insert(song, at: 0)    // a live MutableOrderedRelationshipSet<Song>
/// let id = ann.$department               // the department's ManagedObjectID, no I/O
/// ```
///
/// Reads and writes go through `value(forKey:)` / `setValue(_:forKey:)`, so they fire faults,
/// keep inverses in step, track changes and record problems the same way. Assigning a whole
/// collection replaces the relationship's contents (in the given order for an ordered one);
/// for single edits the projected value (`$name`) avoids rebuilding the collection. Use it on
/// the object's context's queue.
@propertyWrapper
public struct Relationship<Value: RelationshipValueConvertible> {
    /// The relationship's name in the model.
    public let key: String

    /// Binds the property to the relationship named `key`.
    public init(_ key: String) { self.key = key }

    /// Not available: the value lives in the enclosing object, reached through the enclosing-self
    /// subscript below. Declaring it unavailable makes any direct use a compile-time error.
    @available(*, unavailable, message: "@Relationship can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable: wrappedValue is unavailable") }
        // swiftlint:disable:next unused_setter_value
        set { preconditionFailure("unreachable: wrappedValue is unavailable") }
    }

    /// Not available directly: see the enclosing-self subscript below.
    @available(*, unavailable, message: "@Relationship can only be used on properties of ManagedObject subclasses")
    public var projectedValue: Value.RelationshipProjection {
        preconditionFailure("unreachable: projectedValue is unavailable")
    }

    /// Reads and writes the relationship on the enclosing object. Inlined into the caller, where
    /// the key paths are constants, so the read of the wrapper's key is a field load (see
    /// ``Attribute``).
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value {
        @inline(__always) get {
            let key = object[keyPath: storageKeyPath].key
            object.recordProbedKeyPath(wrappedKeyPath)
            return Value.fromRelationshipValue(object.value(forKey: key))
        }
        @inline(__always) set {
            let key = object[keyPath: storageKeyPath].key
            object.setValue(newValue.relationshipValue, forKey: key)
        }
    }

    /// The projected value (`$name`) on the enclosing object: the destination's ID for a to-one,
    /// a live proxy for a to-many.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        projected projectedKeyPath: KeyPath<Object, Value.RelationshipProjection>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value.RelationshipProjection {
        let key = object[keyPath: storageKeyPath].key
        return Value.relationshipProjection(of: object, key: key)
    }
}
