import Foundation

/// A batch insert as a store of the public seam receives it
/// (``IncrementalStore/executeBatchInsert(_:)``): rows of one entity, each with a value (or
/// nil) for every stored attribute — the values given, converted and checked as a setter would,
/// and the attribute's default for the others — and the uniqueness constraints rows are
/// upserted on. Rows of one request that share a constraint's values are already folded into
/// one, so every row writes a distinct stored row. Immutable; usable from any thread.
public struct StoreBatchInsertRequest: @unchecked Sendable {
    // @unchecked Sendable: immutable; holds frozen model descriptions and stored values.
    let plan: BatchInsertPlan
    let origin: TransactionOrigin

    init(plan: BatchInsertPlan, origin: TransactionOrigin = TransactionOrigin()) {
        self.plan = plan
        self.origin = origin
    }

    /// The ``ManagedObjectContext/transactionAuthor`` of the context running the request (a
    /// store that keeps a persistent history records it with the transaction).
    public var transactionAuthor: String? { origin.author }

    /// The ``ManagedObjectContext/name`` of the context running the request.
    public var contextName: String? { origin.contextName }

    /// The entity of every row.
    public var entity: EntityDescription { plan.entity }

    /// The number of rows.
    public var count: Int { plan.count }

    /// The stored attributes every row has a value for, in the order rows hold them.
    public var attributes: [AttributeDescription] { Array(plan.entity.layout.storedAttributes.prefix(plan.width)) }

    /// The value of `attribute` (one of ``attributes``) in row `row`, in its Swift type as
    /// ``IncrementalStoreNode/value(forKey:)`` gives values; nil for no value, an unknown
    /// attribute or a row out of range.
    public func value(ofRow row: Int, attributeAt index: Int) -> Any? {
        guard row >= 0, row < plan.count, index >= 0, index < plan.width else { return nil }
        return AttributeCodec.decode(plan.value(row: row, slot: index), for: plan.entity.layout.storedAttributes[index])
    }

    /// The uniqueness constraints a row is upserted on: a row whose values of every attribute
    /// of one constraint (none of them nil) equal those of a stored row of the constraint's
    /// entity tree updates that row — every attribute of ``attributes`` takes the row's value,
    /// relationships stay, the version goes up — instead of inserting one. Empty: plain inserts.
    public var uniquenessConstraints: [StoreUniquenessConstraint] {
        plan.constraints.map { StoreUniquenessConstraint(entity: $0.owner, keys: $0.keys) }
    }

    /// Whether the result must name the written objects (else only their number).
    public var returnsObjectIDs: Bool { plan.returnsObjectIDs }
}

/// A uniqueness constraint that applies to a batch insert's rows.
///
/// A `Sendable` value: use it on any thread.
public struct StoreUniquenessConstraint: @unchecked Sendable {
    // @unchecked Sendable: holds a frozen entity description.
    /// The entity declaring the constraint: it covers the rows of its whole tree.
    public let entity: EntityDescription
    /// The names of the constraint's attributes, as declared.
    public let keys: [String]
}

/// What a store's batch insert did (``IncrementalStore/executeBatchInsert(_:)``).
///
/// A `Sendable` value: use it on any thread.
public struct StoreBatchInsertResult: Sendable {
    /// The written objects in row order, when the request ``StoreBatchInsertRequest/returnsObjectIDs``:
    /// a new object's ID, or the ID of the stored object an upsert updated.
    public var objectIDs: [ManagedObjectID]
    /// Those of ``objectIDs`` that name stored objects an upsert updated.
    public var updatedObjectIDs: [ManagedObjectID]

    /// A result naming `objectIDs`, of which `updatedObjectIDs` were updated.
    public init(objectIDs: [ManagedObjectID] = [], updatedObjectIDs: [ManagedObjectID] = []) {
        self.objectIDs = objectIDs
        self.updatedObjectIDs = updatedObjectIDs
    }
}
