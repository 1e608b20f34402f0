import Foundation

/// A ``ManagedObject`` subclass that lists the model key of each of its Swift key paths.
///
/// ```swift
/// final class Person: ManagedObject, KeyPathKeyed {
///     @Attribute("name") var name: String
///     @Relationship("department") var department: Department?
///     static var keyPathKeys: [PartialKeyPath<Person>: String] {
///         [\Person.name: "name", \Person.department?.name: "department.name"]
///     }
/// }
/// ```
/// Conforming is optional: without it Strata finds the key of an `@Attribute` or `@Relationship`
/// property by reading the property once on a detached probe object (see ``ManagedObject``'s
/// `keyPathKeyNames(of:)` below). The table is needed only for key paths of several steps in a
/// sort descriptor (`\Person.department?.name`) and for computed properties that stand for a key.
/// A key may be dotted (`"department.name"`). Declare the table as a computed property (key
/// paths are not `Sendable`, so a stored `static let` of them is refused in Swift 6 mode); Strata
/// reads it when it translates a key path, from any thread.
public protocol KeyPathKeyed: ManagedObject {
    /// The model key (or dotted key path) of each Swift key path.
    static var keyPathKeys: [PartialKeyPath<Self>: String] { get }
}

extension KeyPathKeyed {
    /// The key of `keyPath` in ``keyPathKeys``, if it is a key path of this class.
    static func tableKey(for keyPath: AnyKeyPath) -> String? {
        guard let typed = keyPath as? PartialKeyPath<Self> else { return nil }
        return keyPathKeys[typed]
    }
}

/// A ``ManagedObject`` class that other classes inherit from and that lists the model key of
/// its Swift key paths: ``KeyPathKeyed`` for a class that is not final (``KeyPathKeyed``'s
/// table is typed by `Self`, which only a final class can satisfy).
///
/// ```swift
/// class Person: ManagedObject, InheritableKeyPathKeyed {
///     @Relationship("department") var department: Department?
///     class var inheritableKeyPathKeys: [AnyKeyPath: String] {
///         [\Person.department?.name: "department.name"]
///     }
/// }
/// final class Employee: Person {
///     override class var inheritableKeyPathKeys: [AnyKeyPath: String] {
///         [\Employee.department?.name: "department.name"]
///     }
/// }
/// ```
/// Declare the table as a `class var` in the class body (not in an extension), so that a
/// subclass can override it with key paths of its own type; a key path's class is part of its
/// identity, so `\Employee.department?.name` is not `\Person.department?.name`. A class that
/// conforms to both protocols is looked up in ``KeyPathKeyed/keyPathKeys`` first. As for
/// ``KeyPathKeyed``, the table is needed only for key paths of several steps in sort descriptors
/// and for computed properties; Strata reads it when it translates a key path, from any thread.
public protocol InheritableKeyPathKeyed: ManagedObject {
    /// The model key (or dotted key path) of each Swift key path of this class.
    static var inheritableKeyPathKeys: [AnyKeyPath: String] { get }
}

/// Finds the model key of a Swift key path of a managed object class.
enum KeyPathKeys {
    /// Keys found by probing, per key path (a key path's class is part of its identity).
    private static let probed = BoundedMemo<KeyPathBox, [String]>(capacity: 4096)

    /// The key-name components of `keyPath` (`["age"]`, `["department", "name"]`). Throws a
    /// ``StrataError`` naming the key path when it is no property of the model. Any thread.
    static func keyNames(of keyPath: AnyKeyPath) throws -> [String] {
        let root = type(of: keyPath).rootType
        guard let objectClass = root as? ManagedObject.Type else {
            throw PredicateMacroTranslation.unsupported("the key path '\(keyPath)' of \(root), which is no ManagedObject subclass,")
        }
        if let keyed = objectClass as? any KeyPathKeyed.Type, let key = keyed.tableKey(for: keyPath) {
            return key.split(separator: ".").map(String.init)
        }
        if let keyed = objectClass as? any InheritableKeyPathKeyed.Type, let key = keyed.inheritableKeyPathKeys[keyPath] {
            return key.split(separator: ".").map(String.init)
        }
        return try probed.value(for: KeyPathBox(keyPath: keyPath)) { try probe(keyPath, of: objectClass) }
    }

    /// Reads `keyPath` on a detached object of `objectClass` whose entity has no properties.
    /// An `@Attribute` or `@Relationship` getter records its own key path on the probe and asks
    /// `value(forKey:)` for its key, which records an unknown-key problem naming the key. The key
    /// counts only if exactly one property was read and that property's key path is `keyPath`
    /// itself, so a computed property (`var label: String { name + "!" }`) or a key path of
    /// several steps (`\Person.department?.name`) is refused rather than taken for the key it reads.
    private static func probe(_ keyPath: AnyKeyPath, of objectClass: ManagedObject.Type) throws -> [String] {
        let entity = EntityDescription(name: "\(objectClass)", managedObjectClass: objectClass)
        let probe = objectClass.init(entity: entity, insertInto: nil)
        // Only what reading the key path records counts, not what the class's initializer read.
        probe.recordedProblems = []
        probe.startProbingKeyPaths()
        _ = (probe as Any)[keyPath: keyPath]
        let keys = probe.recordedProblems.compactMap(\.key)
        let read = probe.sideRecord?.probedKeyPaths ?? []
        guard keys.count == 1, let key = keys.first, read == [keyPath] else {
            throw PredicateMacroTranslation.unsupported(
                "the key path '\(keyPath)' (no single @Attribute or @Relationship property; declare it in KeyPathKeyed.keyPathKeys)")
        }
        return [key]
    }
}

/// A key path as a memo key. `@unchecked Sendable`: key paths are immutable values.
struct KeyPathBox: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath
}

extension ObjectPredicate {
    /// Translates a Foundation `Predicate` (what `#Predicate` builds) into a Strata predicate,
    /// as Core Data's `NSPredicate(_: Predicate<Input>)` does: comparisons, `&&`, `||`, `!`,
    /// arithmetic, `starts(with:)`, `contains(_:)`, nil checks, optional chaining, `??`,
    /// `count`, `isEmpty`, `contains(where:)`, `allSatisfy` and key paths through relationships.
    ///
    /// ```swift
    /// let predicate = try ObjectPredicate(#Predicate<Person> { $0.age > 30 && $0.name.starts(with: "A") })
    /// ```
    /// Throws a ``StrataError`` naming the first construct Strata cannot run (a method such as
    /// `lowercased()`, a property that is no model key). Callable from any thread.
    public convenience init<Root: ManagedObject>(_ predicate: Predicate<Root>) throws {
        self.init(node: try PredicateMacroTranslation.translate(predicate, keyNames: KeyPathKeys.keyNames(of:)))
    }
}

extension ObjectSortDescriptor {
    /// Sorts by the property at `keyPath` (Core Data's `NSSortDescriptor(keyPath:ascending:)`,
    /// SwiftData's `SortDescriptor(\.name)`). Throws a ``StrataError`` when the key path is no
    /// model key (see ``KeyPathKeyed``). Callable from any thread.
    public init<Root: ManagedObject, Value>(
        _ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparator: Comparator = .default
    ) throws {
        let key = try KeyPathKeys.keyNames(of: keyPath).joined(separator: ".")
        self.init(key: key, ascending: ascending, comparator: comparator)
    }
}

extension ObjectSortDescriptor {
    /// Translates a Foundation `SortDescriptor` (SwiftData's way to sort a `FetchDescriptor`):
    /// its key path becomes the key and `.reverse` a descending sort; no string comparator or
    /// `.lexical` is ``Comparator/default`` (byte-wise). Throws a ``StrataError`` for a descriptor
    /// without a key path, a key path that is no model key, or another string comparator (use
    /// ``init(_:ascending:comparator:)`` for case-insensitive and localized-standard order).
    /// Callable from any thread.
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) throws {
        guard let keyPath = descriptor.keyPath else {
            throw PredicateMacroTranslation.unsupported("a SortDescriptor without a key path")
        }
        let key = try KeyPathKeys.keyNames(of: keyPath).joined(separator: ".")
        if var strings = descriptor.stringComparator {
            // Foundation on Linux offers only `.lexical` (Apple platforms add localized ones); it has a
            // locale-independent meaning, which Strata runs the same way in SQL and in memory.
            strings.order = .forward
            guard strings == .lexical else {
                throw PredicateMacroTranslation.unsupported("the SortDescriptor string comparator '\(strings)'")
            }
        }
        self.init(key: key, ascending: descriptor.order == .forward, comparator: .default)
    }
}

extension FetchRequest where ResultType: ManagedObject {
    /// A request for the objects of `ResultType`'s entity that match `predicate`, in the order of
    /// `sortDescriptors` (SwiftData's `FetchDescriptor(predicate:sortBy:)`). The entity is found by
    /// class when the request runs, as for ``FetchRequestResult/fetchRequest()``.
    ///
    /// ```swift
    /// let request = try FetchRequest<Person>(
    ///     predicate: #Predicate { $0.age > 30 && $0.name.starts(with: "A") },
    ///     sortDescriptors: [ObjectSortDescriptor(\Person.name)])
    /// ```
    /// Throws a ``StrataError`` naming a construct the predicate uses that Strata cannot run.
    /// Build it on any thread; run it on the context's queue.
    public convenience init(predicate: Predicate<ResultType>?, sortDescriptors: [ObjectSortDescriptor] = []) throws {
        self.init(entityName: String(describing: ResultType.self))
        entityClass = ResultType.self
        self.predicate = try predicate.map { try ObjectPredicate($0) }
        self.sortDescriptors = sortDescriptors.isEmpty ? nil : sortDescriptors
    }
}
