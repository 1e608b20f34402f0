import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The graph the undo tests edit: boxes hold an ordered list of items (cascade), items carry
/// tags (many-to-many), a transient note and a transient focus tag (⇄ the tag's transient
/// watchers). Every object has a stable `key`, so states can be compared across contexts.
enum UndoGraph {
    static func model() -> ManagedObjectModel {
        let box = EntityDescription(name: "Box")
        let item = EntityDescription(name: "Item")
        let tag = EntityDescription(name: "Tag")
        func key() -> AttributeDescription { AttributeDescription(name: "key", type: .integer64, isOptional: false, defaultValue: Int64(0)) }
        func transient<P: PropertyDescription>(_ property: P) -> P {
            property.isTransient = true
            return property
        }
        box.properties = [
            key(),
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "items", destination: item, inverse: "box", toMany: true, isOrdered: true, deleteRule: .cascade),
        ]
        item.properties = [
            key(),
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "score", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            transient(AttributeDescription(name: "note", type: .string)),
            RelationshipDescription(name: "box", destination: box, inverse: "items"),
            RelationshipDescription(name: "tags", destination: tag, inverse: "items", toMany: true),
            transient(RelationshipDescription(name: "focus", destination: tag, inverse: "watchers")),
        ]
        tag.properties = [
            key(),
            AttributeDescription(name: "label", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "items", destination: item, inverse: "tags", toMany: true),
            transient(RelationshipDescription(name: "watchers", destination: item, inverse: "focus", toMany: true)),
        ]
        return ManagedObjectModel(entities: [box, item, tag])
    }

    /// Inserts an object of `entityName` with `key`. Call on the context's queue.
    static func insert(_ entityName: String, key: Int64, into context: ManagedObjectContext) throws -> ManagedObject {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName])
        let object = ManagedObject(entity: entity, insertInto: context)
        object.setValue(key, forKey: "key")
        return object
    }

    /// "Entity#key".
    static func name(_ object: ManagedObject) -> String {
        "\(object.entity.name)#\((object.value(forKey: "key") as? Int64) ?? -1)"
    }

    /// The state of the graph as the given objects show it in `context`: every object that is
    /// in the context and not deleted, with each property's value (relationships by key; ordered
    /// ones in order), and the keys of the inserted and deleted objects. `storedOnly` leaves out
    /// transient properties (for comparing with a fresh context). Call on the context's queue.
    static func state(of objects: [ManagedObject], in context: ManagedObjectContext, storedOnly: Bool = false) -> GraphState {
        var state = GraphState()
        for object in objects where object.managedObjectContext === context && !object.isDeleted {
            var values: [String: String] = [:]
            for property in object.entity.properties where !(storedOnly && property.isTransient) {
                let value = object.value(forKey: property.name)
                if let relationship = property as? RelationshipDescription {
                    if relationship.isOrdered {
                        values[property.name] = ((value as? [ManagedObject]) ?? []).map(name).joined(separator: ",")
                    } else if relationship.isToMany {
                        values[property.name] = ((value as? Set<ManagedObject>) ?? []).map(name).sorted().joined(separator: ",")
                    } else {
                        values[property.name] = (value as? ManagedObject).map(name) ?? "nil"
                    }
                } else {
                    values[property.name] = value.map { "\($0)" } ?? "nil"
                }
            }
            state.objects[name(object)] = values
        }
        state.inserted = Set(context.insertedObjects.map(name))
        state.deleted = Set(context.deletedObjects.map(name))
        return state
    }

    /// Every object of the store, fetched into `context`, as ``state(of:in:storedOnly:)``
    /// shows them (stored properties only). Call on the context's queue.
    static func storedState(in context: ManagedObjectContext) throws -> GraphState {
        var objects: [ManagedObject] = []
        for entity in ["Box", "Item", "Tag"] { objects += try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) }
        return state(of: objects, in: context, storedOnly: true)
    }
}

/// A graph's state as ``UndoGraph/state(of:in:storedOnly:)`` reads it.
struct GraphState: Equatable, CustomStringConvertible {
    /// Values by object ("Entity#key") and property name.
    var objects: [String: [String: String]] = [:]
    var inserted: Set<String> = []
    var deleted: Set<String> = []

    /// The same state without transient properties.
    func storedOnly(model: ManagedObjectModel) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for (key, values) in objects {
            let entityName = String(key.prefix { $0 != "#" })
            let transients = Set((model.entitiesByName[entityName]?.properties ?? []).filter(\.isTransient).map(\.name))
            result[key] = values.filter { !transients.contains($0.key) }
        }
        return result
    }

    var description: String {
        objects.keys.sorted().map { key in
            "\(key): " + (objects[key] ?? [:]).keys.sorted().map { "\($0)=\(objects[key]?[$0] ?? "")" }.joined(separator: " ")
        }.joined(separator: "\n") + "\ninserted: \(inserted.sorted())\ndeleted: \(deleted.sorted())"
    }
}

/// Random undo/redo walks over a graph with attributes, to-one, to-many, ordered to-many, a
/// transient attribute and a transient relationship: random edits, inserts, deletes and
/// relationship changes in groups (one per `performAndWait` block; in half the walks explicit
/// groups with `groupsByEvent` off, holding nested groups, `processPendingChanges()` calls and
/// saves), occasional saves, and random undos and redos. After each undo or redo the context's state equals the state
/// recorded at that point of the history, and saving it then reading the store in a fresh
/// context gives that state again.
///
/// Core Data facts followed, with their sources:
/// - Apple, `NSManagedObjectContext.undo()`: undo reverses the latest uncommitted changes
///   applied to objects in the object graph; `processPendingChanges()` "causes changes to
///   registered managed objects to be recorded with the undo manager" (so each event is a group).
/// - Apple, `NSPropertyDescription.isTransient`: transient properties are not saved, "but are
///   still managed for undo, redo, validation, and so on".
/// - mikeabdullah.net, "Core Data and the wonderful world of undo management": inserts,
///   deletes and property changes are recorded automatically, and undo updates the objects
///   internally, without calling accessors.
@Suite("Undo random walks")
struct UndoRandomWalkTests {
    /// One random edit of the graph. Call on the context's queue.
    static func edit(_ rng: inout SeededRandom, context: ManagedObjectContext, pool: inout [ManagedObject], nextKey: inout Int64) throws {
        let live = pool.filter { $0.managedObjectContext === context && !$0.isDeleted }
        let boxes = live.filter { $0.entity.name == "Box" }
        let items = live.filter { $0.entity.name == "Item" }
        let tags = live.filter { $0.entity.name == "Tag" }
        func pick(_ objects: [ManagedObject]) -> ManagedObject? { objects.isEmpty ? nil : objects[rng.below(objects.count)] }
        func word() -> String { ["ant", "bee", "cat", "dog", "eel", "fox"][rng.below(6)] }
        switch rng.below(12) {
        case 0, 1:
            let entity = ["Box", "Item", "Item", "Tag"][rng.below(4)]
            let object = try UndoGraph.insert(entity, key: nextKey, into: context)
            nextKey += 1
            pool.append(object)
            if entity == "Item", let box = pick(boxes) { object.setValue(box, forKey: "box") }
        case 2:
            guard let object = pick(live) else { return }
            switch object.entity.name {
            case "Box": object.setValue(word(), forKey: "name")
            case "Item": object.setValue(word(), forKey: "title")
            default: object.setValue(word(), forKey: "label")
            }
        case 3:
            pick(items)?.setValue(Int64(rng.below(100)), forKey: "score")
        case 4:
            pick(items)?.setValue(rng.chance(0.2) ? nil : word(), forKey: "note")
        case 5:
            pick(items)?.setValue(rng.chance(0.2) ? nil : pick(boxes), forKey: "box")
        case 6:
            guard let item = pick(items), let tag = pick(tags) else { return }
            let set = item.mutableSetValue(forKey: "tags")
            if set.contains(tag) { set.remove(tag) } else { set.add(tag) }
        case 7:
            guard let box = pick(boxes) else { return }
            let list = box.mutableOrderedSetValue(forKey: "items")
            if list.count > 1 && rng.chance(0.5) {
                list.moveObjects(at: IndexSet(integer: rng.below(list.count)), to: rng.below(list.count - 1))
            } else if let item = pick(items), !list.contains(item) {
                list.insert(item, at: rng.below(list.count + 1))
            } else if list.count > 0 {
                list.removeObject(at: rng.below(list.count))
            }
        case 8:
            pick(items)?.setValue(rng.chance(0.2) ? nil : pick(tags), forKey: "focus")
        case 9:
            guard let tag = pick(tags) else { return }
            tag.setValue(Set(items.filter { _ in rng.chance(0.3) }), forKey: "items")
        case 10:
            guard let box = pick(boxes) else { return }
            let current = (box.value(forKey: "items") as? [ManagedObject]) ?? []
            box.setValue(current.shuffled(using: &rng) + items.filter { _ in rng.chance(0.1) }, forKey: "items")
        default:
            if let object = pick(live), rng.chance(0.6) { context.delete(object) }
        }
    }

    /// A walk: its seed, and how it groups its edits: one block of a few edits per group
    /// (grouping by event), or, with `explicitGroups`, `groupsByEvent` off and explicit groups
    /// holding nested groups, `processPendingChanges()` calls and saves.
    struct Walk: Sendable, CustomStringConvertible {
        let seed: UInt64
        let explicitGroups: Bool
        var description: String { "seed \(seed)\(explicitGroups ? ", explicit groups" : "")" }
        static let all = (1...8).map { Walk(seed: UInt64($0), explicitGroups: $0 > 4) }
    }

    @Test(
        "after each random undo or redo the graph equals the recorded state; saved, a fresh context reads it back",
        arguments: TestStack.Kind.allCases, Walk.all)
    func randomWalk(kind: TestStack.Kind, walk: Walk) throws {
        let seed = walk.seed
        let stack = try TestStack(model: UndoGraph.model(), kind: kind, recordsSQL: false)
        let context = stack.newContext(name: "walk")
        let undo = ObjectUndoManager()
        var rng = SeededRandom(seed: seed)
        var pool: [ManagedObject] = []
        var nextKey: Int64 = 1
        // A saved starting graph, not undoable.
        try context.performAndWait {
            context.undoManager = undo
            for _ in 0..<30 { try Self.edit(&rng, context: context, pool: &pool, nextKey: &nextKey) }
            try context.save()
            undo.removeAllActions()
            undo.groupsByEvent = !walk.explicitGroups
        }
        // history[i] is the state after i undo groups; `epochs[i]` the number of saves before it
        // was recorded (inserted / deleted sets are compared only while no save intervened).
        var history = [context.performAndWait { UndoGraph.state(of: pool, in: context) }]
        var epochs = [0]
        var epoch = 0
        var cursor = 0
        var checks = 0

        func check(_ step: Int, _ what: String) {
            context.performAndWait {
                let now = UndoGraph.state(of: pool, in: context)
                let expected = history[cursor]
                #expect(now.objects == expected.objects, "seed \(seed) step \(step) \(what): values differ\nnow:\n\(now)\nexpected:\n\(expected)")
                if epochs[cursor] == epoch {
                    #expect(now.inserted == expected.inserted && now.deleted == expected.deleted, "seed \(seed) step \(step) \(what): inserted/deleted differ")
                }
                #expect(undo.undoStack.count == cursor, "seed \(seed) step \(step) \(what): stack depth")
                #expect(context.state.work.checkConsistency())
            }
            checks += 1
        }

        func saveAndReadBack(_ step: Int) throws {
            try context.performAndWait { try context.save() }
            epoch += 1
            let fresh = stack.newContext(name: "fresh")
            let stored = try fresh.performAndWait { try UndoGraph.storedState(in: fresh) }
            let expected = history[cursor].storedOnly(model: stack.model)
            #expect(stored.objects == expected, "seed \(seed) step \(step): the store after saving differs\nstored:\n\(stored)\nexpected:\n\(history[cursor])")
        }

        for step in 0..<240 {
            let roll = rng.below(100)
            if roll < 50 {
                let depth = undo.undoStack.count
                var savedInside = false
                try context.performAndWait {
                    if walk.explicitGroups {
                        undo.beginUndoGrouping()
                        for _ in 0...rng.below(4) {
                            try Self.edit(&rng, context: context, pool: &pool, nextKey: &nextKey)
                            switch rng.below(6) {
                            case 0: context.processPendingChanges()  // does not close an explicit group
                            case 1:
                                undo.beginUndoGrouping()  // a nested group is part of the outer one
                                try Self.edit(&rng, context: context, pool: &pool, nextKey: &nextKey)
                                undo.endUndoGrouping()
                            case 2:
                                try context.save()  // the group spans the save
                                savedInside = true
                            default: break
                            }
                        }
                        undo.endUndoGrouping()
                    } else {
                        for _ in 0...rng.below(4) { try Self.edit(&rng, context: context, pool: &pool, nextKey: &nextKey) }
                    }
                }
                if savedInside { epoch += 1 }
                let state = context.performAndWait { UndoGraph.state(of: pool, in: context) }
                if undo.undoStack.count > depth {
                    history.removeSubrange((cursor + 1)...)
                    epochs.removeSubrange((cursor + 1)...)
                    history.append(state)
                    epochs.append(epoch)
                    cursor += 1
                } else {
                    #expect(state.objects == history[cursor].objects, "seed \(seed) step \(step): a group with no net change changed the graph")
                    if !context.performAndWait({ undo.canRedo }) {
                        history.removeSubrange((cursor + 1)...)
                        epochs.removeSubrange((cursor + 1)...)
                    }
                }
            } else if roll < 72 {
                let can = context.performAndWait { undo.canUndo }
                #expect(can == (cursor > 0))
                guard can else { continue }
                context.performAndWait { undo.undo() }
                cursor -= 1
                check(step, "undo")
                if rng.chance(0.25) { try saveAndReadBack(step) }
            } else if roll < 92 {
                let can = context.performAndWait { undo.canRedo }
                #expect(can == (cursor + 1 < history.count))
                guard can else { continue }
                context.performAndWait { undo.redo() }
                cursor += 1
                check(step, "redo")
                if rng.chance(0.25) { try saveAndReadBack(step) }
            } else {
                try saveAndReadBack(step)
                check(step, "save")
            }
        }
        // Walk all the way back, then all the way forward again.
        while cursor > 0 {
            context.performAndWait { undo.undo() }
            cursor -= 1
            check(-1, "undo all")
        }
        try saveAndReadBack(-1)
        while cursor + 1 < history.count {
            context.performAndWait { undo.redo() }
            cursor += 1
            check(-2, "redo all")
        }
        try saveAndReadBack(-2)
        #expect(checks > 20)
    }
}
