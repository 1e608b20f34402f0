import Foundation

/// Fetching objects, IDs and counts, with the context's unsaved changes merged in.
extension ManagedObjectContext {
    /// Runs `request` and returns its results: objects of the request's class, `ManagedObjectID`s,
    /// `NSDictionary`s or one `NSNumber`, by `resultType`. Throws for an unknown entity, a
    /// malformed predicate, an unknown key or a type mismatch (naming the entity and key), or a
    /// store failure. With `includesPendingChanges` (the default) unsaved inserts, updates and
    /// deletes count. Call on the context's queue.
    public func fetch<T>(_ request: FetchRequest<T>) throws -> [T] {
        checkAccess("fetch(_:)")
        let entity = try resolveEntity(of: request)
        return try StrataTrace.span(
            "fetch", .fetch, detail: entity.name, arguments: Self.traceArguments(of: request), outcome: { $1.append(.number("results", $0.count)) },
            body: { try fetchResolved(request, entity: entity) })
    }

    /// A fetch request as the arguments of its span in a ``StrataTrace`` recording.
    static func traceArguments<T>(of request: FetchRequest<T>) -> TraceArguments {
        var arguments = TraceArguments()
        if request.fetchLimit > 0 { arguments.append(.number("fetchLimit", request.fetchLimit)) }
        if request.fetchBatchSize > 0 { arguments.append(.number("fetchBatchSize", request.fetchBatchSize)) }
        return arguments
    }

    /// `fetch(_:)` once the request's entity is known.
    private func fetchResolved<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> [T] {
        let results: [Any]
        switch request.resultType {
        case .countResultType:
            results = [NSNumber(value: try count(for: request))]
        case .managedObjectIDResultType:
            results = try fetchIDs(request, entity: entity)
        case .dictionaryResultType:
            results = try fetchDictionaries(request, entity: entity)
        default:
            let (objects, classes) = try fetchObjects(request, entity: entity)
            if let typed = Self.typedObjects(objects, as: T.self, classes: classes) { return typed }
            results = objects
        }
        return try Self.converted(results, entity: entity)
    }

    /// `results` as `[T]`, one cast per element; throws when an element is not a `T`.
    static func converted<T>(_ results: [Any], entity: EntityDescription) throws -> [T] {
        if let typed = results as? [T] { return typed }
        var converted: [T] = []
        converted.reserveCapacity(results.count)
        for result in results {
            guard let element = result as? T else {
                throw StrataError(
                    code: StrataError.Code.coreData, message: "The fetch returns \(type(of: result)) values, which are not \(T.self): use FetchRequest<\(type(of: result))> or set resultType to match",
                    entityName: entity.name)
            }
            converted.append(element)
        }
        return converted
    }

    /// `objects` as `[T]` when `T` is `ManagedObject` or a class every object's class descends
    /// from, without a dynamic cast (and an `[Any]` copy) per object: the classes are checked
    /// once each, and an array of class references has the same representation whatever its
    /// static element class. `nil` when `T` is not such a class (the caller casts one by one).
    /// `classes`, when given, are the objects' classes as noted while they were registered: one
    /// class then takes one check, without reading every object's class again (a cache miss
    /// each on a large fetch).
    static func typedObjects<T>(_ objects: [ManagedObject], as type: T.Type, classes: ObjectClasses? = nil) -> [T]? {
        if T.self == ManagedObject.self { return unsafeBitCast(objects, to: [T].self) }
        guard T.self is ManagedObject.Type else { return nil }
        if let classes, classes.isUniform {
            guard let sole = classes.sole else { return [] }
            return sole is T.Type ? unsafeBitCast(objects, to: [T].self) : nil
        }
        var lastChecked: ObjectIdentifier?
        for object in objects {
            let objectClass = Swift.type(of: object)
            if ObjectIdentifier(objectClass) == lastChecked { continue }
            guard objectClass is T.Type else { return nil }
            lastChecked = ObjectIdentifier(objectClass)
        }
        return unsafeBitCast(objects, to: [T].self)
    }

    /// The number of objects `request` would return (limit and offset included), without
    /// loading any rows. Call on the context's queue.
    public func count<T>(for request: FetchRequest<T>) throws -> Int {
        checkAccess("count(for:)")
        let entity = try resolveEntity(of: request)
        return try StrataTrace.span(
            "count", .fetch, detail: entity.name, arguments: Self.traceArguments(of: request), outcome: { $1.append(.number("count", $0)) },
            body: {
                let plan = try makePlan(request, entity: entity, kind: .count)
                if request.includesPendingChanges, hasPendingChanges(for: plan) {
                    return try mergedIDs(plan, request: request).count
                }
                return try requireParentStore().count(plan, options: .default)
            })
    }

    func resolveEntity<T>(of request: FetchRequest<T>) throws -> EntityDescription {
        if let entity = request.entity { return entity }
        guard let model else {
            throw StrataError(code: StrataError.Code.coreData, message: "\(self) has no persistent store coordinator")
        }
        if let name = request.entityName, let entity = model.entitiesByName[name] { return entity }
        if let type = request.entityClass, let entity = model.entity(forClass: type) { return entity }
        let name = request.entityName ?? "nil"
        throw StrataError(code: StrataError.Code.coreData, message: "The model has no entity named '\(name)'", entityName: name)
    }

    func makePlan<T>(_ request: FetchRequest<T>, entity: EntityDescription, kind: FetchPlan.ResultKind) throws -> FetchPlan {
        try FetchPlan.make(
            entity: entity, predicate: request.predicate, sortDescriptors: request.sortDescriptors ?? [],
            limit: request.fetchLimit, offset: request.fetchOffset, includesSubentities: request.includesSubentities,
            resultKind: kind)
    }

    /// Whether unsaved changes touch the fetched entities.
    func hasPendingChanges(for plan: FetchPlan) -> Bool {
        if !state.work.hasChanges { return false }
        let codes = Set(plan.entityCodes)
        for set in [state.work.inserted, state.work.updated, state.work.deleted] {
            for object in set where codes.contains(object.entity.layout.code) { return true }
        }
        return false
    }

    // MARK: Objects

    /// The objects `request` finds, with their classes when the rows' registration noted them.
    private func fetchObjects<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> (objects: [ManagedObject], classes: ObjectClasses?) {
        let batched = request.fetchBatchSize > 0
        let idsOnly = batched || !request.includesPropertyValues
        let plan = try makePlan(request, entity: entity, kind: idsOnly ? .objectIDs : .rows)
        let parent = try requireParentStore()
        var objects: [ManagedObject]
        var classes: ObjectClasses?
        if request.includesPendingChanges, hasPendingChanges(for: plan) {
            objects = try mergedObjects(plan, options: .default)
            // Store rows are judged as faults; the results are realised when the request asks
            // for objects with their values (Core Data's `returnsObjectsAsFaults = false`).
            if !request.returnsObjectsAsFaults && !idsOnly { realise(objects) }
        } else if idsOnly {
            let ids = try parent.fetchIDs(plan, options: .default)
            objects = ids.map { registeredOrFault($0) }
            if batched { FaultBatch.link(objects, ids: ids, size: request.fetchBatchSize) }
        } else {
            let rows = try parent.fetchRows(plan, options: .default)
            var noted = ObjectClasses()
            objects = register(rows, asFault: request.returnsObjectsAsFaults, refresh: request.shouldRefreshRefetchedObjects, classes: &noted)
            classes = noted
        }
        if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
            try prefetch(keyPaths, for: objects)
        }
        return (objects, classes)
    }

    /// The registered objects for the rows of one fetch, in the rows' order. A large fetch's rows
    /// were decoded before and no longer sit in the caches: each row is asked for some places
    /// ahead (``Prefetch``), where its first touch (its reference count, its ID) was a tenth of
    /// fetching a million rows. Each row's copy is
    /// handed on to its object (`consume`) instead of being retained once more, and the results
    /// are written in place instead of appended (appending to an array of class references calls
    /// the standard library's unspecialized entry points, which retain and release each element).
    /// Each object's class is noted in `classes` while the object is in the caches.
    func register(_ rows: [RowSnapshot], asFault: Bool, refresh: Bool, classes: inout ObjectClasses) -> [ManagedObject] {
        // Not for no rows: with capacity 0 the initializer writes the count of the standard
        // library's shared empty-array storage, a write other threads race with (ThreadSanitizer
        // reported it in the stress run).
        guard !rows.isEmpty else { return [] }
        var entityClasses = EntityClassCache()
        return rows.withUnsafeBufferPointer { rows in
            [ManagedObject](unsafeUninitializedCapacity: rows.count) { objects, initialized in
                for index in rows.indices {
                    Prefetch.object(in: rows, at: index &+ Prefetch.distance)
                    let object = register(rows[index], asFault: asFault, refresh: refresh, entityClasses: &entityClasses)
                    classes.note(object)
                    objects.initializeElement(at: initialized, to: object)
                    initialized += 1
                }
            }
        }
    }

    /// The registered object for a fetched row, filled (or given the row to fire from).
    func register(_ row: consuming RowSnapshot, asFault: Bool, refresh: Bool) -> ManagedObject {
        var entityClasses = EntityClassCache()
        return register(row, asFault: asFault, refresh: refresh, entityClasses: &entityClasses)
    }

    /// ``register(_:asFault:refresh:)``, with the class of a new object's entity taken from
    /// `entityClasses` (a run of one entity's rows looks it up once).
    @inline(__always)
    private func register(_ row: consuming RowSnapshot, asFault: Bool, refresh: Bool, entityClasses: inout EntityClassCache) -> ManagedObject {
        // One copy of the row's ID (a retain of its space) serves the look-up and the new object.
        let id = row.objectID
        if let existing = findRegistered(id) {
            if existing.isFaultStorage {
                existing.snapshot = copy row
                existing.faultBatch = nil
                if !asFault { existing.loadValues(from: row) }
            } else if refresh && existing.change == .none {
                existing.loadValues(from: row)
            }
            return existing
        }
        // Moved, not copied: the entity into the object (`init` takes it), and the look-up's
        // copy of the ID into the object's (no retain and release of either).
        let entity = row.entity
        let object = entityClasses.objectClass(of: entity).init(entity: consume entity, insertInto: nil)
        object.objectID = consume id
        attach(object)
        if asFault {
            object.isFaultStorage = true
            object.snapshot = row
        } else {
            object.loadValues(from: row)
        }
        return object
    }

    /// Gives every fault among `objects` that holds its row (a fetch gave it one) its values.
    func realise(_ objects: [ManagedObject]) {
        for object in objects where object.isFaultStorage {
            if let row = object.snapshot { object.loadValues(from: row) }
        }
    }

    /// Fetches with the context's unsaved changes merged in: store rows that changed here are
    /// re-evaluated in memory, deleted ones dropped, matching inserted ones added; then sort,
    /// offset and limit apply to the merged list. The store rows are read with `options`.
    func objects(matching plan: FetchPlan, options: ReadOptions) throws -> [ManagedObject] { try mergedObjects(plan, options: options) }

    func mergedObjects(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObject] {
        let storeRows = try requireParentStore().fetchRows(overlayReadPlan(plan).plan, options: options)
        return try mergePendingChanges(into: storeRows, plan: plan)
    }

    /// The store read of a fetch that merges unsaved changes: the rows of `plan` without its
    /// offset, and with its limit widened by the objects changed here (those rows may drop out
    /// in memory). `changedHere` is that number: the rows read stay enough for a merge while no
    /// more objects of the plan's entities are changed. Call on the context's queue.
    func overlayReadPlan(_ plan: FetchPlan) -> (plan: FetchPlan, changedHere: Int) {
        let changedHere = changedObjectCount(for: plan)
        let window = plan.limit > 0 ? plan.limit + plan.offset + changedHere : 0
        return (plan.with(limit: window, offset: 0).with(resultKind: .rows), changedHere)
    }

    /// The updated and deleted objects of the plan's entities.
    func changedObjectCount(for plan: FetchPlan) -> Int {
        let codes = Set(plan.entityCodes)
        var changedHere = 0
        for set in [state.work.updated, state.work.deleted] {
            for object in set where codes.contains(object.entity.layout.code) { changedHere += 1 }
        }
        return changedHere
    }

    /// The results of `plan` from the store rows of its ``overlayReadPlan(_:)`` and the
    /// unsaved changes: the rows are registered (as faults), rows of objects changed here
    /// judged with their unsaved values, matching inserted objects added; then sort, offset and
    /// limit apply. Call on the context's queue.
    func mergePendingChanges(into storeRows: [RowSnapshot], plan: FetchPlan) throws -> [ManagedObject] {
        let codes = Set(plan.entityCodes)
        var candidates: [any EvaluationRow] = []
        var seen = Set<ObjectIdentifier>()
        for row in storeRows {
            let object = register(row, asFault: true, refresh: false)
            if object.change != .none { continue }  // judged below with its unsaved values
            if seen.insert(ObjectIdentifier(object)).inserted { candidates.append(object) }
        }
        for set in [state.work.inserted, state.work.updated] {
            for object in set where codes.contains(object.entity.layout.code) {
                guard object.change != .deleted, try plan.matches(object), seen.insert(ObjectIdentifier(object)).inserted else { continue }
                candidates.append(object)
            }
        }
        var ordered: [any EvaluationRow]
        if plan.sorts.isEmpty {
            ordered = candidates.sorted { FetchPlan.idOrder($0.evaluationObjectID, $1.evaluationObjectID) }
        } else {
            ordered = try plan.sortRows(candidates)
        }
        return plan.window(ordered).compactMap { $0 as? ManagedObject }
    }

    // MARK: IDs

    private func fetchIDs<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> [ManagedObjectID] {
        let plan = try makePlan(request, entity: entity, kind: .objectIDs)
        if request.includesPendingChanges, hasPendingChanges(for: plan) {
            return try mergedIDs(plan, request: request)
        }
        return try requireParentStore().fetchIDs(plan, options: .default)
    }

    private func mergedIDs<T>(_ plan: FetchPlan, request: FetchRequest<T>) throws -> [ManagedObjectID] {
        try mergedObjects(plan.with(resultKind: .rows), options: .default).map(\.objectID)
    }
}
