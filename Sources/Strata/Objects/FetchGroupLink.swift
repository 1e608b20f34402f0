/// What a managed object shares with the other objects of one fetch, in one field of the object
/// (a pointer: the two cases and `nil` fit in its spare bits). The two uses never overlap in
/// time: a fault batch serves an object only while it is a fault, prefetched targets only once
/// it has its values (a prefetch fires its owners first; turning an object back into a fault
/// drops its targets). Used only on the object's context's queue, like the object.
enum FetchGroupLink {
    /// The object is a fault of a batched fetch: firing it loads its batch.
    case faultBatch(FaultBatch)
    /// The object owns objects that a prefetch loaded: they stay alive while it does.
    case prefetched(PrefetchedTargets)
}

/// The IDs of one batch of a batched fetch, shared by the faults of that batch: firing one of
/// them loads the values of the batch's objects in one query. One per batch rather than one per
/// fetch, so that an object needs no index of its own into the fetch's IDs (the batches share
/// the fetch's ID array through their slices).
final class FaultBatch {
    let ids: ArraySlice<ManagedObjectID>
    init(ids: ArraySlice<ManagedObjectID>) { self.ids = ids }

    /// Links each fault of `objects` (the objects of a batched fetch, in the order of `ids`, the
    /// fetch's IDs) to the batch of `size` IDs it belongs to. Batches without a fault are not
    /// made. On the objects' context's queue.
    static func link(_ objects: [ManagedObject], ids: [ManagedObjectID], size: Int) {
        let size = max(1, size)
        let count = min(objects.count, ids.count)
        var start = 0
        while start < count {
            let end = min(count, start + size)
            var batch: FaultBatch?
            for index in start..<end where objects[index].isFaultStorage {
                let shared = batch ?? FaultBatch(ids: ids[start..<end])
                batch = shared
                objects[index].faultBatch = shared
            }
            start = end
        }
    }
}

/// The targets one prefetch step loaded (`Context/ManagedObjectContext+Prefetch.swift`), held
/// by every owner of that step: one array for the whole step instead of a side record and an
/// array per owner. A target therefore stays alive while any owner of its step does, not only
/// while the owners that reference it do.
final class PrefetchedTargets {
    var objects: [ManagedObject] = []
}

extension ManagedObject {
    /// The object's fault batch (see ``FetchGroupLink/faultBatch(_:)``), or nil. Setting nil
    /// clears a fault batch only: prefetched targets the object holds stay.
    var faultBatch: FaultBatch? {
        @inline(__always) get {
            if case .faultBatch(let batch)? = groupLink { return batch }
            return nil
        }
        set {
            if let newValue {
                groupLink = .faultBatch(newValue)
            } else if case .faultBatch? = groupLink {
                groupLink = nil
            }
        }
    }

    /// Makes the object hold `targets` (all of one prefetch step's targets), when it holds no
    /// other step's. Returns false when it cannot: the object is a fault (its batch link may
    /// still serve it) or holds an earlier step's targets; the caller then keeps this object's
    /// own targets in ``prefetchedObjects``.
    func holdPrefetched(_ targets: PrefetchedTargets) -> Bool {
        switch groupLink {
        case .prefetched(let held)?:
            return held === targets
        case .faultBatch?, nil:
            if isFaultStorage { return false }
            groupLink = .prefetched(targets)
            return true
        }
    }

    /// Lets go of every prefetched object the object holds (its own and its step's).
    func forgetPrefetchedObjects() {
        prefetchedObjects = []
        if case .prefetched? = groupLink { groupLink = nil }
    }
}
