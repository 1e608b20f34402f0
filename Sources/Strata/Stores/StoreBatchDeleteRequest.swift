import Foundation

/// A batch delete as a store of the public seam receives it
/// (``IncrementalStore/executeBatchDelete(_:)``): the rows it starts from — those a fetch
/// request matches (``rows``) or those of some object IDs (``objectIDs``) — and the delete
/// rules it must apply, worked out from the model as a context's `delete(_:)` applies them.
///
/// A store that runs the delete itself does, in one transaction, exactly what Strata does when
/// it runs it by rows (and the SQLite store in SQL):
/// 1. The starting rows: those of ``rows`` (its predicate, sub-entities and, when it has a
///    limit or an offset, its sort and window), or the rows of ``objectIDs`` that still exist
///    as the IDs' entity.
/// 2. Cascades: the destinations of each of ``cascadeRelationships`` held by a doomed row of
///    the relationship's entity (or a sub-entity) are doomed too, step after step until no new
///    row is reached; each row is deleted once, cycles included.
/// 3. Deny: when a doomed row's relationship among ``denyRelationships`` holds a row that is
///    not doomed, nothing is deleted and the request fails with
///    `StrataError.Code.validationRelationshipDeniedDelete`, naming the doomed row (`objectID`,
///    `entityName`) and the relationship (`key`).
/// 4. Nullify: for each of ``nullifyRelationships``, the rows it holds that stay lose the
///    doomed row from its inverse: an inverse to-one that points at a doomed row is cleared; an
///    inverse to-many loses the doomed rows (its membership goes with the doomed rows or their
///    join rows). Each such row gets a new version (once per relationship), so that a context
///    holding an older copy of it conflicts at save as after any other change.
/// 5. The doomed rows and their many-to-many memberships go. Rows that point at a doomed row
///    through a relationship without inverse, or whose inverse has the `noAction` rule, keep
///    pointing at it (Core Data leaves such references dangling).
///
/// A store that keeps a persistent history records the delete as one transaction: a delete per
/// doomed row (with the values of its entity's `attributesPreservedInHistory`, read before it
/// goes) and an update per row that lost a partner, naming the relationships that lost it.
///
/// Immutable; usable from any thread.
public struct StoreBatchDeleteRequest: @unchecked Sendable {
    // @unchecked Sendable: immutable; holds frozen model descriptions and a parsed predicate.
    let plan: BatchDeletePlan
    let origin: TransactionOrigin
    /// The starting objects of a delete by object IDs.
    private let startingIDs: [ManagedObjectID]?

    init(plan: BatchDeletePlan, store: StoreToken, origin: TransactionOrigin = TransactionOrigin()) {
        self.plan = plan
        self.origin = origin
        if case .keys(let keys) = plan.selection {
            let space = store.space(for: plan.entity)
            startingIDs = keys.map { ManagedObjectID(space: space, primaryKey: $0) }
        } else {
            startingIDs = nil
        }
    }

    /// The ``ManagedObjectContext/transactionAuthor`` of the context running the request (a
    /// store that keeps a persistent history records it with the transaction).
    public var transactionAuthor: String? { origin.author }

    /// The ``ManagedObjectContext/name`` of the context running the request.
    public var contextName: String? { origin.contextName }

    /// The entity the delete starts from.
    public var entity: EntityDescription { plan.entity }

    /// The rows the delete starts from, when it starts from a fetch request (nil when it starts
    /// from ``objectIDs``): its entity, predicate and ``StoreFetchRequest/includesSubentities``;
    /// its sort descriptors, ``StoreFetchRequest/fetchLimit`` and
    /// ``StoreFetchRequest/fetchOffset`` when a limit or an offset chooses the rows (no sort
    /// otherwise). Run it like ``IncrementalStore/fetchObjectIDs(_:options:)`` does.
    public var rows: StoreFetchRequest? {
        guard case .matching(let fetch) = plan.selection else { return nil }
        return StoreFetchRequest(plan: fetch)
    }

    /// The predicate of ``rows`` (nil when there is none or the delete starts from object IDs).
    public var predicate: ObjectPredicate? { rows?.predicate }

    /// Whether the starting rows include those of ``entity``'s sub-entities (false for a delete
    /// by object IDs, whose rows are the IDs' entity exactly).
    public var includesSubentities: Bool { rows?.includesSubentities ?? false }

    /// The objects the delete starts from, when it starts from object IDs (nil when it starts
    /// from ``rows``): permanent IDs of this store, all of ``entity``. Those whose rows are gone
    /// are skipped.
    public var objectIDs: [ManagedObjectID]? { startingIDs }

    /// Every entity whose rows the delete may remove: ``entity`` and the destinations of the
    /// cascades, each with its sub-entities listed on its own.
    public var deletableEntities: [EntityDescription] { plan.rules.deletable }

    /// The stored relationships (of the deletable entities) with the `cascade` rule: their
    /// destinations are deleted with their owner.
    public var cascadeRelationships: [RelationshipDescription] { plan.rules.cascades }

    /// The stored relationships (of the deletable entities) with the `deny` rule: a row they
    /// hold that is not deleted refuses the whole delete.
    public var denyRelationships: [RelationshipDescription] { plan.rules.denies }

    /// The stored relationships (of the deletable entities) with the `nullify` rule and a
    /// stored inverse: the rows they hold that stay lose the deleted row from that inverse,
    /// and get a new version.
    public var nullifyRelationships: [RelationshipDescription] { plan.rules.nullifies }

    /// Whether the result must name the deleted objects (else only their number).
    public var returnsObjectIDs: Bool { plan.returnsObjectIDs }

    /// Whether the result must name the objects that stay but lost a partner, with the
    /// relationships that lost it (contexts merge them).
    public var returnsChangedObjectIDs: Bool { plan.returnsChangedIDs }
}

/// What a store's batch delete did (``IncrementalStore/executeBatchDelete(_:)``).
///
/// A `Sendable` value: use it on any thread.
public struct StoreBatchDeleteResult: Sendable {
    /// How many rows were deleted, cascaded ones included.
    public var count: Int
    /// The deleted objects (cascaded ones included), when the request
    /// ``StoreBatchDeleteRequest/returnsObjectIDs``: exactly ``count`` of them.
    public var deletedObjectIDs: [ManagedObjectID]
    /// The objects that stay but lost a deleted partner (each once), when the request
    /// ``StoreBatchDeleteRequest/returnsChangedObjectIDs``.
    public var changedObjectIDs: [ManagedObjectID]
    /// For each of ``changedObjectIDs``: the names of its relationships that lost a deleted
    /// row.
    public var lostRelationships: [ManagedObjectID: [String]]

    /// A result of `count` deleted rows, naming `deletedObjectIDs` and the objects that lost a
    /// partner with their relationships.
    public init(count: Int, deletedObjectIDs: [ManagedObjectID] = [], changedObjectIDs: [ManagedObjectID] = [], lostRelationships: [ManagedObjectID: [String]] = [:]) {
        self.count = count
        self.deletedObjectIDs = deletedObjectIDs
        self.changedObjectIDs = changedObjectIDs
        self.lostRelationships = lostRelationships
    }
}
