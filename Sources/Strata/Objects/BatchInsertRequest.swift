import Foundation

/// What a ``BatchInsertResult`` holds (Core Data's `NSBatchInsertRequestResultType`).
///
/// A `Sendable` value: use it on any thread.
public enum BatchInsertRequestResultType: Sendable {
    /// `result` is `true` when the insert ran.
    case statusOnly
    /// `result` is the `[ManagedObjectID]` of the written rows, in the order the rows were
    /// given (a row that updated an existing row through a uniqueness constraint gives that
    /// row's ID; rows of the request that matched each other give one ID, at the first one's
    /// place).
    case objectIDs
    /// `result` is the number (`Int`) of rows written (inserted or updated).
    case count
}

/// Inserts many rows of one entity straight into the store, without creating objects in a
/// context (Core Data's `NSBatchInsertRequest`).
///
/// The rows come from an array of dictionaries keyed by attribute name (``objectsToInsert``),
/// or from a handler called again and again until it returns `true` — one that fills a
/// dictionary (``dictionaryHandler``) or one that sets the attributes of an object
/// (``managedObjectHandler``). The values of the call that returns `true` are not inserted.
///
/// As in Core Data:
/// - only attributes are set: a key naming a relationship is an error (relationships are set by
///   inserting objects in a context); an attribute not given takes its default value;
/// - validation rules and lifecycle hooks do not run, contexts are not changed (merge the IDs
///   with `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`, or set
///   ``mergesChangesIntoContexts``);
/// - with uniqueness constraints (`EntityDescription.uniquenessConstraints`) a row whose
///   constrained values match a stored row's updates that row instead of inserting one (as
///   Core Data does under a merge policy where the new object's values win): every attribute of
///   the entity takes the row's value — those not given their default — the row keeps its ID
///   and relationships, and its version is bumped, so a context with an edited copy gets a
///   merge conflict at its next save. Rows of the same request that match each other: the later
///   one wins.
///
/// Strata keeps what protects the data: a value of the wrong type, an unknown key, nil (or no
/// value and no default) for a required attribute, or an integer outside its attribute's range
/// is an error before anything is written, naming the row and the key. The whole insert is one
/// transaction: all of it lands, or none of it.
///
/// Configure on one thread, then pass to `execute(_:)` on a context's queue; the handlers are
/// called on that queue, during `execute(_:)`.
public final class BatchInsertRequest: PersistentStoreRequest {
    /// The entity whose rows are inserted, if given by description.
    public let entity: EntityDescription?
    /// The name of the entity whose rows are inserted.
    public let entityName: String
    /// The rows to insert: each a dictionary from attribute name to value (values as a setter
    /// takes them; `nil` or `NSNull` for nil).
    public var objectsToInsert: [[String: Any]]?
    /// Called until it returns `true`; each call that returns `false` inserts the row it put in
    /// the dictionary (attribute name → value). The dictionary is emptied before each call.
    public var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Called until it returns `true`; each call that returns `false` inserts a row with the
    /// attribute values it set on the object (typed properties or `setValue(_:forKey:)`). The
    /// object belongs to no context: Strata passes one object, set back to the entity's default
    /// values before each call, and reads its values out after it. Do not keep it, insert it
    /// into a context, or set its relationships (an error).
    public var managedObjectHandler: ((ManagedObject) -> Bool)?
    /// What the result holds (default `.statusOnly`).
    public var resultType: BatchInsertRequestResultType = .statusOnly
    /// The stores to insert into: the first of them that holds the entity (`nil`: the first
    /// store of the coordinator that holds it, where a save puts new objects).
    public var affectedStores: [IncrementalStore]?
    /// Strata: whether, after the insert, every context of the coordinator (root contexts and
    /// their children) merges the written rows, each on its own queue and without waiting, as
    /// `mergeChanges(fromRemoteContextSave:into:)` does: new rows as inserted objects, rows an
    /// upsert changed as updated ones (registered objects are refreshed). Default false (Core
    /// Data's behaviour: contexts are left as they are).
    public var mergesChangesIntoContexts = false

    /// An insert of the rows `objects` into the entity named `entityName`.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entity = nil
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// An insert of the rows `objects` into `entity`.
    public init(entity: EntityDescription, objects: [[String: Any]]) {
        self.entity = entity
        self.entityName = entity.name
        self.objectsToInsert = objects
    }

    /// An insert into the entity named `entityName` of the rows `handler` fills, until it
    /// returns `true`.
    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entity = nil
        self.entityName = entityName
        self.dictionaryHandler = handler
    }

    /// An insert into `entity` of the rows `handler` fills, until it returns `true`.
    public init(entity: EntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entity = entity
        self.entityName = entity.name
        self.dictionaryHandler = handler
    }

    /// An insert into the entity named `entityName` of the rows `handler` sets on an object,
    /// until it returns `true`.
    public init(entityName: String, managedObjectHandler handler: @escaping (ManagedObject) -> Bool) {
        self.entity = nil
        self.entityName = entityName
        self.managedObjectHandler = handler
    }

    /// An insert into `entity` of the rows `handler` sets on an object, until it returns `true`.
    public init(entity: EntityDescription, managedObjectHandler handler: @escaping (ManagedObject) -> Bool) {
        self.entity = entity
        self.entityName = entity.name
        self.managedObjectHandler = handler
    }

    /// `.batchInsertRequestType`.
    public var requestType: PersistentStoreRequestType { .batchInsertRequestType }
}

/// The result of a ``BatchInsertRequest`` (Core Data's `NSBatchInsertResult`).
///
/// Returned by `execute(_:)` on the context's queue; its `result` holds `Sendable` values (a flag,
/// IDs or a count), which may then go to any thread.
public final class BatchInsertResult: PersistentStoreResult {
    /// `true`, the `[ManagedObjectID]` of the written rows, or their number (`Int`), as
    /// ``resultType`` says.
    public let result: Any?
    /// The kind of `result`.
    public let resultType: BatchInsertRequestResultType

    init(resultType: BatchInsertRequestResultType, count: Int, ids: [ManagedObjectID]) {
        self.resultType = resultType
        switch resultType {
        case .statusOnly: result = true
        case .objectIDs: result = ids
        case .count: result = count
        }
        super.init()
    }
}
