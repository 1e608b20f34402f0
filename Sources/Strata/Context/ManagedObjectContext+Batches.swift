import Foundation

/// Loading the batches of batched walks: a batch of ``BatchedFetchResults`` and the batch the
/// faults of a `fetch` with `fetchBatchSize` fire in. All on the context's queue.
extension ManagedObjectContext {
    /// The objects at `positions` of `ids`, in order, with their values: registered objects
    /// stay as they are (unsaved changes included), faults get rows no older than the context's
    /// `stalenessInterval` (the one a fetch attached, else a row read now). The objects are
    /// found or created in one pass and the rows they lack come in one read (see
    /// ``loadBatch(_:)``); a row that is gone fires its fault as a single fault does. Call on
    /// the context's queue.
    func batchObjects(_ ids: ObjectIDList, positions: Range<Int>) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(positions.count)
        var needed: [ManagedObjectID] = []
        var neededObjects: [ManagedObject] = []
        let staleness = stalenessInterval
        for position in positions {
            let id = ids[position]
            let object = registeredOrFault(id)
            objects.append(object)
            guard object.isFaultStorage else { continue }
            if let snapshot = object.snapshot, snapshot.isFresh(stalenessInterval: staleness) { continue }
            if needed.isEmpty {
                needed.reserveCapacity(positions.count)
                neededObjects.reserveCapacity(positions.count)
            }
            needed.append(id)
            neededObjects.append(object)
        }
        var answered: [Bool] = []
        if !needed.isEmpty {
            do {
                answered = attachRows(try readBatch(needed), to: needed, neededObjects)
            } catch let error as StrataError {
                recordContextProblem(error)
            } catch {
                recordContextProblem(StrataError(code: StrataError.Code.coreData, message: "Loading a batch failed: \(error)"))
            }
        }
        // `neededObjects` is a subsequence of `objects`: walk both. A fault whose row did not
        // come (deleted since the IDs were fetched, or the read failed) fires on its own, as a
        // single fault does, never from the stale row it may hold.
        var next = 0
        for object in objects {
            if next < neededObjects.count, neededObjects[next] === object {
                let wasAnswered = next < answered.count && answered[next]
                next += 1
                guard object.isFaultStorage else { continue }
                if wasAnswered, let snapshot = object.snapshot { apply(snapshot, to: object) } else { fulfillFault(of: object) }
            } else if object.isFaultStorage {
                if let snapshot = object.snapshot { apply(snapshot, to: object) } else { fulfillFault(of: object) }
            }
        }
        return objects
    }

    /// Loads the rows of one batch of a batched walk in one read and attaches each to its
    /// registered fault, which then fires without I/O: the batch loader of a `fetch` with
    /// `fetchBatchSize` (see `loadFault`). Returns the rows read. Call on the context's queue.
    @discardableResult
    func loadBatch(_ ids: [ManagedObjectID]) throws -> [RowSnapshot] {
        let rows = try readBatch(ids)
        for row in rows {
            if let object = findRegistered(row.objectID), object.isFaultStorage {
                object.snapshot = row
                object.faultBatch = nil
            }
        }
        return rows
    }

    /// The rows of a batch, read now from the parent store: not from the row cache (a lookup
    /// per ID costs more than the range or `IN` read the store does for the whole batch, and a
    /// row read now is as fresh as any staleness interval asks and newer than any save this
    /// context merged) and not added to it (a walk reads each row once and releases it a batch
    /// later: caching would only add an entry per row and a purge behind the reader).
    private func readBatch(_ ids: [ManagedObjectID]) throws -> [RowSnapshot] {
        try requireParentStore().snapshots(for: ids, options: ReadOptions(rowCache: .doNotFill, maxAge: 0))
    }

    /// Gives each fault in `objects` (the registered objects of `ids`, in the same order) its
    /// row from `rows`, and returns which of them got one. Rows come in key order, mostly the
    /// order of `ids`: each is matched by a walk along `ids`, or by a registry lookup when it
    /// is out of step.
    private func attachRows(_ rows: [RowSnapshot], to ids: [ManagedObjectID], _ objects: [ManagedObject]) -> [Bool] {
        var answered = [Bool](repeating: false, count: ids.count)
        var next = 0
        var positions: [ObjectIdentifier: Int]?
        for row in rows {
            let index: Int?
            if next < ids.count, ids[next] == row.objectID {
                index = next
                next += 1
            } else {
                if positions == nil {
                    positions = Dictionary(objects.indices.map { (ObjectIdentifier(objects[$0]), $0) }, uniquingKeysWith: { first, _ in first })
                }
                index = findRegistered(row.objectID).flatMap { positions?[ObjectIdentifier($0)] }
            }
            guard let index, objects[index].isFaultStorage else { continue }
            objects[index].snapshot = row
            objects[index].faultBatch = nil
            answered[index] = true
        }
        return answered
    }
}
