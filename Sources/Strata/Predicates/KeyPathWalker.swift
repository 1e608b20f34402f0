import StrataLocks

/// An object whose values a predicate, an expression or a sort descriptor reads by key: managed
/// objects (`Objects/ManagedObject+KeyValueReadable.swift`). The predicate language knows objects
/// only through it. Call its members on the object's queue.
protocol KeyValueReadable: AnyObject {
    /// The object's ID (what a predicate compares an object with).
    var objectID: ManagedObjectID { get }
    /// The value of a property, as `value(forKey:)` gives it.
    func value(forKey key: String) -> Any?
    /// Evaluates `predicate` (with `variables` substituted) the way a fetch of the object's
    /// entity would select it, so that `evaluate(with:)` and a fetch agree; `nil` when a fetch
    /// could not evaluate it (it reads a transient attribute or a fetched property, or a
    /// variable's value is no predicate constant): key-value coding evaluates it then.
    func evaluateAsFetch(_ predicate: ObjectPredicate, variables: [String: Any]) throws -> Bool?
}

/// What a predicate was last resolved to for `evaluate(with:)` on objects of one entity, kept
/// by the predicate so that evaluating many objects of an entity resolves it once. The value is
/// opaque here (the resolved form belongs to a higher layer); `key` identifies the entity and
/// the value must keep that entity alive, so the key is never reused for another one.
/// Thread-safe: a predicate may be evaluated on several queues at once.
final class ResolvedPredicateCache: Sendable {
    private let entry = StrataLock<(key: ObjectIdentifier, value: any Sendable)?>(nil)

    init() {}

    /// The value stored for `key`, if the last one stored was for it.
    func value(for key: ObjectIdentifier) -> (any Sendable)? {
        entry.withLock { $0?.key == key ? $0?.value : nil }
    }

    /// Replaces the stored value.
    func store(_ value: any Sendable, for key: ObjectIdentifier) {
        entry.withLock { $0 = (key, value) }
    }
}

/// A collection of objects a key path can fan out over: sets and arrays of managed objects
/// (`Objects/ManagedObject+KeyValueReadable.swift`).
protocol KeyValueReadableCollection {
    /// The objects, in the collection's order.
    var keyValueObjects: [any KeyValueReadable] { get }
    /// Whether the collection is ordered (an array) rather than a set.
    var isOrderedKeyValueCollection: Bool { get }
}

/// Walks dotted key paths over objects, dictionaries, sets and arrays.
enum KeyPathWalker {
    static func value(of root: Any?, components: ArraySlice<String>) -> Any? {
        guard let first = components.first else { return root }
        let rest = components.dropFirst()
        switch root {
        case let object as any KeyValueReadable:
            return value(of: object.value(forKey: first), components: rest)
        case let dictionary as [String: Any]:
            return value(of: dictionary[first], components: rest)
        case let collection as any KeyValueReadableCollection:
            if collection.isOrderedKeyValueCollection {
                return collection.keyValueObjects.map { value(of: $0, components: components) as Any }
            }
            return Set(collection.keyValueObjects.compactMap { value(of: $0, components: components) as? AnyHashable })
        default:
            return nil
        }
    }
}
