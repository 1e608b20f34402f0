import Dispatch
import Foundation

/// What a row snapshot holds besides its attribute values (see ``RowSnapshot``). Written only
/// while the snapshot is made, or while it is a draft (``RowSnapshot/publish(objectID:version:fetchedAt:toOne:)``).
struct RowSnapshotHeader {
    /// The object the values belong to.
    var objectID: ManagedObjectID
    /// The row version (optimistic-locking counter); 0 for objects never saved.
    var version: Int64
    /// When the values were read from the store (monotonic nanoseconds), for `stalenessInterval`.
    var fetchedAt: UInt64
    /// How many attribute values follow the header.
    let count: Int
    /// How many to-one targets follow the attribute values (0 in a draft).
    var toOneCount: Int
}

/// One object's stored values at one version, as Strata keeps them: what a built-in store
/// returns for a row, and the snapshot a context keeps of what its parent store (the
/// coordinator, or a parent context) last reported. The attribute values (in stored form, in
/// the slot order of the entity's layout) and its to-one targets (by to-one slot) live in the
/// same allocation as the rest, so a fetched row costs one allocation; an object reads its
/// snapshot's values and targets until its first change of them (``StoredValues``,
/// ``ToOneValues``).
///
/// Immutable once made, so `Sendable`: snapshots cross queues when a context fetches, fires a
/// fault or merges a save. Stores outside Strata see it wrapped in the public
/// ``IncrementalStoreNode``.
///
/// A *draft* is a snapshot-shaped buffer an object's changed values live in (``StoredValues``
/// makes one at the first change): values only, with room for the entity's to-one targets.
/// A save that finds it the only holder of its draft publishes it as the object's new
/// snapshot, writing the header and the targets in place, instead of copying the values into a
/// new snapshot.
final class RowSnapshot: @unchecked Sendable {
    // `@unchecked`: the class has no stored properties; its header and values live in the
    // memory `ManagedBufferPointer` allocates with it, and nothing writes them after `make`,
    // except in a draft, which one `StoredValues` holds alone (it checks
    // `isKnownUniquelyReferenced` before each write) until a save publishes it.
    // (A `ManagedBuffer` subclass cannot be `Sendable`: the standard library marks that
    // conformance unavailable.)
    private typealias Storage = ManagedBufferPointer<RowSnapshotHeader, StoredValue>

    /// The elements after the `count` attribute values that hold `toOneCount` to-one targets
    /// (the tail is typed as values; the targets' part is bound to their type in `make`).
    @inline(__always) private static func toOneElements(_ toOneCount: Int) -> Int {
        if toOneCount == 0 { return 0 }
        let bytes = toOneCount * MemoryLayout<ManagedObjectID?>.stride
        return (bytes + MemoryLayout<StoredValue>.stride - 1) / MemoryLayout<StoredValue>.stride
    }

    /// A snapshot whose `count` attribute values and `toOneCount` to-one targets `initialize`
    /// initializes, each exactly once, through the two pointers it is given (values, targets).
    @inline(__always)
    static func make(
        objectID: ManagedObjectID, version: Int64, fetchedAt: UInt64 = now(), count: Int, toOneCount: Int,
        initializing initialize: (UnsafeMutablePointer<StoredValue>, UnsafeMutablePointer<ManagedObjectID?>) -> Void
    ) -> RowSnapshot {
        // The targets sit in the values' tail: their alignment must not exceed a value's.
        assert(MemoryLayout<ManagedObjectID?>.alignment <= MemoryLayout<StoredValue>.alignment)
        let storage = Storage(bufferClass: RowSnapshot.self, minimumCapacity: count + toOneElements(toOneCount)) { object, _ in
            Storage(unsafeBufferObject: object).withUnsafeMutablePointerToElements { values in
                let targets = UnsafeMutableRawPointer(values + count).bindMemory(to: ManagedObjectID?.self, capacity: toOneCount)
                initialize(values, targets)
            }
            return RowSnapshotHeader(objectID: objectID, version: version, fetchedAt: fetchedAt, count: count, toOneCount: toOneCount)
        }
        return unsafeDowncast(storage.buffer, to: RowSnapshot.self)
    }

    /// A draft of `objectID`'s `count` attribute values, which `initialize` initializes, with
    /// room for `toOneCapacity` to-one targets (see ``publish(objectID:version:fetchedAt:toOne:)``).
    @inline(__always)
    static func draft(
        objectID: ManagedObjectID, version: Int64, count: Int, toOneCapacity: Int, initializing initialize: (UnsafeMutablePointer<StoredValue>) -> Void
    ) -> RowSnapshot {
        let storage = Storage(bufferClass: RowSnapshot.self, minimumCapacity: count + toOneElements(toOneCapacity)) { object, _ in
            Storage(unsafeBufferObject: object).withUnsafeMutablePointerToElements(initialize)
            return RowSnapshotHeader(objectID: objectID, version: version, fetchedAt: 0, count: count, toOneCount: 0)
        }
        return unsafeDowncast(storage.buffer, to: RowSnapshot.self)
    }

    /// A draft of `source`'s attribute values (a snapshot or another draft), with room for as
    /// many to-one targets as its entity has.
    static func draft(copyingValuesOf source: RowSnapshot) -> RowSnapshot {
        let count = source.valueCount
        return source.withValues { values in
            draft(objectID: source.objectID, version: source.version, count: count, toOneCapacity: source.entity.layout.toOneRelationships.count) {
                $0.initializeElementwise(from: values, count: count)
            }
        }
    }

    /// Makes this draft the snapshot of `objectID` at `version`, read at `fetchedAt`, with
    /// `toOne`'s targets after its values, in place. Returns `false`, changing nothing, when it
    /// has no room for them or was published before. Only for a draft its caller holds the only
    /// reference to (on the queue of the context of the object whose values it held).
    func publish(objectID: ManagedObjectID, version: Int64, fetchedAt: UInt64, toOne: ToOneValues) -> Bool {
        let storage = Storage(unsafeBufferObject: self)
        let capacity = storage.capacity
        return storage.withUnsafeMutablePointers { header, values in
            let count = header.pointee.count
            let toOneCount = toOne.count
            guard header.pointee.toOneCount == 0, count + Self.toOneElements(toOneCount) <= capacity else { return false }
            toOne.copyInitialize(into: UnsafeMutableRawPointer(values + count).bindMemory(to: ManagedObjectID?.self, capacity: toOneCount))
            header.pointee.objectID = objectID
            header.pointee.version = version
            header.pointee.fetchedAt = fetchedAt
            header.pointee.toOneCount = toOneCount
            return true
        }
    }

    /// A snapshot of `attributes` and `toOne` (copied into it).
    static func make(objectID: ManagedObjectID, version: Int64, attributes: StoredValues, toOne: ToOneValues, fetchedAt: UInt64 = now()) -> RowSnapshot {
        make(objectID: objectID, version: version, fetchedAt: fetchedAt, count: attributes.count, toOneCount: toOne.count) { values, targets in
            attributes.copyInitialize(into: values)
            toOne.copyInitialize(into: targets)
        }
    }

    deinit {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointers { header, values in
            let count = header.pointee.count
            UnsafeMutableRawPointer(values + count).assumingMemoryBound(to: ManagedObjectID?.self).deinitializeElementwise(count: header.pointee.toOneCount)
            values.deinitializeElementwise(count: count)
            header.deinitialize(count: 1)
        }
    }

    /// The header, read in place.
    @inline(__always) private var header: RowSnapshotHeader { Storage(unsafeBufferObject: self).header }

    /// Calls `body` with the first attribute value (``valueCount`` of them follow).
    @inline(__always)
    func withValues<Result>(_ body: (UnsafeMutablePointer<StoredValue>) -> Result) -> Result {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointerToElements(body)
    }

    /// Calls `body` with the first to-one target (``toOneCount`` of them follow).
    @inline(__always)
    func withToOnes<Result>(_ body: (UnsafeMutablePointer<ManagedObjectID?>) -> Result) -> Result {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointers { header, values in
            body(UnsafeMutableRawPointer(values + header.pointee.count).assumingMemoryBound(to: ManagedObjectID?.self))
        }
    }

    /// The object the values belong to.
    var objectID: ManagedObjectID { header.objectID }
    /// The row version (optimistic-locking counter); 0 for objects never saved.
    var version: Int64 { header.version }
    /// To-one relationship targets, by to-one slot (sharing this snapshot's storage).
    @inline(__always) var toOne: ToOneValues { ToOneValues(row: self) }
    /// How many to-one targets the snapshot holds.
    @inline(__always) var toOneCount: Int { header.toOneCount }
    /// When the values were read from the store (monotonic nanoseconds), for `stalenessInterval`.
    var fetchedAt: UInt64 { header.fetchedAt }
    /// How many attribute values the snapshot holds.
    @inline(__always) var valueCount: Int { header.count }
    /// The stored attribute values, by attribute slot (sharing this snapshot's storage).
    @inline(__always) var attributes: StoredValues { StoredValues(row: self) }
    /// The entity of the object.
    var entity: EntityDescription { header.objectID.entity }

    /// The value in attribute slot `slot` (which must be below ``valueCount``).
    @inline(__always)
    func value(at slot: Int) -> StoredValue {
        withValues { $0[slot] }
    }

    /// The target in to-one slot `slot` (which must be below ``toOneCount``).
    @inline(__always)
    func toOne(at slot: Int) -> ManagedObjectID? {
        withToOnes { $0[slot] }
    }

    /// The monotonic clock snapshots are stamped with.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the snapshot is young enough for a context with `stalenessInterval` (negative:
    /// any age; 0: never reuse). The clock is read only for a non-negative interval: a context's
    /// default is −1, and every fault a fetch left with its row asks this when it fires.
    @inline(__always)
    func isFresh(stalenessInterval: TimeInterval) -> Bool {
        stalenessInterval < 0 || isFresh(stalenessInterval: stalenessInterval, now: Self.now())
    }

    /// Whether the snapshot is young enough at `now` (a reading of ``now()``): for loops that
    /// check many snapshots against one clock reading.
    @inline(__always)
    func isFresh(stalenessInterval: TimeInterval, now: UInt64) -> Bool {
        if stalenessInterval < 0 { return true }
        let age = Double(now &- fetchedAt) / 1_000_000_000
        return age <= stalenessInterval
    }

    /// A printable `[key: value]` rendering, used in conflict reports.
    func printable() -> [String: String] {
        var result: [String: String] = [:]
        let layout = entity.layout
        for (slot, attribute) in layout.storedAttributes.enumerated() where slot < valueCount {
            result[attribute.name] = AttributeCodec.decode(value(at: slot), for: attribute).map { String(describing: $0) } ?? "nil"
        }
        for (slot, relationship) in layout.toOneRelationships.enumerated() where slot < toOneCount {
            result[relationship.name] = toOne(at: slot).map { $0.uriRepresentation().absoluteString } ?? "nil"
        }
        return result
    }
}
