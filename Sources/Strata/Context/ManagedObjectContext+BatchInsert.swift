import Foundation

/// `execute(_:)` of a ``BatchInsertRequest``: the rows are collected and checked here, on the
/// context's queue (calling the request's handlers), then written by the coordinator's store
/// in one transaction.
extension ManagedObjectContext {
    /// Runs a batch insert (see ``BatchInsertRequest``). Call on the context's queue.
    func executeBatchInsert(_ request: BatchInsertRequest) throws -> BatchInsertResult {
        let coordinator = try batchCoordinator("batch insert")
        let model = coordinator.managedObjectModel
        let entity: EntityDescription
        if let given = request.entity {
            guard given.managedObjectModel === model else {
                throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(given.name)' is not part of this context's model", entityName: given.name)
            }
            entity = given
        } else if let named = model.entitiesByName[request.entityName] {
            entity = named
        } else {
            throw StrataError(code: StrataError.Code.coreData, message: "The model has no entity named '\(request.entityName)'", entityName: request.entityName)
        }
        let returnsObjectIDs = request.resultType == .objectIDs || request.mergesChangesIntoContexts
        var rows = try BatchInsertPlan.Builder(entity: entity, returnsObjectIDs: returnsObjectIDs)
        let sources = [request.objectsToInsert != nil, request.dictionaryHandler != nil, request.managedObjectHandler != nil].filter { $0 }.count
        guard sources == 1 else {
            throw StrataError(
                code: StrataError.Code.coreData,
                message: "Batch insert of \(entity.name): set exactly one of objectsToInsert, dictionaryHandler and managedObjectHandler (\(sources) are set)", entityName: entity.name)
        }
        if let objects = request.objectsToInsert {
            rows.reserveCapacity(objects.count)
            for object in objects {
                rows.startRow()
                for (key, value) in object { try rows.set(value, forKey: key) }
                try rows.finishRow()
            }
        } else if let handler = request.dictionaryHandler {
            try collectRows(from: handler, into: &rows)
        } else if let handler = request.managedObjectHandler {
            try collectRows(from: handler, entity: entity, into: &rows)
        }
        let plan = rows.finish()
        let outcome = try coordinator.executeBatchInsert(plan, affectedStores: request.affectedStores, origin: transactionOrigin)
        if request.mergesChangesIntoContexts && !outcome.ids.isEmpty {
            let updated = Set(outcome.updatedIDs)
            let inserted = outcome.ids.filter { !updated.contains($0) }
            Self.mergeChanges(
                fromRemoteContextSave: [NotificationKey.insertedObjectIDs: inserted, NotificationKey.updatedObjectIDs: outcome.updatedIDs], into: coordinator.contextsInTree())
        }
        return BatchInsertResult(resultType: request.resultType, count: outcome.count, ids: outcome.ids)
    }

    /// Calls `handler` with an emptied dictionary until it returns `true`, adding the row of
    /// every other call. Keys must be attribute names (strings).
    private func collectRows(from handler: (NSMutableDictionary) -> Bool, into rows: inout BatchInsertPlan.Builder) throws {
        let dictionary = NSMutableDictionary()
        var row = 0
        while true {
            dictionary.removeAllObjects()
            if handler(dictionary) { return }
            rows.startRow()
            for (key, value) in dictionary {
                guard let name = key as? String else {
                    throw StrataError(
                        code: StrataError.Code.managedObjectValidation,
                        message: "Batch insert of \(rows.entity.name): row \(row): a key of the dictionary must be an attribute name, not \(type(of: key))", entityName: rows.entity.name)
                }
                try rows.set(value, forKey: name)
            }
            try rows.finishRow()
            row += 1
        }
    }

    /// Calls `handler` with an object of `entity` that belongs to no context until it returns
    /// `true`, adding the attribute values of every other call. The one object is set back to
    /// the entity's defaults before each call; what its setters could not store (a wrong type,
    /// a relationship: an object outside a context cannot point to others) is an error naming
    /// the row, and so is inserting it into a context.
    private func collectRows(from handler: (ManagedObject) -> Bool, entity: EntityDescription, into rows: inout BatchInsertPlan.Builder) throws {
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        prepareStorage(of: object, defaults: true)
        let defaults = entity.layout.defaultValues
        var row = 0
        func failure(_ message: String, key: String?) -> StrataError {
            StrataError(code: StrataError.Code.managedObjectValidation, message: "Batch insert of \(entity.name): row \(row): \(message)", entityName: entity.name, key: key)
        }
        while true {
            if handler(object) { return }
            if object.registry != nil || object.change != .none {
                throw failure("the managedObjectHandler's object was inserted into a context; it belongs to the batch insert", key: nil)
            }
            if let problem = object.recordedProblems.first {
                if let key = problem.key, entity.layout.propertiesByName[key] is RelationshipDescription {
                    throw failure("'\(key)' is a relationship; a batch insert sets attributes only (relationships are set by inserting objects in a context)", key: key)
                }
                var error = problem
                error.objectID = nil
                error.message = "Batch insert of \(entity.name): row \(row): \(problem.message)"
                throw error
            }
            try rows.appendStoredRow(object.attributeValues)
            // Back to the defaults, in place: the storage is reused for the next row.
            for slot in defaults.indices where !object.attributeValues[slot].isIdentical(to: defaults[slot]) {
                object.attributeValues[slot] = defaults[slot]
            }
            object.changedMask.removeAll()
            row += 1
        }
    }
}
