import Foundation

/// Loading an object's values from its row: what a fetch, a fired fault, a refresh or a merge
/// does to the object itself.
extension ManagedObject {
    /// Loads the values of a fault.
    @inline(__always) func fireFaultIfNeeded() {
        if isFaultStorage { fireFault() }
    }

    /// Loads a fault's values: from the row its fetch left it when the context accepts that
    /// row's age (``ObjectRegistry/stalenessInterval``), without a call into the context, else
    /// through the context (the row cache or the store; `Context/ManagedObjectContext+ObjectLink.swift`).
    /// A call into the context retains it, and that retain takes the runtime's slow path (see
    /// ``ObjectChangeRecorder``); a fault fired here pays none. `awakeFromFetch()` runs with
    /// the object and its registry held, not the context. On the object's context's queue.
    @inline(never) func fireFault() {
        if let registry, registry.hasOwner, loadHeldRow(ifFreshFor: registry.stalenessInterval) { return }
        link?.fulfillFault(of: self)
    }

    /// Loads the row the object holds (the one its fetch, a batch load or a prefetch left it)
    /// when that row's age is within `stalenessInterval` (negative: any age), and says whether
    /// it did. Both ways of firing a fault start here: ``fireFault()`` and the context's
    /// `loadFault` (`Context/ManagedObjectContext+ObjectLink.swift`). On the object's context's queue.
    @inline(__always) func loadHeldRow(ifFreshFor stalenessInterval: TimeInterval) -> Bool {
        guard let row = snapshot, row.isFresh(stalenessInterval: stalenessInterval) else { return false }
        loadValues(from: row)
        return true
    }

    /// Loads `row` (the object's row as its parent store reported it) into the object, which
    /// stops being a fault, and calls `awakeFromFetch()`. Transient values stay as they are (a
    /// refresh resets them: see `ManagedObjectContext.refresh(_:mergeChanges:)`). On the
    /// object's context's queue.
    func loadValues(from row: consuming RowSnapshot) {
        let layout = entity.layout
        attributeValues = row.attributes
        toOneValues = layout.toOnes(row.toOne, keepingTransientOf: toOneValues)
        // The row's last use: moved in (a fetch hands over its own reference), except when the
        // object holds it already (a fault firing from its row keeps that reference).
        if snapshot !== row { snapshot = consume row }
        // A fault keeps the to-manys loaded while it was a fault (they are as fresh as its row);
        // an unchanged object given new values forgets them (they load again on next use),
        // except transient ones, which no store holds. (An object without a record of to-many
        // contents has none loaded: nothing to forget.)
        if let lists = toManyLists, change == .none && !isFaultStorage {
            forgetToManyContents(keepingTransientOf: lists, layout: layout)
        }
        // Transient attributes start at their defaults the first time an object gets values
        // (a fetched object or a fired fault); later loads keep them, as refreshes reset them.
        if layout.transientAttributes.count != 0 && transientValues.count != layout.transientAttributes.count {
            transientValues = layout.transientDefaults
        }
        forgetFetchedValues()
        isFaultStorage = false
        // A fault changed through its relationships only (their edits wait in `pendingToMany`)
        // keeps its change marks.
        if change == .none { changedMask.removeAll() }
        awakeFromFetch()
    }

    /// Drops the to-many contents `lists` (the object's record) holds, except those of
    /// transient to-manys.
    private func forgetToManyContents(keepingTransientOf lists: ToManyLists, layout: EntityLayout) {
        guard !layout.transientToManySlots.isEmpty else {
            toManyLists = nil
            return
        }
        var toMany = ToManyValue.unloadedList(count: layout.toManyRelationships.count)
        var committed = toMany
        for slot in layout.transientToManySlots {
            toMany[slot] = slot < lists.current.count ? lists.current[slot] : nil
            committed[slot] = slot < lists.committed.count ? lists.committed[slot] : nil
        }
        toManyLists = ToManyLists(current: toMany, committed: committed)
    }
}
