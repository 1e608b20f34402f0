import Foundation

/// A fetch as a store receives it: the entity, the predicate and sort (already checked against
/// the model), the window. Immutable and `Sendable`.
public struct StoreFetchRequest: Sendable {
    /// The resolved plan the built-in stores run.
    let plan: FetchPlan

    init(plan: FetchPlan) { self.plan = plan }

    /// The entity fetched.
    public var entity: EntityDescription { plan.entity }
    /// Whether rows of sub-entities match too.
    public var includesSubentities: Bool { plan.includesSubentities }
    /// The predicate, or `nil` for every row of the entity.
    public var predicate: ObjectPredicate? { plan.sourcePredicate }
    /// The sort descriptors, first one first.
    public var sortDescriptors: [ObjectSortDescriptor] { plan.sourceSortDescriptors }
    /// At most this many rows (0: no limit).
    public var fetchLimit: Int { plan.limit }
    /// Skip this many rows first.
    public var fetchOffset: Int { plan.offset }

    /// Runs the request over candidate rows with Strata's in-memory engine (the one the
    /// in-memory store uses, which agrees with SQL on every predicate): keeps the rows of the
    /// entity (and sub-entities, if asked) that match the predicate, sorts them, applies offset
    /// and limit. Key paths through relationships are followed with `store`'s own
    /// ``IncrementalStore/newValuesForObjects(with:options:)`` and
    /// ``IncrementalStore/newValues(forRelationship:forObjectsWith:options:)``. Rows come in
    /// primary-key order where the sort leaves ties. Throws what those calls throw.
    public func evaluate(_ candidates: [IncrementalStoreNode], in store: IncrementalStore, options: ReadOptions) throws -> [IncrementalStoreNode] {
        let resolver = NodeResolver(store: store, options: options)
        let rows: [any EvaluationRow] = candidates.sorted { FetchPlan.idOrder($0.objectID, $1.objectID) }.map { NodeRow(node: $0.row, resolver: resolver, origin: $0) }
        let selected = try plan.select(rows)
        if let error = resolver.error { throw error }
        return selected.compactMap { ($0 as? NodeRow)?.origin }
    }
}

/// A save as a store receives it: what to insert, update and delete, and the to-many
/// relationships whose members changed. Built on the saving context's queue and then only
/// read. Values are in stored form, read them with ``IncrementalStoreNode/value(forKey:)``.
public struct SaveChangesRequest: @unchecked Sendable {
    // @unchecked Sendable: read-only after it is made (see StoreChangeSet).
    let changes: StoreChangeSet

    init(changes: StoreChangeSet) { self.changes = changes }

    /// Objects to insert: temporary IDs (or permanent ones from `obtainPermanentIDs`), version
    /// 0, every stored attribute and to-one (to-ones may name other inserted objects by their
    /// temporary IDs).
    public var insertedObjects: [IncrementalStoreNode] {
        changes.inserts.map { IncrementalStoreNode(row: RowSnapshot.make(objectID: $0.objectID, version: 0, attributes: $0.attributes, toOne: $0.toOne)) }
    }

    /// Objects to update.
    public var updatedObjects: [Update] { changes.updates.map(Update.init) }

    /// Objects to delete.
    public var deletedObjects: [Deletion] { changes.deletes.map(Deletion.init) }

    /// To-many relationships whose members changed.
    public var toManyChanges: [ToManyChange] { changes.toManyChanges.map(ToManyChange.init) }

    /// One updated object.
    ///
    /// A `Sendable` value: use it on any thread.
    public struct Update: @unchecked Sendable {
        // @unchecked Sendable: immutable; holds a frozen model description.
        let change: RowChange

        /// The object's values after the save (every stored attribute and to-one).
        public var node: IncrementalStoreNode {
            IncrementalStoreNode(row: RowSnapshot.make(objectID: change.objectID, version: change.baseVersion, attributes: change.attributes, toOne: change.toOne))
        }
        /// The row version the change was based on; the store must hold this version unless
        /// ``ignoresVersion``.
        public var baseVersion: Int64 { change.baseVersion }
        /// Whether the update overwrites the row whatever its version (a merge policy let the
        /// object win).
        public var ignoresVersion: Bool { change.ignoresVersion }
        /// The names of the attributes and to-ones that changed (only these are written).
        public var changedKeys: Set<String> {
            let layout = change.objectID.entity.layout
            var keys = Set(change.changedAttributeSlots.compactMap { $0 < layout.storedAttributes.count ? layout.storedAttributes[$0].name : nil })
            for slot in change.changedToOneSlots where slot < layout.toOneRelationships.count { keys.insert(layout.toOneRelationships[slot].name) }
            return keys
        }
    }

    /// One deleted object.
    ///
    /// A `Sendable` value: use it on any thread.
    public struct Deletion: Sendable {
        /// The object deleted.
        public let objectID: ManagedObjectID
        /// The row version the deletion was based on (see ``Update/baseVersion``).
        public let baseVersion: Int64
        /// Whether the row is deleted whatever its version.
        public let ignoresVersion: Bool

        init(_ deletion: RowDeletion) {
            self.objectID = deletion.objectID
            self.baseVersion = deletion.baseVersion
            self.ignoresVersion = deletion.ignoresVersion
        }
    }

    /// The new members of one to-many relationship of one object.
    ///
    /// A `Sendable` value: use it on any thread.
    public struct ToManyChange: @unchecked Sendable {
        // @unchecked Sendable: immutable; holds a frozen model description.
        /// The object whose relationship changed.
        public let owner: ManagedObjectID
        /// The relationship.
        public let relationship: RelationshipDescription
        /// Members added.
        public let added: [ManagedObjectID]
        /// Members removed.
        public let removed: [ManagedObjectID]
        /// For ordered relationships: every member in the new order.
        public let ordered: [ManagedObjectID]?

        init(_ change: Strata.ToManyChange) {
            self.owner = change.owner
            self.relationship = change.relationship
            self.added = change.added
            self.removed = change.removed
            self.ordered = change.ordered
        }
    }
}

/// What a save did: the permanent ID of every inserted object and the new version of every
/// inserted and updated row.
///
/// A `Sendable` value: use it on any thread.
public struct SaveChangesResult: Sendable {
    /// Temporary IDs of inserted objects and the permanent IDs they received (a permanent ID
    /// maps to itself). Strata's own SQLite store reports its inserts by their position in the
    /// change set instead; ``allPermanentIDs`` has both.
    public var permanentIDs: [ManagedObjectID: ManagedObjectID]
    /// The permanent IDs of the saved change set's inserts by their position in it (the SQLite
    /// store's way: no hashed write and read per inserted object). A position holds the insert's
    /// temporary ID with its permanent one, so a reader checks that its own list is in the same
    /// order; inserts not found here are in ``permanentIDs``.
    var insertedIDs: ContiguousArray<InsertedID> = []
    /// The new row version of inserted and updated objects, by permanent ID. A store may leave
    /// out the versions the saving context computes itself: 1 for an inserted object and the
    /// base version of the change plus one for an updated object.
    public var versions: [ManagedObjectID: Int64]

    /// A result; stores fill it as they save.
    public init(permanentIDs: [ManagedObjectID: ManagedObjectID] = [:], versions: [ManagedObjectID: Int64] = [:]) {
        self.permanentIDs = permanentIDs
        self.versions = versions
    }

    /// Every temporary ID the save replaced, with its permanent ID: ``permanentIDs`` and the
    /// IDs reported by position. Built on each call (O(inserts) when the store reported them
    /// by position). Callable on any thread.
    public var allPermanentIDs: [ManagedObjectID: ManagedObjectID] {
        if insertedIDs.isEmpty { return permanentIDs }
        var all = permanentIDs
        all.reserveCapacity(permanentIDs.count + insertedIDs.count)
        for pair in insertedIDs { all[pair.temporary] = pair.permanent }
        return all
    }

    /// Whether the save handed out or confirmed any permanent ID.
    var hasPermanentIDs: Bool { !permanentIDs.isEmpty || !insertedIDs.isEmpty }

    /// The permanent ID of the insert at `position` of the saved change set, if its temporary
    /// ID there is `temporary`; nil when the store reported it only in ``permanentIDs``.
    @inline(__always) func permanentID(ofInsertAt position: Int, temporary: ManagedObjectID) -> ManagedObjectID? {
        guard position < insertedIDs.count, insertedIDs[position].temporary == temporary else { return nil }
        return insertedIDs[position].permanent
    }

    /// One insert's IDs before and after the save.
    struct InsertedID: Sendable {
        /// The ID the object had in the change set.
        let temporary: ManagedObjectID
        /// The ID of its row (the same as `temporary` when the object already had a permanent one).
        let permanent: ManagedObjectID
    }
}

/// The permanent IDs a save handed out, looked up by the readers of its result: by insert
/// position first (``SaveChangesResult/permanentID(ofInsertAt:temporary:)``, no hashing), else
/// by temporary ID in a map of every pair (``SaveChangesResult/allPermanentIDs``), made on the
/// first lookup that needs it: an insert the store did not report at its own position, or a
/// reference to an inserted object. Used on one thread.
struct PermanentIDLookup {
    let result: SaveChangesResult
    private var map: [ManagedObjectID: ManagedObjectID]?

    init(_ result: SaveChangesResult) { self.result = result }

    /// Whether the save handed out or confirmed any permanent ID (otherwise every lookup is nil).
    var isEmpty: Bool { !result.hasPermanentIDs }

    /// The permanent ID of the insert at `position` of the saved change set, whose temporary ID
    /// is `temporary`.
    @inline(__always) mutating func permanentID(ofInsertAt position: Int, temporary: ManagedObjectID) -> ManagedObjectID? {
        result.permanentID(ofInsertAt: position, temporary: temporary) ?? permanentID(for: temporary)
    }

    /// The permanent ID that replaced `temporary`, wherever the save reported it.
    mutating func permanentID(for temporary: ManagedObjectID) -> ManagedObjectID? {
        if map == nil { map = result.allPermanentIDs }
        return map?[temporary]
    }
}

/// What a store keeps for one pinned query generation (a held read transaction, a frozen copy).
///
/// Conforming types are `Sendable`: a pin is made on one thread and released on another.
public protocol PinnedStoreState: AnyObject, Sendable {
    /// Releases the held state; called once.
    func release()
}
