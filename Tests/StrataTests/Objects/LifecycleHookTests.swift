import Foundation
import Strata
import StrataTestSupport
import Testing

/// Lifecycle hooks in an object graph: order, willSave passes and their bound, deletion and
/// faulting hooks.
@Suite("Lifecycle hooks")
struct LifecycleHookTests {
    @Test("awakeFromInsert, willSave, didSave, awakeFromFetch, prepareForDeletion, fault hooks", arguments: TestStack.Kind.allCases)
    func order(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Tracked.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let parent = Tracked(context: context)
            let child = Tracked(context: context)
            #expect(parent.events == ["awakeFromInsert"])
            // awakeFromInsert set a default relationship-free value; relationships work in it too.
            child.setValue(parent, forKey: "parent")
            try context.save()
            #expect(parent.events == ["awakeFromInsert", "willSave", "didSave"])
            context.refresh(parent, mergeChanges: false)
            #expect(parent.events.suffix(2) == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(parent.isFault)
            _ = parent.value(forKey: "stamp")
            #expect(parent.events.last == "awakeFromFetch")
            parent.events = []
            child.events = []
            context.delete(parent)  // cascades to the child
            #expect(parent.events == ["prepareForDeletion"])
            #expect(child.events == ["prepareForDeletion"])
            try context.save()
            #expect(parent.events == ["prepareForDeletion", "willSave", "didSave"])
        }
    }

    @Test("willSave may change values; objects it changes get one more pass")
    func willSavePasses() throws {
        let stack = try TestStack(model: Tracked.model())
        let context = stack.newContext()
        try context.performAndWait {
            let parent = Tracked(context: context)
            let child = Tracked(context: context)
            child.setValue(parent, forKey: "parent")
            try context.save()
            parent.events = []
            // The child's willSave touches its parent's stamp: the parent gets a (second) pass.
            child.bumpsParent = true
            child.setValue(Int64(5), forKey: "stamp")
            try context.save()
            #expect(parent.events == ["willSave", "didSave"])
            #expect(parent.value(forKey: "stamp") as? Int64 == 1)
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<Tracked>(entityName: "Tracked")
            request.predicate = ObjectPredicate(format: "parent == nil")
            let parent = try #require(try reader.fetch(request).first)
            #expect(parent.value(forKey: "stamp") as? Int64 == 1)
        }
    }

    @Test("an object another object's willSave changes after its own call gets one more call; one inserted by a willSave gets its own")
    func willSaveReachesLateChanges() throws {
        // Core Data: willSave is sent to every object a save writes, again to one changed
        // after its call (NSManagedObject's willSave documentation warns of the loops this
        // allows), and to objects inserted during it, which the save writes too.
        let stack = try TestStack(model: Tracked.model())
        let context = stack.newContext()
        try context.performAndWait {
            let early = Tracked(context: context)
            let late = Tracked(context: context)
            late.touches = early  // early's own call came first
            early.events = []
            late.events = []
            // No object joins or leaves the save here: only early's changed-since-willSave mark
            // tells that it needs another call.
            try context.save()
            #expect(early.events == ["willSave", "willSave", "didSave"])
            #expect(early.value(forKey: "stamp") as? Int64 == 7)
            #expect(late.events == ["willSave", "didSave"])
            // An object inserted by a willSave joins the save and gets its own call.
            late.spawns = true
            late.setValue(Int64(2), forKey: "stamp")
            late.events = []
            try context.save()
            #expect(late.events == ["willSave", "didSave"])
            let spawned = try #require(late.spawned)
            #expect(spawned.events == ["awakeFromInsert", "willSave", "didSave"])
            #expect(!spawned.objectID.isTemporaryID)
            #expect(!context.hasChanges)
        }
        try stack.reopen()
        let reader = stack.newContext()
        let count = try reader.performAndWait { try reader.count(for: FetchRequest<Tracked>(entityName: "Tracked")) }
        #expect(count == 3)
    }

    @Test("a willSave that changes a value on every call fails the save instead of looping")
    func boundedWillSave() throws {
        let stack = try TestStack(model: Tracked.model())
        let context = stack.newContext()
        try context.performAndWait {
            let restless = Tracked(context: context)
            restless.restless = true
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.message.contains("willSave"))
            #expect(context.hasChanges)
            restless.restless = false
            try context.save()
        }
    }
}

/// An object that logs its hooks. `parent` ⇄ `children` (children cascade).
final class Tracked: ManagedObject {
    var events: [String] = []
    var restless = false
    var bumpsParent = false
    /// Set on its first `willSave` to 7.
    var touches: Tracked?
    /// Whether its first `willSave` inserts a new object (kept in `spawned`).
    var spawns = false
    var spawned: Tracked?

    override func awakeFromInsert() { events.append("awakeFromInsert") }
    override func awakeFromFetch() { events.append("awakeFromFetch") }
    override func willSave() {
        events.append("willSave")
        if restless {
            setValue(((value(forKey: "stamp") as? Int64) ?? 0) + 1, forKey: "stamp")
        }
        if let touched = touches {
            touched.setValue(Int64(7), forKey: "stamp")
            touches = nil
        }
        if spawns, spawned == nil, let context = managedObjectContext {
            spawned = Tracked(context: context)
        }
        if bumpsParent, let parent = value(forKey: "parent") as? ManagedObject, !isDeleted {
            parent.setValue(Int64(1), forKey: "stamp")
        }
    }
    override func didSave() { events.append("didSave") }
    override func prepareForDeletion() { events.append("prepareForDeletion") }
    override func willTurnIntoFault() { events.append("willTurnIntoFault") }
    override func didTurnIntoFault() { events.append("didTurnIntoFault") }

    static func model() -> ManagedObjectModel {
        let tracked = EntityDescription(name: "Tracked", managedObjectClass: Tracked.self)
        tracked.properties = [
            AttributeDescription(name: "stamp", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            RelationshipDescription(name: "parent", destination: tracked, inverse: "children"),
            RelationshipDescription(name: "children", destination: tracked, inverse: "parent", toMany: true, deleteRule: .cascade),
        ]
        return ManagedObjectModel(entities: [tracked])
    }
}
