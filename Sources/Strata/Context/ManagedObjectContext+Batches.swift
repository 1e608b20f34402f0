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
        // The faults whose rows must be read: their IDs, and where they are in `objects` (a
        // position, not a second reference to each object).
        var needed: [ManagedObjectID] = []
        var neededAt: [Int] = []
        let staleness = stalenessInterval
        let now = RowSnapshot.now()
        for position in positions {
            let id = ids[position]
            let object = registeredOrFault(id)
            objects.append(object)
            guard object.isFaultStorage else { continue }
            if let snapshot = object.snapshot, snapshot.isFresh(stalenessInterval: staleness, now: now) { continue }
            if needed.isEmpty {
                needed.reserveCapacity(positions.count)
                neededAt.reserveCapacity(positions.count)
            }
            needed.append(id)
            neededAt.append(objects.count - 1)
        }
        var answered: [Bool] = []
        if !needed.isEmpty {
            do {
                answered = attachRows(try readBatch(needed), to: needed, in: objects, at: neededAt)
            } catch let error as StrataError {
                recordContextProblem(error)
            } catch {
                recordContextProblem(StrataError(code: StrataError.Code.coreData, message: "Loading a batch failed: \(error)"))
            }
        }
        // A fault whose row did not come (deleted since the IDs were fetched, or the read
        // failed) fires on its own, as a single fault does, never from the stale row it may
        // hold; the others fire from the row they hold.
        var next = 0
        for index in objects.indices {
            let wasNeeded = next < neededAt.count && neededAt[next] == index
            let wasAnswered = wasNeeded && next < answered.count && answered[next]
            if wasNeeded { next += 1 }
            let object = objects[index]
            guard object.isFaultStorage else { continue }
            if !wasNeeded || wasAnswered, let snapshot = object.snapshot { object.loadValues(from: snapshot) } else { fulfillFault(of: object) }
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

    /// Gives each fault of `ids` its row from `rows` (the fault of `ids[i]` is
    /// `objects[positions[i]]`), and returns which of them got one. Rows come in key order,
    /// mostly the order of `ids`: each is matched by a walk along `ids`, or by a registry lookup
    /// when it is out of step.
    private func attachRows(_ rows: [RowSnapshot], to ids: [ManagedObjectID], in objects: [ManagedObject], at positions: [Int]) -> [Bool] {
        var answered = [Bool](repeating: false, count: ids.count)
        var next = 0
        var indexOfObject: [ObjectIdentifier: Int]?
        for row in rows {
            let index: Int?
            if next < ids.count, ids[next] == row.objectID {
                index = next
                next += 1
            } else {
                if indexOfObject == nil {
                    indexOfObject = Dictionary(positions.indices.map { (ObjectIdentifier(objects[positions[$0]]), $0) }, uniquingKeysWith: { first, _ in first })
                }
                index = findRegistered(row.objectID).flatMap { indexOfObject?[ObjectIdentifier($0)] }
            }
            guard let index else { continue }
            let object = objects[positions[index]]
            guard object.isFaultStorage else { continue }
            object.snapshot = row
            object.faultBatch = nil
            answered[index] = true
        }
        return answered
    }
}
