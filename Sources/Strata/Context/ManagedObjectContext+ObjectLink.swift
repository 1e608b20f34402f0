import Foundation

/// The context's side of the narrow object ↔ context interface (`ObjectContextLink`).
extension ManagedObjectContext: ObjectContextLink {
    var publicContext: ManagedObjectContext? { self }

    func fulfillFault(of object: ManagedObject) {
        do {
            try loadFault(object)
        } catch let error as StrataError {
            object.isFaultStorage = false
            sizeStorageIfEmpty(of: object)
            object.record(error)
        } catch {
            object.isFaultStorage = false
            sizeStorageIfEmpty(of: object)
            object.record(StrataError(code: StrataError.Code.coreData, message: "Firing the fault failed: \(error)", entityName: object.entity.name, objectID: object.objectID))
        }
    }

    func fulfillFaultThrowing(of object: ManagedObject) throws {
        try loadFault(object)
    }

    /// Loads a fault's values: from the snapshot a fetch attached, the row cache, or the parent
    /// store (with the other faults of its batch, as a batch load: see `loadBatch`). Throws when
    /// the row is gone and `shouldDeleteInaccessibleFaults` is false; the object then stays a
    /// fault.
    func loadFault(_ object: ManagedObject) throws {
        guard object.isFaultStorage else { return }
        // A fault with a snapshot attached by a fetch fires without I/O.
        let staleness = stalenessInterval
        if object.loadHeldRow(ifFreshFor: staleness) { return }
        // A temporary ID that a root save replaced: fire (and live on) under the permanent one.
        if object.objectID.isTemporaryID, let permanent = persistentStoreCoordinator?.temporaryIDAliases.permanent(for: object.objectID) {
            adoptPermanentIDs([object.objectID: permanent])
        }
        let snapshots: [RowSnapshot] = try StrataTrace.span(
            "fault", .fault, detail: object.entity.name, arguments: TraceArguments(.number("key", Int(object.objectID.primaryKey ?? 0))),
            outcome: { $1.append(.number("rows", $0.count)) },
            body: {
                if object.faultBatch != nil { return try loadBatch(batchFaultingIDs(around: object)) }
                return try requireParentStore().snapshots(for: [object.objectID], options: ReadOptions(maxAge: staleness))
            })
        // Batch faulting: `loadBatch` gave the other faults of the batch their rows too. (An
        // answer may carry the permanent ID that replaced the object's temporary one.)
        let row = snapshots.first { $0.objectID == object.objectID } ?? snapshots.first { findRegistered($0.objectID) === object }
        guard let snapshot = row else {
            try handleMissingRow(of: object)
            return
        }
        object.loadValues(from: snapshot)
    }

    /// A fault whose row is gone: with `shouldDeleteInaccessibleFaults` (the default) it becomes
    /// a deleted object with nil values; otherwise firing it throws (133000).
    func handleMissingRow(of object: ManagedObject) throws {
        if object.objectID.isTemporaryID || !shouldDeleteInaccessibleFaults {
            throw StrataError(
                code: StrataError.Code.managedObjectReferentialIntegrity,
                message: "The fault could not be fulfilled: the \(object.entity.name) object's row no longer exists (shouldDeleteInaccessibleFaults is off)",
                entityName: object.entity.name, objectID: object.objectID)
        }
        prepareStorage(of: object, defaults: false)
        object.isFaultStorage = false
        object.snapshot = nil
        // Deleted, but not in the deleted set: there is nothing left to delete in the store.
        state.work.rowVanished(object)
    }

    /// IDs to load along with a fault (the fault itself, plus the other faults of its batch).
    func batchFaultingIDs(around object: ManagedObject) -> [ManagedObjectID] {
        guard let batch = object.faultBatch else { return [object.objectID] }
        var ids = [object.objectID]
        for id in batch.ids where id != object.objectID {
            if let other = findRegistered(id), !other.isFaultStorage { continue }
            ids.append(id)
        }
        object.faultBatch = nil
        return ids
    }

    func objectWillChange(_ object: ManagedObject, at slot: PropertySlot) {
        guard object.link === self else { return }
        state.work.willChange(object, at: slot)
    }

    func recordProblem(_ problem: StrataError, for object: ManagedObject) {
        object.recordedProblems.append(problem)
        state.problemObjects.insert(object)
    }

    func objectForRelationship(_ id: ManagedObjectID) -> ManagedObject {
        registeredOrFault(id)
    }

    func loadToMany(of object: ManagedObject, relationship: RelationshipDescription) -> [ManagedObjectID] {
        do {
            let result = try requireParentStore().toManyIDs(of: [object.objectID], relationship: relationship, options: .default)
            return result[object.objectID] ?? []
        } catch let error as StrataError {
            object.record(error)
            return []
        } catch {
            object.record(
                StrataError(
                    code: StrataError.Code.coreData, message: "Loading '\(relationship.name)' failed: \(error)", entityName: object.entity.name, key: relationship.name, objectID: object.objectID))
            return []
        }
    }

    func evaluateFetchedProperty(_ property: FetchedPropertyDescription, for object: ManagedObject) -> [ManagedObject] {
        guard let request = property.request(for: object) else { return [] }
        do {
            return try fetch(request)
        } catch let error as StrataError {
            object.record(error)
            return []
        } catch {
            return []
        }
    }
}
