import Foundation

/// A Swift type that a typed ``Relationship`` property can have:
///
/// - `Destination?` for a to-one (optional: the object may be absent until saved, and reading
///   a required to-one of a new object gives `nil`),
/// - `Set<Destination>` for an unordered to-many,
/// - `[Destination]` for an ordered to-many,
///
/// where `Destination` is a `ManagedObject` subclass. Strata provides these conformances; you
/// do not conform your own types. The conversions run where the property is used: on the
/// object's context's queue.
public protocol RelationshipValueConvertible {
    /// What the property's projected value (`$name`) gives: the destination's object ID for a
    /// to-one, a live ``MutableRelationshipSet`` or ``MutableOrderedRelationshipSet`` for a
    /// to-many.
    associatedtype RelationshipProjection
    /// Converts a value read with `value(forKey:)` to this type (objects of another class are
    /// left out).
    static func fromRelationshipValue(_ value: Any?) -> Self
    /// The value passed to `setValue(_:forKey:)`.
    var relationshipValue: Any? { get }
    /// The projected value of the relationship `key` of `object`.
    static func relationshipProjection(of object: ManagedObject, key: String) -> RelationshipProjection
}

extension Optional: RelationshipValueConvertible where Wrapped: ManagedObject {
    /// A to-one's projection is the destination's object ID, read without creating or loading
    /// the destination object.
    public typealias RelationshipProjection = ManagedObjectID?

    /// The object read, or nil (also for an object of another class).
    public static func fromRelationshipValue(_ value: Any?) -> Wrapped? {
        AttributeCodec.unwrapOptional(value) as? Wrapped
    }

    /// The object to set, or nil.
    public var relationshipValue: Any? { self.map { $0 as ManagedObject } }

    /// The destination's ID without loading it (one query if `object` is a fault). Call on the
    /// object's context's queue.
    public static func relationshipProjection(of object: ManagedObject, key: String) -> ManagedObjectID? {
        object.objectIDs(forRelationshipNamed: key).first
    }
}

extension Set: RelationshipValueConvertible where Element: ManagedObject {
    /// An unordered to-many's projection is a live, typed proxy.
    public typealias RelationshipProjection = MutableRelationshipSet<Element>

    /// The objects read, as `Element` (objects of another class are left out).
    public static func fromRelationshipValue(_ value: Any?) -> Set<Element> {
        switch AttributeCodec.unwrapOptional(value) {
        case let set as Set<ManagedObject>: return Set(set.compactMap { $0 as? Element })
        case let array as [ManagedObject]: return Set(array.compactMap { $0 as? Element })
        default: return []
        }
    }

    /// The objects to set.
    public var relationshipValue: Any? { Set<ManagedObject>(self.map { $0 as ManagedObject }) }

    /// A live ``MutableRelationshipSet`` of the relationship. Call on the object's context's queue.
    public static func relationshipProjection(of object: ManagedObject, key: String) -> MutableRelationshipSet<Element> {
        object.checkAccess("mutableSetValue(forKey:)")
        return MutableRelationshipSet(editor: ToManyEditor(owner: object, key: key, ordered: false, call: "@Relationship \(key)"))
    }
}

extension Array: RelationshipValueConvertible where Element: ManagedObject {
    /// An ordered to-many's projection is a live, typed proxy with positions.
    public typealias RelationshipProjection = MutableOrderedRelationshipSet<Element>

    /// The objects read, in order, as `Element` (objects of another class are left out).
    public static func fromRelationshipValue(_ value: Any?) -> [Element] {
        switch AttributeCodec.unwrapOptional(value) {
        case let array as [ManagedObject]: return array.compactMap { $0 as? Element }
        case let set as Set<ManagedObject>: return set.compactMap { $0 as? Element }
        default: return []
        }
    }

    /// The objects to set, in order (duplicates are dropped when set).
    public var relationshipValue: Any? { self.map { $0 as ManagedObject } }

    /// A live ``MutableOrderedRelationshipSet`` of the relationship. Call on the object's
    /// context's queue.
    public static func relationshipProjection(of object: ManagedObject, key: String) -> MutableOrderedRelationshipSet<Element> {
        object.checkAccess("mutableOrderedSetValue(forKey:)")
        return MutableOrderedRelationshipSet(editor: ToManyEditor(owner: object, key: key, ordered: true, call: "@Relationship \(key)"))
    }
}
