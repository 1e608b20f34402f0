/// A save as the unit of work sees it: the change set it writes, and the state the parent
/// store's answer leaves behind. Used on the context's queue.
extension UnitOfWork {
    /// The objects a save of the current changes writes.
    var pendingObjects: SavedObjects {
        SavedObjects(inserted: inserted.objects, updated: updated.objects, deleted: deleted.objects)
    }

    /// The three sets' counts of mutations: two equal stamps mean no object joined or left a
    /// set in between, so a ``pendingObjects`` taken at the first still lists the sets.
    var changeStamp: ChangeStamp { ChangeStamp(inserted: inserted.mutations, updated: updated.mutations, deleted: deleted.mutations) }

    /// See ``changeStamp``.
    struct ChangeStamp: Equatable {
        let inserted: Int
        let updated: Int
        let deleted: Int
    }

    // MARK: The change set

    /// The stored form of the unsaved changes: one `RowChange` per inserted object (every
    /// attribute and to-one) and per updated object (only the changed slots, with the row
    /// version and values the changes were made against, for optimistic locking), one
    /// `RowDeletion` per deleted object, and the to-many edits of inserted and updated objects.
    /// Transient relationships are included (a parent context keeps them; the coordinator
    /// drops them before its stores, see `StoreChangeSet.removingTransientRelationships()`).
    /// Rows are in insertion order. O(changed objects + their changed values).
    ///
    /// `keepingBases`: whether updated and deleted rows carry the snapshot their changes were
    /// made against (``RowChange/base``), which only a parent context reads (a child's save
    /// into it); a save to the coordinator leaves them out, a retain and a release of a
    /// snapshot less per row.
    func makeChangeSet(keepingBases: Bool) -> StoreChangeSet {
        var changes = StoreChangeSet()
        changes.inserts.reserveCapacity(inserted.count)
        // Every slot of an inserted row is written: one pair of slot arrays per entity in a row.
        // (Kept in separate variables: a tuple of them was copied whole, each array retained,
        // for every row.)
        var insertLayout: EntityLayout?
        var insertAttributeSlots: [Int] = []
        var insertToOneSlots: [Int] = []
        for object in inserted {
            let layout = object.entity.layout
            if insertLayout !== layout {
                insertLayout = layout
                insertAttributeSlots = Array(0..<layout.storedAttributes.count)
                insertToOneSlots = Array(0..<layout.toOneRelationships.count)
            }
            changes.inserts.append(
                RowChange(
                    objectID: object.objectID, baseVersion: 0, attributes: object.attributeValues, toOne: object.toOneValues,
                    changedAttributeSlots: insertAttributeSlots, changedToOneSlots: insertToOneSlots))
            appendToManyChanges(of: object, to: &changes)
        }
        changes.updates.reserveCapacity(updated.count)
        // Updated objects mostly share one change shape (the same keys edited on each): the
        // slot arrays of the last shape are reused, so a row costs no arrays of its own and
        // the store finds its prepared UPDATE by an identity check.
        var updateLayout: EntityLayout?
        var updateMask = ChangeMask()
        var updateAttributeSlots: [Int] = []
        var updateToOneSlots: [Int] = []
        updated.forEachPrefetchingSavedState { object in
            let layout = object.entity.layout
            if updateLayout !== layout || updateMask != object.changedMask {
                updateLayout = layout
                updateMask = object.changedMask
                (updateAttributeSlots, updateToOneSlots) = Self.changedSlots(object.changedMask, layout: layout)
            }
            changes.updates.append(
                RowChange(
                    objectID: object.objectID, baseVersion: object.snapshot?.version ?? 0, attributes: object.attributeValues,
                    toOne: object.toOneValues, changedAttributeSlots: updateAttributeSlots, changedToOneSlots: updateToOneSlots,
                    base: keepingBases ? object.snapshot : nil))
            appendToManyChanges(of: object, to: &changes)
        }
        changes.deletes.reserveCapacity(deleted.count)
        for object in deleted {
            changes.deletes.append(RowDeletion(objectID: object.objectID, baseVersion: object.snapshot?.version ?? 0, base: keepingBases ? object.snapshot : nil))
        }
        return changes
    }

    /// The stored-attribute and to-one slots a change mask names (in increasing order).
    private static func changedSlots(_ mask: ChangeMask, layout: EntityLayout) -> (attributes: [Int], toOnes: [Int]) {
        var attributeSlots: [Int] = []
        var toOneSlots: [Int] = []
        let attributeCount = layout.storedAttributes.count
        let toOneStart = attributeCount + layout.transientAttributes.count
        for index in mask.indexes {
            if index < attributeCount {
                attributeSlots.append(index)
            } else if index >= toOneStart && index < toOneStart + layout.toOneRelationships.count {
                toOneSlots.append(index - toOneStart)
            }
        }
        return (attributeSlots, toOneSlots)
    }

    /// The to-many edits of `object`: what each loaded to-many gained and lost since it was
    /// loaded or saved (and its new order, for ordered ones). Unloaded to-manys are unchanged.
    private func appendToManyChanges(of object: ManagedObject, to changes: inout StoreChangeSet) {
        let layout = object.entity.layout
        for (slot, relationship) in layout.toManyRelationships.enumerated() {
            guard slot < object.toManyValues.count, let current = object.toManyValues[slot] else { continue }
            let committed = (slot < object.committedToMany.count ? object.committedToMany[slot] : nil) ?? ToManyValue()
            if current == committed && object.change != .inserted { continue }
            if current.count == 0 && committed.count == 0 { continue }
            let added = current.ids.filter { !committed.contains($0) }
            let removed = committed.ids.filter { !current.contains($0) }
            let orderChanged = relationship.isOrdered && current.ids != committed.ids
            guard !added.isEmpty || !removed.isEmpty || orderChanged else { continue }
            changes.toManyChanges.append(
                ToManyChange(
                    owner: object.objectID, relationship: relationship, added: added, removed: removed,
                    ordered: relationship.isOrdered ? current.ids : nil))
        }
    }

    // MARK: The save's result

    /// Applies a save the parent store accepted: inserted objects take their permanent IDs
    /// (rekeyed in the registry) and references to those IDs are rewritten; every saved inserted
    /// and updated object gets a new base snapshot of its current values (the row version the
    /// store returned, else the old one plus `versionIncrement`: 1 at a root save, 0 in a parent
    /// context) and its to-manys become committed; then every saved object becomes unchanged and
    /// deleted ones leave the context through `unlink` (see ``closeSaved(_:unlink:)``).
    /// `pending` is a ``pendingObjects`` the caller took earlier, with its ``changeStamp``.
    /// Returns the objects saved. O(saved objects).
    func applySave(_ result: StoreSaveResult, versionIncrement: Int64, pending: (objects: SavedObjects, stamp: ChangeStamp), unlink: (ManagedObject) -> Void) -> SavedObjects {
        // The caller's list of the sets, when they have not changed since it was taken.
        let saved = pending.stamp == changeStamp ? pending.objects : pendingObjects
        var permanentIDs = PermanentIDLookup(result)
        // New IDs first, so every reference below can be remapped. The change set listed the
        // inserts in this order, so each object mostly finds its ID at its own position.
        if !permanentIDs.isEmpty {
            for (position, object) in saved.inserted.enumerated() {
                let old = object.objectID
                if let permanent = permanentIDs.permanentID(ofInsertAt: position, temporary: old) {
                    object.objectID = permanent
                    registry.rekey(object, from: old)
                }
            }
        }
        // One clock reading for every new snapshot: they all hold what the store holds now.
        let now = RowSnapshot.now()
        Prefetch.forEach(saved.inserted) { commitValues(of: $0, permanentIDs: &permanentIDs, versionIncrement: versionIncrement, now: now) }
        Prefetch.forEach(saved.updated) { commitValues(of: $0, permanentIDs: &permanentIDs, versionIncrement: versionIncrement, now: now) }
        closeSaved(saved, unlink: unlink)
        return saved
    }

    /// The saved values of `object` become its base: references remapped to permanent IDs (from
    /// the save's result, which `permanentIDs` reads), a new snapshot, committed to-manys.
    @inline(__always)
    private func commitValues(of object: ManagedObject, permanentIDs: inout PermanentIDLookup, versionIncrement: Int64, now: UInt64) {
        if !permanentIDs.isEmpty {
            if object.toOneValues.contains(where: { $0?.isTemporaryID == true }) {
                object.toOneValues = object.toOneValues.mapped { id in id.map { permanentIDs.permanentID(for: $0) ?? $0 } }
            }
            for slot in object.toManyValues.indices {
                guard let value = object.toManyValues[slot], value.ids.contains(where: \.isTemporaryID) else { continue }
                object.toManyValues[slot] = ToManyValue(value.ids.map { permanentIDs.permanentID(for: $0) ?? $0 })
            }
        }
        // A store records only versions other than the base plus the increment (see
        // `SaveChangesResult.versions`); most saves record none.
        let recorded = permanentIDs.result.versions.isEmpty ? nil : permanentIDs.result.versions[object.objectID]
        let version = recorded ?? ((object.snapshot?.version ?? 0) + versionIncrement)
        // The snapshot holds what the parent store holds: no transient to-one (the object keeps
        // its own in memory; a rollback or refresh resets it from this snapshot). The values'
        // draft becomes the snapshot when nothing else holds it (the change set is gone by
        // now), else they are copied into a new one.
        let toOne = object.entity.layout.storedToOnes(object.toOneValues)
        let snapshot =
            object.attributeValues.publishDraft(objectID: object.objectID, version: version, fetchedAt: now, toOne: toOne)
            ?? RowSnapshot.make(objectID: object.objectID, version: version, attributes: object.attributeValues, toOne: toOne, fetchedAt: now)
        object.snapshot = snapshot
        // The object reads its values (and, without transient to-ones, its targets) from the
        // new snapshot again (they are the same values).
        object.attributeValues = snapshot.attributes
        if object.entity.layout.transientToOneSlots.isEmpty { object.toOneValues = snapshot.toOne }
        object.commitToManyContents()
    }
}
