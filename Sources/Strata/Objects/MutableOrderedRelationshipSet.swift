import Foundation

/// A live, editable view of an ordered to-many relationship (Core Data's
/// `mutableOrderedSetValue(forKey:)`): an ordered set of objects, edited by position.
///
/// ```swift
/// let songs = playlist.mutableOrderedSetValue(forKey: "songs")
/// songs.add(intro)                          // at the end
/// songs.insert(overture, at: 0)
/// songs.moveObjects(at: IndexSet(integer: 2), to: 0)
/// songs.removeObject(at: 1)
/// let first = songs[0]                      // nil when out of range
/// ```
///
/// Every edit keeps inverses in step, as ``MutableRelationshipSet`` does. An object appears at
/// most once: inserting one that is already there changes nothing. An index out of range reads
/// as `nil` and makes an edit do nothing; the edit's problem is reported by the next `save()`
/// (Core Data raises a range exception there; these methods cannot throw).
///
/// **Queue**: use it only on the owner's context's queue.
public final class MutableOrderedRelationshipSet<Element: ManagedObject>: Sequence, CustomStringConvertible {
    let editor: ToManyEditor

    init(editor: ToManyEditor) {
        self.editor = editor
    }

    /// The object whose relationship this is.
    public var owner: ManagedObject { editor.owner }

    /// The relationship's name.
    public var key: String { editor.key }

    /// The number of objects (loads the relationship's IDs on first use, in one query).
    public var count: Int {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.count")
        return editor.ids.count
    }

    /// Whether the relationship holds no objects.
    public var isEmpty: Bool { count == 0 }

    /// The objects in order.
    public var array: [Element] {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.array")
        return editor.objects(as: Element.self)
    }

    /// The object at `index`, or `nil` when `index` is out of range.
    public subscript(index: Int) -> Element? {
        object(at: index)
    }

    /// The object at `index`, or `nil` when `index` is out of range.
    public func object(at index: Int) -> Element? {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.object(at:)")
        return editor.object(at: index) as? Element
    }

    /// The first object, if any.
    public var firstObject: Element? { object(at: 0) }

    /// The last object, if any.
    public var lastObject: Element? { object(at: count - 1) }

    /// Whether `object` is in the relationship. O(1) once loaded.
    public func contains(_ object: Element) -> Bool {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.contains(_:)")
        return editor.contains(object)
    }

    /// The position of `object`, or `nil` when it is not in the relationship. O(n).
    public func index(of object: Element) -> Int? {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.index(of:)")
        return editor.ids.firstIndex(of: object.objectID)
    }

    /// Appends `object` (nothing happens if it is already there).
    public func add(_ object: Element) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.add(_:)")
        editor.add(object)
    }

    /// Appends each of `objects` that is not there yet, in order.
    public func addObjects(from objects: [Element]) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.addObjects(from:)")
        for object in objects { editor.add(object) }
    }

    /// Inserts `object` at `index` (0…count); nothing happens if it is already there.
    public func insert(_ object: Element, at index: Int) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.insert(_:at:)")
        let count = editor.ids.count
        guard index >= 0, index <= count else {
            editor.recordRange("insert(_:at:)", index: index, count: count)
            return
        }
        editor.add(object, at: index)
    }

    /// Inserts `objects` so that they end up at `indexes` (Core Data's
    /// `insert(_:at:)` with an index set): the i-th object goes to the i-th smallest index.
    public func insert(_ objects: [Element], at indexes: IndexSet) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.insert(_:at:)")
        guard objects.count == indexes.count else {
            editor.recordRange("insert(_:at:)", index: indexes.last ?? 0, count: editor.ids.count)
            return
        }
        for (object, index) in zip(objects, indexes) {
            let count = editor.ids.count
            guard index >= 0, index <= count else {
                editor.recordRange("insert(_:at:)", index: index, count: count)
                return
            }
            editor.add(object, at: index)
        }
    }

    /// Removes `object` (nothing happens if it is not there).
    public func remove(_ object: Element) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.remove(_:)")
        editor.remove(object)
    }

    /// Removes the object at `index`.
    public func removeObject(at index: Int) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.removeObject(at:)")
        guard let object = editor.object(at: index) else {
            editor.recordRange("removeObject(at:)", index: index, count: editor.ids.count)
            return
        }
        editor.remove(object)
    }

    /// Removes the objects at `indexes`.
    public func removeObjects(at indexes: IndexSet) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.removeObjects(at:)")
        let current = editor.ids
        if let bad = indexes.first(where: { $0 < 0 || $0 >= current.count }) {
            editor.recordRange("removeObjects(at:)", index: bad, count: current.count)
            return
        }
        guard let link = editor.owner.link else { return }
        for index in indexes { editor.remove(link.objectForRelationship(current[index])) }
    }

    /// Empties the relationship, updating every former member's inverse.
    public func removeAllObjects() {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.removeAllObjects()")
        editor.removeAll()
    }

    /// Moves the objects at `indexes` so that they start at `destination`, an index in the
    /// relationship without them (0…count − indexes.count), keeping their relative order.
    /// Membership and inverses do not change; only the order is saved again.
    public func moveObjects(at indexes: IndexSet, to destination: Int) {
        editor.owner.checkAccess("MutableOrderedRelationshipSet.moveObjects(at:to:)")
        guard let slot = editor.editableSlot() else { return }
        let count = editor.ids.count
        if let bad = indexes.first(where: { $0 < 0 || $0 >= count }) {
            editor.recordRange("moveObjects(at:to:)", index: bad, count: count)
            return
        }
        guard destination >= 0, destination <= count - indexes.count else {
            editor.recordRange("moveObjects(at:to:)", index: destination, count: count - indexes.count)
            return
        }
        editor.owner.moveInToMany(slot: slot, from: indexes, to: destination)
    }

    /// Iterates over the objects in order, as they are when iteration starts.
    public func makeIterator() -> IndexingIterator<[Element]> {
        array.makeIterator()
    }

    /// The owner's entity, the key and the number of objects.
    public var description: String {
        "<MutableOrderedRelationshipSet \(editor.owner.entity.name).\(editor.key): \(editor.ids.count) object(s)>"
    }
}
