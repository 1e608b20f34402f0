import Foundation
import Synchronization

/// A context's identity map: at most one object per ID.
///
/// Entries do not retain their objects. A context keeps changed objects alive through its own
/// sets; an unchanged object lives only as long as the app holds it, and removes its entry when
/// it is deinitialized (on the context's queue, since objects never leave it). So a context
/// that walks a million rows does not keep them. Used only on its context's queue.
///
/// IDs are looked up by number in paged tables (`PrimaryKeyTable`), one per store and inheritance tree (the key
/// space of one SQLite table), plus one per inheritance tree for temporary IDs: primary keys and
/// temporary numbers are allocated densely, so a fetch of consecutive rows (or a loop of
/// inserts) registers into consecutive slots of a few pages instead of hashing each ID into a
/// large dictionary.
final class ObjectRegistry {
    /// The context whose identity map this is: what every registered object reaches as its
    /// `link`. Not `weak` (a weak load retains the context through its side table on every
    /// access, and objects reach their context on every change): the context sets it when it
    /// is created and clears it in its `deinit`, so it is never left dangling; objects
    /// themselves hold the registry, not the context.
    unowned(unsafe) var owner: (any ObjectContextLink)? {
        didSet { hasOwner = owner != nil }
    }
    /// Where an object's first change in an event is recorded (its context's unit of work and
    /// event list, see ``ObjectChangeRecorder``), without a call into the context itself. Set
    /// and cleared by the recorder, like ``owner``.
    unowned(unsafe) var changeRecorder: (any ObjectChangeRecorder)?
    /// The owner's `stalenessInterval` as a `Double`'s bits: a fault that holds the row its fetch
    /// left it reads it to fire from that row without calling the context
    /// (`ManagedObject.fireFault()`). Atomic, unlike the rest of the registry: the context's
    /// setter runs on any thread.
    private let stalenessBits = Atomic<UInt64>((-1.0).bitPattern)
    /// Whether the concurrency debug mode is on (``DebugSettings/concurrencyChecks``), read once
    /// here: a global `static let` is read through a call into the runtime on Linux
    /// (`swift_once`), and objects ask on every property access (`ManagedObject.checkAccess`).
    let checksAccess = DebugSettings.concurrencyChecks
    /// Whether the owner wants to hear of every value change, even of objects whose change
    /// state it does not alter (an observer of its unit of work is subscribed: an undo
    /// manager). When true, every write of a property value is also announced before it
    /// happens (`ManagedObject.willChange`), with the old value still in place. When false, a
    /// setter on an inserted object, or on an updated one whose update this event already
    /// noted, does not call the context (see `ManagedObject.markChanged`), and nothing is
    /// announced.
    ///
    /// The registry is confined to its context's queue and touched on every fetched, faulted
    /// or deallocated object: release builds skip the runtime's exclusivity checks on its
    /// fields (as on `ManagedObject`'s hot fields); debug builds keep them.
    #if DEBUG
    var reportsEveryValueChange = false
    /// Whether ``owner`` is set: an object whose context is gone does not fire its fault.
    private(set) var hasOwner = false
    private var tables: [KeySpace: PrimaryKeyTable] = [:]
    /// The tables of the last two ID spaces looked up (see `TableHint`).
    private var recent = TableHint()
    private var previous = TableHint()
    /// Number of registered objects.
    private(set) var count = 0
    #else
    @exclusivity(unchecked) var reportsEveryValueChange = false
    /// Whether ``owner`` is set: an object whose context is gone does not fire its fault.
    @exclusivity(unchecked) private(set) var hasOwner = false
    @exclusivity(unchecked) private var tables: [KeySpace: PrimaryKeyTable] = [:]
    @exclusivity(unchecked) private var recent = TableHint()
    @exclusivity(unchecked) private var previous = TableHint()
    /// Number of registered objects.
    @exclusivity(unchecked) private(set) var count = 0
    #endif

    /// The owner's `stalenessInterval` (negative: rows of any age will do). Thread-safe: read
    /// and set it from any thread.
    var stalenessInterval: TimeInterval {
        get { Double(bitPattern: stalenessBits.load(ordering: .relaxed)) }
        set { stalenessBits.store(newValue.bitPattern, ordering: .relaxed) }
    }

    /// The registered object for `id`, if any.
    @inline(__always) func object(for id: ManagedObjectID) -> ManagedObject? {
        existingTable(for: id)?._withUnsafeGuaranteedRef { $0.object(at: Self.number(of: id)) }
    }

    /// Registers `object` under its current ID (replacing any other object registered there).
    func register(_ object: ManagedObject) {
        let entry = Unmanaged.passUnretained(object)
        let number = Self.number(of: object.objectID)
        if table(for: object.objectID)._withUnsafeGuaranteedRef({ $0.set(entry, at: number) }) { count += 1 }
    }

    /// Removes the entry for `id` if it still points to `object`.
    func unregister(_ id: ManagedObjectID, ifItIs object: ManagedObject) {
        let entry = Unmanaged.passUnretained(object)
        if existingTable(for: id)?._withUnsafeGuaranteedRef({ $0.remove(at: Self.number(of: id), ifItIs: entry) }) == true { count -= 1 }
    }

    /// Removes the entry of an object being deinitialized (from `ManagedObject`'s `deinit`), if
    /// it still points to the object. Reads the object's ID in place instead of copying it.
    func unregister(deallocating object: ManagedObject) {
        let entry = Unmanaged.passUnretained(object)
        let number = Self.number(of: object.objectID)
        if existingTable(for: object.objectID)?._withUnsafeGuaranteedRef({ $0.remove(at: number, ifItIs: entry) }) == true { count -= 1 }
    }

    /// Moves `object` from `oldID` to its current ID (temporary → permanent).
    func rekey(_ object: ManagedObject, from oldID: ManagedObjectID) {
        unregister(oldID, ifItIs: object)
        register(object)
    }

    /// All registered objects (retained for the caller).
    var allObjects: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for table in tables.values {
            for entry in table.entries { result.append(entry.takeUnretainedValue()) }
        }
        return result
    }

    /// Forgets every entry; objects still alive keep working as detached objects. The tables
    /// stay, empty, with their storage (a context that resets after each fetch does not build
    /// them again).
    func removeAll() {
        for table in tables.values { table.removeAll() }
        count = 0
    }

    // MARK: Key spaces

    /// The objects one number identifies: a store (nil for temporary IDs, which never have one)
    /// and an inheritance tree (IDs of a subentity and of its root entity with the same number
    /// are equal, see `ManagedObjectID.==`).
    private struct KeySpace: Hashable {
        let store: ObjectIdentifier?
        let root: ObjectIdentifier
    }

    @inline(__always) private func space(of id: ManagedObjectID) -> KeySpace {
        KeySpace(store: id.store.map(ObjectIdentifier.init), root: id.entity.layout.rootIdentifier)
    }

    /// The primary key, or the temporary number (its bit pattern) of a temporary ID.
    @inline(__always) private static func number(of id: ManagedObjectID) -> Int64 {
        id.keyNumber
    }

    /// A table found for the IDs of one ID space (`Values/ObjectIDSpace.swift`): an ID of the
    /// same space needs no key space computed and no hashing. Two are kept, because a save
    /// alternates between temporary and permanent IDs (`rekey`) and a prefetch between owners
    /// and targets. The space is held strongly, so that its address cannot be reused by another
    /// space while it is compared. The table is not retained: `tables` holds every table for as
    /// long as the registry lives (it never removes one), and the look-ups on every fetched,
    /// faulted or deallocated object then neither retain nor release it.
    private struct TableHint {
        var idSpace: ObjectIDSpace?
        var keySpace: KeySpace?
        var table: Unmanaged<PrimaryKeyTable>?
    }

    /// The table of `id`'s space if one of the two hints has it (the hit becomes the recent one).
    @inline(__always) private func hintedTable(for id: ManagedObjectID) -> Unmanaged<PrimaryKeyTable>? {
        if id.space === recent.idSpace { return recent.table }
        if id.space === previous.idSpace {
            swap(&recent, &previous)
            return recent.table
        }
        return nil
    }

    private func remember(_ id: ManagedObjectID, _ keySpace: KeySpace, _ table: Unmanaged<PrimaryKeyTable>) {
        previous = recent
        recent = TableHint(idSpace: id.space, keySpace: keySpace, table: table)
    }

    /// The table of `keySpace` if a hint has it (IDs of two entities of one inheritance tree).
    private func table(hintedFor keySpace: KeySpace) -> Unmanaged<PrimaryKeyTable>? {
        if keySpace == recent.keySpace { return recent.table }
        if keySpace == previous.keySpace { return previous.table }
        return nil
    }

    /// The table of `id`'s key space, unretained (see `TableHint`), if it has one. The hinted
    /// case is inlined into its callers, which then read the ID in place.
    @inline(__always) private func existingTable(for id: ManagedObjectID) -> Unmanaged<PrimaryKeyTable>? {
        if let table = hintedTable(for: id) { return table }
        return unhintedExistingTable(for: id)
    }

    @inline(never) private func unhintedExistingTable(for id: ManagedObjectID) -> Unmanaged<PrimaryKeyTable>? {
        let space = space(of: id)
        guard let table = table(hintedFor: space) ?? tables[space].map(Unmanaged.passUnretained) else { return nil }
        remember(id, space, table)
        return table
    }

    /// The table of `id`'s key space, unretained (see `TableHint`), made if it has none. The
    /// hinted case is inlined into its callers, which then read the ID in place.
    @inline(__always) private func table(for id: ManagedObjectID) -> Unmanaged<PrimaryKeyTable> {
        if let table = hintedTable(for: id) { return table }
        return unhintedTable(for: id)
    }

    @inline(never) private func unhintedTable(for id: ManagedObjectID) -> Unmanaged<PrimaryKeyTable> {
        let space = space(of: id)
        if let table = table(hintedFor: space) ?? tables[space].map(Unmanaged.passUnretained) {
            remember(id, space, table)
            return table
        }
        let table = PrimaryKeyTable()
        tables[space] = table
        remember(id, space, Unmanaged.passUnretained(table))
        return Unmanaged.passUnretained(table)
    }
}
