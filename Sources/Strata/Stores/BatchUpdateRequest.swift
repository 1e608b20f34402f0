import Foundation

/// What a ``BatchUpdateResult`` holds (Core Data's `NSBatchUpdateRequestResultType`).
///
/// A `Sendable` value: use it on any thread.
public enum BatchUpdateRequestResultType: Sendable {
    /// `result` is `true` when the update ran.
    case statusOnlyResultType
    /// `result` is the `[ManagedObjectID]` of the updated rows.
    case updatedObjectIDsResultType
    /// `result` is the number (`Int`) of updated rows.
    case updatedObjectsCountResultType
}

/// Changes attributes of every row that matches a predicate, straight on the store, without
/// loading objects (Core Data's `NSBatchUpdateRequest`).
///
/// The SQLite store runs it as one `UPDATE` statement; other stores read the matching rows and
/// write them back as one save. Each updated row's version is bumped, so a context holding an
/// edited copy of it gets a merge conflict (133020) at its next save, resolved by its merge
/// policy as any conflict. As in Core Data, validation is not run and contexts are not
/// changed: merge the result's IDs into them with
/// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`. A value of the wrong type
/// for its attribute, an unknown key, a relationship key, nil for a required attribute, or an
/// integer out of its attribute's range is an error, and nothing is written.
///
/// Configure on one thread, then pass to `execute(_:)` on a context's queue.
public final class BatchUpdateRequest: PersistentStoreRequest {
    /// The entity whose rows change, if given by description.
    public let entity: EntityDescription?
    /// The name of the entity whose rows change.
    public let entityName: String
    /// Which rows change (`nil`: every row of the entity).
    public var predicate: ObjectPredicate?
    /// The new values by attribute name (or ``PropertyDescription``): constants, or
    /// ``ObjectExpression``s evaluated for each row (`visits + 1`, another attribute, `now()`),
    /// over the row's own attributes and its to-one key paths.
    public var propertiesToUpdate: [AnyHashable: Any]?
    /// Whether rows of sub-entities change too (default true).
    public var includesSubentities = true
    /// What the result holds (default `.statusOnlyResultType`).
    public var resultType: BatchUpdateRequestResultType = .statusOnlyResultType
    /// The stores to update (`nil`: every store of the coordinator that holds the entity).
    public var affectedStores: [IncrementalStore]?
    /// Strata: whether, after the update, every context of the coordinator (root contexts and
    /// their children) merges the updated objects, each on its own queue and without waiting,
    /// as `mergeChanges(fromRemoteContextSave:into:)` does: registered objects are refreshed and
    /// objects-did-change reports them, so live views follow without extra code. Default false
    /// (Core Data's behaviour: contexts are left as they are).
    public var mergesChangesIntoContexts = false

    /// An update of the rows of the entity named `entityName`.
    public init(entityName: String) {
        self.entity = nil
        self.entityName = entityName
    }

    /// An update of the rows of `entity`.
    public init(entity: EntityDescription) {
        self.entity = entity
        self.entityName = entity.name
    }

    /// `.batchUpdateRequestType`.
    public var requestType: PersistentStoreRequestType { .batchUpdateRequestType }
}

/// The result of a ``BatchUpdateRequest`` (Core Data's `NSBatchUpdateResult`).
///
/// Returned by `execute(_:)` on the context's queue; its `result` holds `Sendable` values (a flag,
/// IDs or a count), which may then go to any thread.
public final class BatchUpdateResult: PersistentStoreResult {
    /// `true`, the `[ManagedObjectID]` of the updated rows, or their number (`Int`), as
    /// ``resultType`` says.
    public let result: Any?
    /// The kind of `result`.
    public let resultType: BatchUpdateRequestResultType

    init(resultType: BatchUpdateRequestResultType, count: Int, ids: [ManagedObjectID]) {
        self.resultType = resultType
        switch resultType {
        case .statusOnlyResultType: result = true
        case .updatedObjectIDsResultType: result = ids
        case .updatedObjectsCountResultType: result = count
        }
        super.init()
    }
}
