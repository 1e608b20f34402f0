import Foundation

/// `execute(_:)`: running any ``PersistentStoreRequest``.
extension ManagedObjectContext {
    /// Runs `request` and returns its result (Core Data's `execute(_:)`): a ``FetchRequest``
    /// gives a ``FetchResult`` holding what `fetch(_:)` returns; a ``BatchUpdateRequest``,
    /// ``BatchDeleteRequest`` or ``BatchInsertRequest`` runs straight on the store and gives a
    /// ``BatchUpdateResult``, ``BatchDeleteResult`` or ``BatchInsertResult`` — it does not change
    /// this context's objects (merge its IDs with `mergeChanges(fromRemoteContextSave:into:)`, or
    /// set the request's `mergesChangesIntoContexts`); a ``PersistentHistoryChangeRequest``
    /// reads or deletes persistent history and gives a ``PersistentHistoryResult``; an
    /// `AsynchronousFetchRequest` returns its `AsynchronousFetchResult` at once and its
    /// completion runs later on this queue (its errors arrive there as `operationError`, not
    /// thrown here). In a child context store requests run on the coordinator at the root of
    /// the tree. Throws for an unknown entity or key, a wrong value, a store failure, or a kind
    /// of request this context cannot run. Call on the context's queue.
    public func execute(_ request: any PersistentStoreRequest) throws -> PersistentStoreResult {
        checkAccess("execute(_:)")
        if let asynchronous = request as? any ContextAsynchronousRequest {
            return asynchronous.start(in: self)
        }
        if let fetch = request as? any ContextFetchable {
            return FetchResult(result: try fetch.results(in: self))
        }
        if let update = request as? BatchUpdateRequest {
            return try StrataTrace.span("batch update", .batch) { try executeBatchUpdate(update) }
        }
        if let history = request as? PersistentHistoryChangeRequest {
            return try executeHistoryRequest(history)
        }
        if let delete = request as? BatchDeleteRequest {
            return try StrataTrace.span("batch delete", .batch) { try executeBatchDelete(delete) }
        }
        if let insert = request as? BatchInsertRequest {
            return try StrataTrace.span("batch insert", .batch) { try executeBatchInsert(insert) }
        }
        throw StrataError(code: StrataError.Code.coreData, message: "execute(_:) cannot run a \(type(of: request)) (request type \(request.requestType))")
    }

    /// The coordinator a batch request runs on (the root of the context's tree).
    func batchCoordinator(_ request: String) throws -> PersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            throw StrataError(code: StrataError.Code.coreData, message: "\(self) has no persistent store coordinator: a \(request) runs on its stores")
        }
        return coordinator
    }

    private func executeBatchUpdate(_ request: BatchUpdateRequest) throws -> BatchUpdateResult {
        let coordinator = try batchCoordinator("batch update")
        let model = coordinator.managedObjectModel
        let entity: EntityDescription
        if let given = request.entity {
            entity = given
        } else if let named = model.entitiesByName[request.entityName] {
            entity = named
        } else {
            throw StrataError(code: StrataError.Code.coreData, message: "The model has no entity named '\(request.entityName)'", entityName: request.entityName)
        }
        let plan = try BatchUpdatePlan.make(
            entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities, propertiesToUpdate: request.propertiesToUpdate ?? [:],
            returnsObjectIDs: request.resultType == .updatedObjectIDsResultType || request.mergesChangesIntoContexts)
        let outcome = try coordinator.executeBatchUpdate(plan, affectedStores: request.affectedStores, origin: transactionOrigin)
        if request.mergesChangesIntoContexts && !outcome.ids.isEmpty {
            Self.mergeChanges(fromRemoteContextSave: [NotificationKey.updatedObjectIDs: outcome.ids], into: coordinator.contextsInTree())
        }
        return BatchUpdateResult(resultType: request.resultType, count: outcome.count, ids: outcome.ids)
    }
}

/// A fetch request, as `execute(_:)` runs it without knowing its result type.
protocol ContextFetchable {
    func results(in context: ManagedObjectContext) throws -> Any
}

/// A request of a layer above Context that starts itself in a context and returns its result
/// at once (an asynchronous fetch, in `Results/`): `execute(_:)` runs it without naming its
/// type, so Context never depends on the layer above.
protocol ContextAsynchronousRequest {
    /// Starts the request in `context` and returns its result. Called on the context's queue.
    func start(in context: ManagedObjectContext) -> PersistentStoreResult
}

extension FetchRequest: ContextFetchable {
    func results(in context: ManagedObjectContext) throws -> Any { try context.fetch(self) }
}

extension PersistentStoreCoordinator {
    /// Every live context of the coordinator: its root contexts and, depth first, their children.
    func contextsInTree() -> [ManagedObjectContext] {
        var result: [ManagedObjectContext] = []
        var pending = rootContexts()
        while let next = pending.popLast() {
            result.append(next)
            pending.append(contentsOf: next.children)
        }
        return result
    }
}
