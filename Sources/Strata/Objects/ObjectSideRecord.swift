/// The state of a managed object that most objects never use, kept out of the object itself so
/// that a fetched object is one small allocation: it is created the first time one of these is
/// set to something other than empty, and the object's properties of the same names
/// (``ManagedObject/pendingToMany`` and the others below) read it, or an empty value without it.
/// Used only on the object's context's queue, like the object.
final class ObjectSideRecord {
    /// Edits of to-manys made while they were not loaded, by to-many slot (see ``ToManyDelta``).
    /// Only meaningful while the object is changed; applied when the contents load.
    var pendingToMany: [Int: ToManyDelta] = [:]
    /// Transient attribute values, by transient slot.
    var transientValues: [Any?] = []
    /// Fetched property results, computed on first access.
    var fetchedValues: [Int: [ManagedObject]] = [:]
    /// Problems recorded by APIs that cannot throw; reported by the next save.
    var recordedProblems: [StrataError] = []
    /// Objects loaded for this one by relationship prefetching, kept alive as long as it is (as
    /// Core Data's fired relationships keep theirs), so they fire without I/O — when the
    /// object could not hold its prefetch step's shared targets (see `FetchGroupLink`).
    var prefetchedObjects: [ManagedObject] = []
    /// The change mask's words past its first (``ManagedObject/changedMask``): only for entities
    /// of more than 64 properties.
    var changedOverflow: [UInt64] = []
    /// On a key-path probe only (`Objects/KeyPathKeys.swift`): the key paths of the wrapped
    /// properties read so far; nil on every other object.
    var probedKeyPaths: [AnyKeyPath]?
}

extension ManagedObject {
    /// Notes that the property at `keyPath` is being read, when the object is a key-path probe
    /// (a no-op on every other object: one check of the side record).
    @usableFromInline
    func recordProbedKeyPath(_ keyPath: AnyKeyPath) {
        guard let record = sideRecord, record.probedKeyPaths != nil else { return }
        record.probedKeyPaths?.append(keyPath)
    }

    /// Makes this object a key-path probe (see ``recordProbedKeyPath(_:)``).
    func startProbingKeyPaths() {
        let record = sideRecord ?? ObjectSideRecord()
        record.probedKeyPaths = []
        sideRecord = record
    }
}

extension ManagedObject {
    /// The side record, created if the object has none yet.
    private var ensuredSideRecord: ObjectSideRecord {
        if let sideRecord { return sideRecord }
        let created = ObjectSideRecord()
        sideRecord = created
        return created
    }

    /// Whether the object holds edits of unloaded to-manys (without copying them).
    var hasPendingToManyEdits: Bool { sideRecord.map { !$0.pendingToMany.isEmpty } ?? false }

    /// Edits of to-manys made while they were not loaded (see ``ObjectSideRecord``).
    var pendingToMany: [Int: ToManyDelta] {
        get { sideRecord?.pendingToMany ?? [:] }
        _modify {
            let record = ensuredSideRecord
            yield &record.pendingToMany
        }
        set {
            if newValue.isEmpty && sideRecord == nil { return }
            ensuredSideRecord.pendingToMany = newValue
        }
    }

    /// Transient attribute values (see ``ObjectSideRecord``).
    var transientValues: [Any?] {
        get { sideRecord?.transientValues ?? [] }
        _modify {
            let record = ensuredSideRecord
            yield &record.transientValues
        }
        set {
            if newValue.isEmpty && sideRecord == nil { return }
            ensuredSideRecord.transientValues = newValue
        }
    }

    /// Fetched property results (see ``ObjectSideRecord``).
    var fetchedValues: [Int: [ManagedObject]] {
        get { sideRecord?.fetchedValues ?? [:] }
        _modify {
            let record = ensuredSideRecord
            yield &record.fetchedValues
        }
        set {
            if newValue.isEmpty && sideRecord == nil { return }
            ensuredSideRecord.fetchedValues = newValue
        }
    }

    /// Drops the fetched properties' results, so they are computed again on next access; does
    /// nothing (no empty dictionary made and stored) when the object has none, as nearly every
    /// object. On the object's context's queue.
    @inline(__always) func forgetFetchedValues() {
        if let record = sideRecord, !record.fetchedValues.isEmpty { record.fetchedValues = [:] }
    }

    /// Problems recorded for the next save (see ``ObjectSideRecord``).
    var recordedProblems: [StrataError] {
        get { sideRecord?.recordedProblems ?? [] }
        _modify {
            let record = ensuredSideRecord
            yield &record.recordedProblems
        }
        set {
            if newValue.isEmpty && sideRecord == nil { return }
            ensuredSideRecord.recordedProblems = newValue
        }
    }

    /// The change mask's words past its first (see ``ObjectSideRecord``).
    var changedOverflow: [UInt64] {
        @inline(__always) get { sideRecord?.changedOverflow ?? [] }
        set {
            if newValue.isEmpty && sideRecord == nil { return }
            ensuredSideRecord.changedOverflow = newValue
        }
    }

    /// Objects prefetched for this one (see ``ObjectSideRecord``).
    var prefetchedObjects: [ManagedObject] {
        get { sideRecord?.prefetchedObjects ?? [] }
        _modify {
            let record = ensuredSideRecord
            yield &record.prefetchedObjects
        }
        set {
            if newValue.isEmpty && sideRecord == nil { return }
            ensuredSideRecord.prefetchedObjects = newValue
        }
    }
}
