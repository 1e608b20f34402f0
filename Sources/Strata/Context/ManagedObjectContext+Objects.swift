import Foundation

/// Registering, inserting, looking up and deleting objects.
extension ManagedObjectContext {
    /// Objects inserted and not yet saved. Call on the context's queue.
    public var insertedObjects: Set<ManagedObject> {
        checkAccess("insertedObjects")
        return Set(state.work.inserted.objects)
    }

    /// Objects changed and not yet saved. Call on the context's queue.
    public var updatedObjects: Set<ManagedObject> {
        checkAccess("updatedObjects")
        return Set(state.work.updated.objects)
    }

    /// Objects deleted and not yet saved. Call on the context's queue.
    public var deletedObjects: Set<ManagedObject> {
        checkAccess("deletedObjects")
        return Set(state.work.deleted.objects)
    }

    /// Every object the context currently knows (live ones; unchanged objects the app no longer
    /// holds are forgotten). Call on the context's queue.
    public var registeredObjects: Set<ManagedObject> {
        checkAccess("registeredObjects")
        return Set(state.registry.allObjects)
    }

    /// Whether the context has unsaved inserts, updates or deletes. Call on the context's queue.
    public var hasChanges: Bool {
        checkAccess("hasChanges")
        return state.work.hasChanges
    }

    // MARK: Inserting

    /// Inserts an object created without a context (`init(entity:insertInto: nil)`). The object
    /// gets a temporary ID, its attributes' default values, and `awakeFromInsert()`. Call on the
    /// context's queue.
    public func insert(_ object: ManagedObject) {
        checkAccess("insert(_:)")
        if let link = object.link {
            if link === self {
                if object.change == .deleted { undelete(object) }
                return
            }
            recordContextProblem(
                StrataError(
                    code: StrataError.Code.managedObjectExternalRelationship, message: "\(object.entity.name) object already belongs to another context", entityName: object.entity.name,
                    objectID: object.objectID))
            return
        }
        let entity = object.entity
        if let model, entity.managedObjectModel !== model {
            object.objectID = ManagedObjectID(temporaryFor: entity)
            attach(object)
            state.work.insert(object)
            object.record(StrataError(code: StrataError.Code.coreData, message: "Entity '\(entity.name)' is not part of this context's model", entityName: entity.name, objectID: object.objectID))
            return
        }
        object.objectID = ManagedObjectID(temporaryFor: entity)
        prepareStorage(of: object, defaults: true, inDraft: true)
        attach(object)
        state.work.insert(object)
        noteEvent(.inserted, for: object)
        if entity.isAbstract {
            object.record(
                StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "Entity '\(entity.name)' is abstract: insert one of its sub-entities instead", entityName: entity.name,
                    objectID: object.objectID))
        }
        object.awakeFromInsert()
    }

    /// Inserts an object whose class has no entity in the model; the next save reports it.
    func insertUnmodeled(_ object: ManagedObject) {
        checkAccess("init(context:)")
        object.objectID = ManagedObjectID(temporaryFor: object.entity)
        attach(object)
        state.work.insert(object)
        object.record(
            StrataError(
                code: StrataError.Code.coreData,
                message:
                    "The model has no entity whose class is \(object.entity.name); create the object with init(entity:insertInto:) or map the class in EntityDescription(name:managedObjectClass:)",
                entityName: object.entity.name, objectID: object.objectID))
    }

    /// Creates and inserts an object of `entity` (the entity's class is instantiated). Throws
    /// if the entity is abstract or not in the context's model. Call on the context's queue.
    @discardableResult
    public func insertNewObject(of entity: EntityDescription) throws -> ManagedObject {
        checkAccess("insertNewObject(of:)")
        if entity.isAbstract {
            throw StrataError(code: StrataError.Code.managedObjectValidation, message: "Entity '\(entity.name)' is abstract: insert one of its sub-entities instead", entityName: entity.name)
        }
        if let model, entity.managedObjectModel !== model {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(entity.name)' is not part of this context's model", entityName: entity.name)
        }
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// The entity of the context's model whose class is `type` (for `init(context:)`), or nil.
    /// The last answer is kept: a loop of inserts of one class asks once per model.
    func entityForInsert(of type: ManagedObject.Type) -> EntityDescription? {
        guard let model else { return nil }
        if let cached = state.insertEntityCache, cached.type == ObjectIdentifier(type), cached.model === model { return cached.entity }
        let entity = model.entity(for: type)
        state.insertEntityCache = entity.map { (ObjectIdentifier(type), model, $0) }
        return entity
    }

    func attach(_ object: ManagedObject) {
        let registry = state.registry
        object.registry = registry
        // Borrowed for the call (the context holds it), not retained once more per object.
        Unmanaged.passUnretained(registry)._withUnsafeGuaranteedRef { $0.register(object) }
        if retainsRegisteredObjects { state.retained[ObjectIdentifier(object)] = object }
    }

    /// Gives an object whose values could not be loaded (a fault that failed to fire) storage
    /// of its entity's size, all nil, so later reads and writes find their slots.
    func sizeStorageIfEmpty(of object: ManagedObject) {
        if object.attributeValues.count != object.entity.layout.storedAttributes.count { prepareStorage(of: object, defaults: false) }
    }

    /// Sizes an object's storage for its entity; inserted objects get default values.
    /// `inDraft`: the defaults are copied into a draft of the object's values at once (see
    /// `Stores/RowSnapshot.swift`), which its save can publish as its snapshot; else they are
    /// shared with the entity's layout until the first change.
    func prepareStorage(of object: ManagedObject, defaults: Bool, inDraft: Bool = false) {
        let layout = object.entity.layout
        if defaults {
            object.attributeValues = inDraft ? StoredValues(draftOf: layout.defaultValues, objectID: object.objectID) : StoredValues(layout.defaultValues)
        } else {
            object.attributeValues = StoredValues(repeating: .null, count: layout.storedAttributes.count)
        }
        object.toOneValues = ToOneValues.none(count: layout.toOneRelationships.count)
        // A shared record of empty lists (no allocation until a to-many of this object
        // changes), or none: all unloaded, or no to-manys at all.
        let toManyCount = layout.toManyRelationships.count
        object.toManyLists = defaults && toManyCount != 0 ? ToManyLists.empty(count: toManyCount) : nil
        // As for fetched properties below: no empty dictionary made and stored when there is
        // nothing to forget (an inserted object has no side record).
        if object.hasPendingToManyEdits { object.pendingToMany = [:] }
        object.transientValues = layout.transientDefaults
        object.forgetFetchedValues()
        object.changedMask.removeAll()
    }

    // MARK: Looking up

    /// The object for `objectID`: the registered one, or a new fault (no I/O; the store is
    /// read when a property is first accessed). Call on the context's queue.
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        checkAccess("object(with:)")
        return registeredOrFault(objectID)
    }

    /// The object for `objectID`, loading its values; throws (133000) if the object does not
    /// exist in the store (or in the parent context). Call on the context's queue.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        checkAccess("existingObject(with:)")
        if let object = findRegistered(objectID) {
            if object.change == .deleted {
                throw StrataError(
                    code: StrataError.Code.managedObjectReferentialIntegrity, message: "The \(objectID.entity.name) object was deleted", entityName: objectID.entity.name, objectID: objectID)
            }
            if !object.isFaultStorage { return object }
            if let snapshot = object.snapshot {
                object.loadValues(from: snapshot)
                return object
            }
        }
        if objectID.isTemporaryID {
            throw StrataError(
                code: StrataError.Code.managedObjectReferentialIntegrity, message: "No object with temporary ID \(objectID) is registered in this context", entityName: objectID.entity.name,
                objectID: objectID)
        }
        let snapshots = try requireParentStore().snapshots(for: [objectID], options: ReadOptions(maxAge: stalenessInterval))
        guard let snapshot = snapshots.first else {
            throw StrataError(
                code: StrataError.Code.managedObjectReferentialIntegrity, message: "The \(objectID.entity.name) object does not exist in the store", entityName: objectID.entity.name,
                objectID: objectID)
        }
        let object = registeredOrFault(snapshot.objectID)
        if object.isFaultStorage { object.loadValues(from: snapshot) }
        return object
    }

    /// The registered object for `objectID`, or `nil` (never creates one). Call on the context's queue.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        checkAccess("registeredObject(for:)")
        return findRegistered(objectID)
    }

    /// The registered object, or a new fault for `id` (registered).
    func registeredOrFault(_ id: ManagedObjectID) -> ManagedObject {
        if let object = findRegistered(id) { return object }
        let object = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        object.objectID = id
        // No value storage until the fault fires (`ManagedObject.loadValues(from:)` gives it the row's values).
        object.isFaultStorage = true
        attach(object)
        return object
    }

    // MARK: Problems

    func recordContextProblem(_ problem: StrataError) {
        state.contextProblems.append(problem)
    }
}
