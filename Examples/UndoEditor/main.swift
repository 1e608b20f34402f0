import Foundation
import Strata

// `swift run strata-undo-editor` (docs/live-results.md, "Undo"): an editor's undo and redo over
// a saved document. A list holds notes in order; each "user action" is one `performAndWait`
// block, so one undo group, named with `setActionName(_:)`. The example undoes across a save,
// saves the undone state, redoes, and checks after each step what a fresh context reads from the
// store. It exits 1 when what it shows does not hold.

let model: ManagedObjectModel = {
    let list = EntityDescription(name: "List")
    let note = EntityDescription(name: "Note")
    list.properties = [
        AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
        RelationshipDescription(name: "notes", destination: note, inverse: "list", toMany: true, isOrdered: true, deleteRule: .cascade),
    ]
    note.properties = [
        AttributeDescription(name: "text", type: .string, isOptional: false, defaultValue: ""),
        RelationshipDescription(name: "list", destination: list, inverse: "notes"),
    ]
    return ManagedObjectModel(entities: [list, note])
}()

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-undo-editor-\(UUID().uuidString)", isDirectory: true)
defer { try? FileManager.default.removeItem(at: folder) }
let container = PersistentContainer(name: "Notes", managedObjectModel: model)
container.persistentStoreDescriptions = [PersistentStoreDescription(url: folder.appendingPathComponent("Notes.sqlite"))]
do {
    try container.loadPersistentStores()
} catch {
    print("Could not open the store: \(error)")
    exit(1)
}

let editor = container.newBackgroundContext()
editor.name = "editor"
editor.performAndWait { editor.undoManager = ObjectUndoManager() }
var failures = 0

/// The notes of the list, in order, as `context` shows them. Call on its queue.
func notes(in context: ManagedObjectContext) -> [String] {
    let lists = (try? context.fetch(FetchRequest<ManagedObject>(entityName: "List"))) ?? []
    let notes = lists.first?.value(forKey: "notes") as? [ManagedObject] ?? []
    return notes.map { $0.value(forKey: "text") as? String ?? "?" }
}

/// The notes as the store holds them, read by a fresh context.
func storedNotes() -> [String] {
    let reader = container.newBackgroundContext()
    return reader.performAndWait { notes(in: reader) }
}

/// Prints what the editor and the store show; false when the editor does not show `expected`.
func show(_ step: String, expected: [String]) -> Bool {
    let (shown, undoName, redoName, unsaved) = editor.performAndWait {
        (notes(in: editor), editor.undoManager?.undoActionName ?? "", editor.undoManager?.redoActionName ?? "", editor.hasChanges)
    }
    print("\(step): \(shown)  undo: \"\(undoName)\"  redo: \"\(redoName)\"  store: \(storedNotes())\(unsaved ? "  (unsaved)" : "")")
    if shown != expected { print("  expected \(expected)") }
    return shown == expected
}

/// One user action: one `performAndWait` block, so one undo group, named `name`. False when
/// the action failed.
func action(_ name: String, _ body: (ManagedObjectContext) throws -> Void) -> Bool {
    editor.performAndWait {
        do {
            try body(editor)
            editor.undoManager?.setActionName(name)
            return true
        } catch {
            print("\(name) failed: \(error)")
            return false
        }
    }
}

/// Saves the editor (not an undoable change); false when the save failed.
func save() -> Bool {
    editor.performAndWait {
        do {
            try editor.save()
            return true
        } catch {
            print("save failed: \(error)")
            return false
        }
    }
}

/// The list (the document). Call on the editor's queue.
func list(in context: ManagedObjectContext) throws -> ManagedObject? {
    try context.fetch(FetchRequest<ManagedObject>(entityName: "List")).first
}

@MainActor func check(_ ok: Bool) {
    if !ok { failures += 1 }
}

check(
    action("New List") { context in
        guard let entity = model.entitiesByName["List"] else { return }
        ManagedObject(entity: entity, insertInto: context).setValue("Groceries", forKey: "title")
    })
for text in ["milk", "eggs", "bread"] {
    check(
        action("Add \(text)") { context in
            guard let entity = model.entitiesByName["Note"], let list = try list(in: context) else { return }
            let note = ManagedObject(entity: entity, insertInto: context)
            note.setValue(text, forKey: "text")
            list.mutableOrderedSetValue(forKey: "notes").add(note)
        })
}
check(show("typed", expected: ["milk", "eggs", "bread"]))
check(save())
check(
    action("Move bread up") { context in
        try list(in: context)?.mutableOrderedSetValue(forKey: "notes").moveObjects(at: IndexSet(integer: 2), to: 0)
    })
check(
    action("Delete eggs") { context in
        let notes = try list(in: context)?.value(forKey: "notes") as? [ManagedObject] ?? []
        if let eggs = notes.first(where: { $0.value(forKey: "text") as? String == "eggs" }) { context.delete(eggs) }
    })
check(save())
check(show("edited and saved", expected: ["bread", "milk"]))

editor.performAndWait { editor.undoManager?.undo() }
check(show("undo after the save", expected: ["bread", "milk", "eggs"]))
editor.performAndWait { editor.undoManager?.undo() }
check(show("undo", expected: ["milk", "eggs", "bread"]))
check(save())  // the undone state is saved like any edit
check(storedNotes() == ["milk", "eggs", "bread"])
editor.performAndWait { editor.undoManager?.redo() }
check(show("redo", expected: ["bread", "milk", "eggs"]))
editor.performAndWait { editor.undoManager?.redo() }
check(show("redo", expected: ["bread", "milk"]))
check(save())
check(storedNotes() == ["bread", "milk"])

print(failures == 0 ? "ok" : "\(failures) check(s) failed")
exit(failures == 0 ? 0 : 1)
