import Foundation

/// A live, editable view of a to-many relationship (Core Data's `mutableSetValue(forKey:)`).
///
/// Reads always show the relationship as it is now; edits change it at once and keep the
/// inverse relationship of every object involved in step, exactly as
/// `setValue(_:forKey:)` does:
///
/// ```swift
/// let employees = department.mutableSetValue(forKey: "employees")
/// employees.add(ann)                 // ann.department is now department
/// employees.remove(bo)               // bo.department is now nil
/// for employee in employees { print(employee.value(forKey: "name") ?? "") }
/// ```
///
/// A typed ``Relationship`` property gives the same view with its element class as its
/// projected value (`department.$employees`). Edits that cannot be made (an object of the wrong
/// entity or of another context, a deleted owner, a key that is not a to-many) change nothing
/// and are reported by the next `save()`, since these methods cannot throw.
///
/// **Queue**: like its owner, use it only on the owner's context's queue.
public final class MutableRelationshipSet<Element: ManagedObject>: Sequence, CustomStringConvertible {
    let editor: ToManyEditor

    init(editor: ToManyEditor) {
        self.editor = editor
    }

    /// The object whose relationship this is.
    public var owner: ManagedObject { editor.owner }

    /// The relationship's name.
    public var key: String { editor.key }

    /// The number of objects; loads the relationship's IDs on first use (one query), never the
    /// objects' values. O(1) once loaded.
    public var count: Int {
        editor.owner.checkAccess("MutableRelationshipSet.count")
        return editor.ids.count
    }

    /// Whether the relationship holds no objects.
    public var isEmpty: Bool { count == 0 }

    /// Whether `object` is in the relationship. O(1) once loaded.
    public func contains(_ object: Element) -> Bool {
        editor.owner.checkAccess("MutableRelationshipSet.contains(_:)")
        return editor.contains(object)
    }

    /// The objects, as an array (in the stored order for an ordered relationship).
    public var allObjects: [Element] {
        editor.owner.checkAccess("MutableRelationshipSet.allObjects")
        return editor.objects(as: Element.self)
    }

    /// Adds `object` (nothing happens if it is already there); its inverse now holds the owner.
    public func add(_ object: Element) {
        editor.owner.checkAccess("MutableRelationshipSet.add(_:)")
        editor.add(object)
    }

    /// Adds each of `objects`.
    public func addObjects(from objects: [Element]) {
        editor.owner.checkAccess("MutableRelationshipSet.addObjects(from:)")
        for object in objects { editor.add(object) }
    }

    /// Adds each of `objects`.
    public func addObjects(from objects: Set<Element>) {
        addObjects(from: Array(objects))
    }

    /// Removes `object` (nothing happens if it is not there); its inverse no longer holds the owner.
    public func remove(_ object: Element) {
        editor.owner.checkAccess("MutableRelationshipSet.remove(_:)")
        editor.remove(object)
    }

    /// Removes each of `objects`.
    public func removeObjects(in objects: [Element]) {
        editor.owner.checkAccess("MutableRelationshipSet.removeObjects(in:)")
        for object in objects { editor.remove(object) }
    }

    /// Removes each of `objects`.
    public func removeObjects(in objects: Set<Element>) {
        removeObjects(in: Array(objects))
    }

    /// Empties the relationship, updating every former member's inverse.
    public func removeAllObjects() {
        editor.owner.checkAccess("MutableRelationshipSet.removeAllObjects()")
        editor.removeAll()
    }

    /// Iterates over the objects as they are when iteration starts (editing while iterating is
    /// safe: the iteration does not see the edits).
    public func makeIterator() -> IndexingIterator<[Element]> {
        allObjects.makeIterator()
    }

    /// The owner's entity, the key and the number of objects.
    public var description: String {
        "<MutableRelationshipSet \(editor.owner.entity.name).\(editor.key): \(editor.ids.count) object(s)>"
    }
}
