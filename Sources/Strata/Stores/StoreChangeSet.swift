import Foundation

/// The inserted, updated and deleted rows of one save, in stored form.
struct StoreChangeSet: @unchecked Sendable {
    // @unchecked Sendable: built on the saving context's queue, then only read by the store;
    // holds frozen model descriptions.
    var inserts: [RowChange] = []
    var updates: [RowChange] = []
    var deletes: [RowDeletion] = []
    var toManyChanges: [ToManyChange] = []
    /// Who saved (the root context's author and name), for the persistent history; empty for a
    /// child's save into its parent context, which records no history.
    var origin = TransactionOrigin()

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && toManyChanges.isEmpty }
}

/// One inserted or updated row. An inserted row whose ID is already permanent (from
/// `obtainPermanentIDs(for:)`) keeps that key.
struct RowChange {
    var objectID: ManagedObjectID
    /// The version the context last read (updates); 0 for inserts.
    var baseVersion: Int64
    var attributes: StoredValues
    var toOne: ToOneValues
    /// For updates: the attribute slots that changed (all for inserts).
    var changedAttributeSlots: [Int]
    /// For updates: the to-one slots that changed.
    var changedToOneSlots: [Int]
    /// Whether an update may overwrite the row whatever its version (merge policies that let
    /// the object win).
    var ignoresVersion = false
    /// For updates: the values the saving context last read (a parent context compares them
    /// with its own, as a store compares versions); nil in a save to the coordinator, whose
    /// stores compare versions only.
    var base: RowSnapshot?
}

/// One deleted row.
struct RowDeletion {
    var objectID: ManagedObjectID
    var baseVersion: Int64
    var ignoresVersion = false
    /// The values the saving context last read (see ``RowChange/base``).
    var base: RowSnapshot?
}

/// The new contents of a to-many relationship of one object.
struct ToManyChange {
    var owner: ManagedObjectID
    var relationship: RelationshipDescription
    var added: [ManagedObjectID]
    var removed: [ManagedObjectID]
    /// For ordered relationships: the whole new order.
    var ordered: [ManagedObjectID]?
}

/// What a successful save did (the public ``SaveChangesResult``).
typealias StoreSaveResult = SaveChangesResult

extension StoreChangeSet {
    /// The change set as a store writes it: without transient relationships. Each row's
    /// transient to-ones become nil and leave its changed slots, and transient to-many edits
    /// go. A row whose only changes were transient stays (its version moves on, as for a
    /// change of transient attributes only). A child context's save into its parent context
    /// keeps them all (the parent holds them in memory); the coordinator calls this before its
    /// stores see a save. O(rows of entities with transient relationships).
    func removingTransientRelationships() -> StoreChangeSet {
        var stored = self
        func strip(_ row: inout RowChange) {
            let layout = row.objectID.entity.layout
            guard !layout.transientToOneSlots.isEmpty else { return }
            row.toOne = layout.storedToOnes(row.toOne)
            row.changedToOneSlots.removeAll { layout.transientToOneSlots.contains($0) }
        }
        for index in stored.inserts.indices { strip(&stored.inserts[index]) }
        for index in stored.updates.indices { strip(&stored.updates[index]) }
        stored.toManyChanges.removeAll { $0.relationship.isTransient }
        return stored
    }
}
