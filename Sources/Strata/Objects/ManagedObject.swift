import Foundation

/// An object of the object graph, bound to one context (Core Data's `NSManagedObject`).
///
/// Use it through key-value coding (`value(forKey:)`, `setValue(_:forKey:)`) or through a
/// typed subclass whose properties are declared with ``Attribute`` and ``Relationship``:
///
/// ```swift
/// final class Person: ManagedObject {
///     @Attribute("name") var name: String
///     @Attribute("age") var age: Int64
/// }
/// ```
///
/// **Queue**: a managed object is not `Sendable`. Touch it only on its context's queue (inside
/// `perform`/`performAndWait`); pass its ``objectID`` to other queues. With
/// `STRATA_CONCURRENCY_DEBUG=1` any access from another thread traps with a message.
///
/// Subclasses may override the lifecycle hooks (`awakeFromInsert()`, `willSave()`, …) and the
/// validation methods; they must keep `init(entity:insertInto:)` (it is `required`).
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity. Immutable: read it from any thread.
    public let entity: EntityDescription
    #if DEBUG
    /// The object's ID: temporary until the object is saved, then permanent. Read it on the
    /// object's context's queue (a save changes it); the ID itself is `Sendable`.
    public internal(set) var objectID: ManagedObjectID
    #else
    /// The object's ID: temporary until the object is saved, then permanent. Read it on the
    /// object's context's queue (a save changes it); the ID itself is `Sendable`. (Read on every
    /// access path: exempt from the runtime's exclusivity checks, see the fields below.)
    @exclusivity(unchecked) public internal(set) var objectID: ManagedObjectID
    #endif

    // The state every access path touches. In release builds these fields are exempt from the
    // runtime's dynamic exclusivity checks (`@exclusivity(unchecked)`): an object is confined to
    // its context's queue and no Strata code modifies one of them while accessing the same field,
    // and the checks cost a tenth of a fetch or an insert. Debug builds (every test run) keep the
    // checks, so an overlapping access still traps there.
    //
    // - registry: the identity map of the object's context while the object is registered
    //   there; nil once it is removed (or never inserted).
    // - change: where the object stands in its context's unit of work.
    // - isFaultStorage: whether the values are not loaded yet.
    // - saveMarks: marks a save sets and reads (`changedSinceWillSave`, `modelRulesChecked`).
    // - eventChanges: what happened to the object in the current event (objects-did-change).
    // - changeSetPosition: the position in the unit-of-work set its change state names (see
    //   `Context/UnitOfWork/ChangedObjectSet.swift`); -1 or stale when in none.
    // - snapshot: the values as last loaded from the parent store.
    // - attributeValues: the current stored-attribute values (reads the snapshot's values in
    //   place until changed, see `Stores/SnapshotBackedValues.swift`).
    // - toOneValues: the current to-one targets.
    // - changedBits: which of the first 64 properties changed since the last load or save
    //   (`changedMask` adds the rest, kept in the side record).
    //
    // The fields are ordered and sized so that the object is 112 bytes (checked by
    // `Tests/StrataTests/Objects/ObjectSizeTests.swift`): an object of an entity with a few
    // `@Attribute` properties lands in a smaller size class of the allocator.
    #if DEBUG
    var registry: ObjectRegistry?
    var change: ObjectChange = .none
    var isFaultStorage: Bool = false
    var saveMarks: SaveMarks = []
    var eventChanges: EventChanges = EventChanges()
    var changeSetPosition: Int32 = -1
    var snapshot: RowSnapshot?
    var attributeValues = StoredValues()
    var toOneValues = ToOneValues()
    var changedBits: UInt64 = 0
    #else
    @exclusivity(unchecked) var registry: ObjectRegistry?
    @exclusivity(unchecked) var change: ObjectChange = .none
    @exclusivity(unchecked) var isFaultStorage: Bool = false
    @exclusivity(unchecked) var saveMarks: SaveMarks = []
    @exclusivity(unchecked) var eventChanges: EventChanges = EventChanges()
    @exclusivity(unchecked) var changeSetPosition: Int32 = -1
    @exclusivity(unchecked) var snapshot: RowSnapshot?
    @exclusivity(unchecked) var attributeValues = StoredValues()
    @exclusivity(unchecked) var toOneValues = ToOneValues()
    @exclusivity(unchecked) var changedBits: UInt64 = 0
    #endif
    /// The object's context, reached through its registry (see ``ObjectRegistry/owner``).
    @inline(__always) var link: (any ObjectContextLink)? { registry?.owner }
    // The other stored state, with the same exclusivity rule as the fields above:
    // - toManyLists: the to-many contents, current and as last loaded or saved (see
    //   `ToManyLists`); nil while none is loaded, as for nearly every fetched object.
    // - sideRecord: what most objects never need (see `ObjectSideRecord`); created on first use.
    // - groupLink: what the object shares with the other objects of one fetch: while it is a
    //   fault of a batched fetch, its batch's IDs (so firing one loads its whole batch); once
    //   it owns prefetched objects, the targets of that prefetch (see `FetchGroupLink`).
    #if DEBUG
    var toManyLists: ToManyLists?
    var sideRecord: ObjectSideRecord?
    var groupLink: FetchGroupLink?
    #else
    @exclusivity(unchecked) var toManyLists: ToManyLists?
    @exclusivity(unchecked) var sideRecord: ObjectSideRecord?
    @exclusivity(unchecked) var groupLink: FetchGroupLink?
    #endif

    /// Creates an object of `entity` and inserts it into `context` (if given). An object
    /// created without a context can be inserted later with ``ManagedObjectContext/insert(_:)``.
    /// Call it on the context's queue. The default values of the entity's attributes are set,
    /// then `awakeFromInsert()` runs.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        self.objectID = ManagedObjectID(entity: entity, temporaryNumber: 0)
        if let context {
            context.insert(self)
        }
    }

    /// Creates an object of the entity whose class is this class, in `context`'s model, and
    /// inserts it. If the model has no entity for the class, the object is still created (with a
    /// placeholder entity) and the next `save()` reports the problem. Call it on the context's
    /// queue.
    public convenience init(context: ManagedObjectContext) {
        if let entity = context.entityForInsert(of: Self.self) {
            self.init(entity: entity, insertInto: context)
        } else {
            let placeholder = EntityDescription(name: String(describing: Self.self), managedObjectClass: Self.self)
            self.init(entity: placeholder, insertInto: nil)
            context.insertUnmodeled(self)
        }
    }

    deinit {
        // The registry is borrowed, not retained: this object holds it until the end of `deinit`.
        registry.map(Unmanaged.passUnretained)?._withUnsafeGuaranteedRef { $0.unregister(deallocating: self) }
    }

    // MARK: State

    /// The context the object belongs to, or `nil` once it was removed (or never inserted).
    /// Read it on the object's context's queue.
    public var managedObjectContext: ManagedObjectContext? { link?.publicContext }

    /// Whether the object was inserted and not yet saved. Read it on the object's context's queue.
    public var isInserted: Bool {
        checkAccess("isInserted")
        return change == .inserted
    }

    /// Whether the object has unsaved changes to its properties.
    /// Read it on the object's context's queue.
    public var isUpdated: Bool {
        checkAccess("isUpdated")
        return change == .updated
    }

    /// Whether the object was deleted and the deletion not yet saved.
    /// Read it on the object's context's queue.
    public var isDeleted: Bool {
        checkAccess("isDeleted")
        return change == .deleted
    }

    /// Whether the object's values are not loaded yet (reading any property loads them).
    /// Read it on the object's context's queue.
    public var isFault: Bool {
        checkAccess("isFault")
        return isFaultStorage
    }

    /// Whether the object is inserted, updated or deleted. Read it on the object's context's queue.
    public var hasChanges: Bool {
        checkAccess("hasChanges")
        return change != .none
    }

    /// Whether any stored property differs from its committed value.
    /// Read it on the object's context's queue.
    public var hasPersistentChangedValues: Bool {
        checkAccess("hasPersistentChangedValues")
        return !changedValues().isEmpty
    }

    /// In the concurrency debug mode, traps unless the caller runs on the queue of the object's
    /// context (an object without a context is not checked). On any queue.
    @inline(__always) func checkAccess(_ call: StaticString) {
        if registry?.checksAccess == true { link?.checkAccess(call) }
    }

    /// Asks for the first cache lines of the buffer holding the object's values (its snapshot,
    /// or the draft of its changes) and of its snapshot, which a save's walks over its objects
    /// read (`Context/UnitOfWork/ChangedObjectSet.swift`). A hint: reads two fields, retains
    /// nothing, changes nothing. On the object's context's queue.
    @inline(__always) func prefetchSavedState() {
        Prefetch.address(attributeValues.bufferAddress)
        if let snapshot { Prefetch.address(UnsafeRawPointer(Unmanaged.passUnretained(snapshot).toOpaque())) }
    }

    /// Fires the fault now (loads the object's values), throwing if that fails: for example
    /// when the row was deleted elsewhere and the context's `shouldDeleteInaccessibleFaults` is
    /// off (133000). Property access fires faults implicitly and records such failures for the
    /// next `save()` instead. Does nothing for an object that is not a fault. Call on the
    /// context's queue.
    public func fulfillFault() throws {
        checkAccess("fulfillFault()")
        guard isFaultStorage, let link else { return }
        try link.fulfillFaultThrowing(of: self)
    }

    // MARK: Hashable (identity)

    /// Identity: two managed objects are equal only when they are the same instance (one context
    /// holds one object per ID; the same row in two contexts is two objects). Compare
    /// ``objectID``s to compare rows. Use it on the objects' context's queue.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    /// Hashes the instance's identity, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The entity, the ID, and the values unless the object is a fault.
    /// Read it on the object's context's queue.
    open var description: String {
        if isFaultStorage { return "<\(entity.name) \(objectID.uriRepresentation().absoluteString) (fault)>" }
        let values = entity.layout.storedAttributes.enumerated().map { slot, attribute -> String in
            let value = slot < attributeValues.count ? AttributeCodec.decode(attributeValues[slot], for: attribute) : nil
            return "\(attribute.name) = \(value.map { String(describing: $0) } ?? "nil")"
        }
        return "<\(entity.name) \(objectID.uriRepresentation().absoluteString)> { \(values.joined(separator: "; ")) }"
    }

    // MARK: Lifecycle hooks (override points; the base versions do nothing)

    /// Called once, right after the object is inserted into a context. Set initial values here.
    /// Called on the context's queue.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from its parent store.
    /// Called on the context's queue.
    open func awakeFromFetch() {}
    /// Called after a snapshot change (merge, refresh with `mergeChanges: true`).
    /// Called on the context's queue.
    open func awakeFromSnapshotEvents() {}
    /// Called at the start of a save for each inserted, updated or deleted object. It may change
    /// values; objects it changes get one more call, up to a bound. Called on the context's queue.
    open func willSave() {}
    /// Called after a save succeeded, for each object it wrote. Called on the context's queue.
    open func didSave() {}
    /// Called when the object is deleted, before delete rules run. Called on the context's queue.
    open func prepareForDeletion() {}
    /// Called before the object turns (back) into a fault. Called on the context's queue.
    open func willTurnIntoFault() {}
    /// Called after the object turned (back) into a fault. Called on the context's queue.
    open func didTurnIntoFault() {}

    // MARK: Validation (override points; call `super` to keep the model's rules)

    /// Validates the object before an insert is saved: the model's rules for every property,
    /// then `validateValue(_:forKey:)` for each. Override to add rules that involve several
    /// properties; call `super` to keep the model's rules, and throw a ``StrataError`` (or any
    /// error) to refuse the save. Called by `save()` on the context's queue; you may call it too.
    open func validateForInsert() throws { try validateProperties() }
    /// Validates the object before an update is saved, like ``validateForInsert()``.
    /// Called on the context's queue.
    open func validateForUpdate() throws { try validateProperties() }
    /// Validates the object before its delete is saved: a `deny` relationship that still holds
    /// objects refuses it (code 1600, naming the object and the relationship). Override to add
    /// rules; call `super`. Called on the context's queue.
    open func validateForDelete() throws { try validateDenyRules() }

    /// Validates one value for the property `key` against the model's rules (required, type
    /// range, min/max value, length, pattern, validation predicates and rules, relationship
    /// counts), throwing every failure at once (1560 when several).
    ///
    /// Call it to check a value before setting it. Override it to add rules for a key (call
    /// `super`): a save calls it for every attribute and to-one relationship of an inserted
    /// object and every changed one of an updated object (not for to-many relationships: check
    /// those in `validateForInsert()` / `validateForUpdate()`), so failures of an override stop
    /// the save like the model's own. Call on the object's context's queue.
    open func validateValue(_ value: Any?, forKey key: String) throws {
        // During a save the model's rules were already checked on the stored values.
        if modelRulesChecked { return }
        try validateModelRules(value, forKey: key)
    }
}

/// The contents of one to-many relationship: IDs in order, without duplicates. Membership is
/// tested by scanning a short list (most to-manys hold a few objects, and a set per
/// relationship would cost an allocation and a hash per member); a list longer than
/// ``indexThreshold`` gets a set for its membership tests.
struct ToManyValue: Equatable {
    private(set) var ids: [ManagedObjectID] = []
    /// The members as a set, once the list is longer than ``indexThreshold``.
    private var index: Set<ManagedObjectID>?
    /// The longest list tested by scanning.
    static let indexThreshold = 16

    init() {}

    init(_ ids: [ManagedObjectID]) {
        self.ids.reserveCapacity(ids.count)
        for id in ids { append(id) }
    }

    var count: Int { ids.count }

    func contains(_ id: ManagedObjectID) -> Bool {
        if let index { return index.contains(id) }
        return ids.contains(id)
    }

    /// Appends `id` unless present; returns whether it was added.
    @discardableResult mutating func append(_ id: ManagedObjectID) -> Bool {
        guard addToIndex(id) else { return false }
        ids.append(id)
        buildIndexIfLong()
        return true
    }

    /// Inserts `id` at `index` unless present; returns whether it was added.
    @discardableResult mutating func insert(_ id: ManagedObjectID, at position: Int) -> Bool {
        guard addToIndex(id) else { return false }
        ids.insert(id, at: min(max(0, position), ids.count))
        buildIndexIfLong()
        return true
    }

    /// Removes `id` if present; returns whether it was there.
    @discardableResult mutating func remove(_ id: ManagedObjectID) -> Bool {
        guard let position = ids.firstIndex(of: id) else { return false }
        ids.remove(at: position)
        index?.remove(id)
        return true
    }

    /// Replaces an ID (temporary → permanent) keeping its position.
    mutating func replace(_ old: ManagedObjectID, with new: ManagedObjectID) {
        guard let position = ids.firstIndex(of: old) else { return }
        ids[position] = new
        if index != nil {
            index?.remove(old)
            index?.insert(new)
        }
    }

    /// Whether `id` is new to the list (and, with an index, records it there).
    private mutating func addToIndex(_ id: ManagedObjectID) -> Bool {
        if index != nil { return index?.insert(id).inserted ?? false }
        return !ids.contains(id)
    }

    private mutating func buildIndexIfLong() {
        if index == nil && ids.count > Self.indexThreshold { index = Set(ids) }
    }

    /// Moves the IDs at `indexes` to start at `destination` (an index in the list without
    /// them, clamped), keeping their relative order. Returns whether the order changed.
    @discardableResult mutating func move(from indexes: IndexSet, to destination: Int) -> Bool {
        let valid = indexes.filter { $0 >= 0 && $0 < ids.count }
        guard !valid.isEmpty else { return false }
        let moving = valid.map { ids[$0] }
        var remaining: [ManagedObjectID] = []
        remaining.reserveCapacity(ids.count - moving.count)
        for (index, id) in ids.enumerated() where !valid.contains(index) { remaining.append(id) }
        let target = min(max(0, destination), remaining.count)
        remaining.insert(contentsOf: moving, at: target)
        if remaining == ids { return false }
        ids = remaining
        return true
    }

    static func == (lhs: ToManyValue, rhs: ToManyValue) -> Bool { lhs.ids == rhs.ids }
}
