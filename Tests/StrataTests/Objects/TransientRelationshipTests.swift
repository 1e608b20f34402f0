import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A worker with stored chores (`chores` ⇄ `owner`) and two transient relationships: the chore
/// in focus (`focus` ⇄ `watchers`, one-to-many) and pinned chores (`pinned` ⇄ `pinnedBy`,
/// many-to-many).
final class TransientWorker: ManagedObject {
    @Attribute("name") var name: String
    @Relationship("chores") var chores: Set<TransientChore>
    @Relationship("focus") var focus: TransientChore?
    @Relationship("pinned") var pinned: Set<TransientChore>
}

/// A chore: its stored `owner`, and the transient `watchers` and `pinnedBy`.
final class TransientChore: ManagedObject {
    @Attribute("title") var title: String
    @Relationship("owner") var owner: TransientWorker?
    @Relationship("watchers") var watchers: Set<TransientWorker>
    @Relationship("pinnedBy") var pinnedBy: Set<TransientWorker>
}

/// Transient relationships (`isTransient` on a relationship), Core Data's way: kept in memory
/// with their inverses, never stored, reset by a refresh without merging and by a rollback,
/// pushed to the parent by a child's save, empty in any other context.
///
/// The Core Data facts each test relies on, with their sources:
/// - Apple, `NSPropertyDescription.isTransient`: "The transient flag specifies whether or not a
///   property's value is ignored when an object is saved to a persistent store. Transient
///   properties are not saved to the persistent store, but are still managed for undo, redo,
///   validation, and so on." The flag is on `NSPropertyDescription`, so relationships have it
///   too; Xcode's model editor sets it per relationship ("Configuring Relationships": a
///   relationship specifies "whether the relationship must be saved in the store (transient)").
/// - Apple, `NSManagedObjectContext.refresh(_:mergeChanges:)`: "If flag is YES, this method does
///   not affect any transient properties; if flag is NO, transient properties are released."
/// - Apple, `NSManagedObjectContext` ("Parent store"): saving a child context commits its
///   changes one level up, into the parent context, not to a persistent store.
@Suite("Transient relationships")
struct TransientRelationshipTests {
    static func model() -> ManagedObjectModel {
        let worker = EntityDescription(name: "TransientWorker", managedObjectClass: TransientWorker.self)
        let chore = EntityDescription(name: "TransientChore", managedObjectClass: TransientChore.self)
        func transient(_ relationship: RelationshipDescription) -> RelationshipDescription {
            relationship.isTransient = true
            return relationship
        }
        worker.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "chores", destination: chore, inverse: "owner", toMany: true),
            transient(RelationshipDescription(name: "focus", destination: chore, inverse: "watchers")),
            transient(RelationshipDescription(name: "pinned", destination: chore, inverse: "pinnedBy", toMany: true)),
        ]
        chore.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "owner", destination: worker, inverse: "chores"),
            transient(RelationshipDescription(name: "watchers", destination: worker, inverse: "focus", toMany: true)),
            transient(RelationshipDescription(name: "pinnedBy", destination: worker, inverse: "pinned", toMany: true)),
        ]
        return ManagedObjectModel(entities: [worker, chore])
    }

    /// Ann owns "dishes" and "laundry" (stored); saved, with no transient value set.
    func seeded(_ kind: TestStack.Kind) throws -> (stack: TestStack, ann: ManagedObjectID, dishes: ManagedObjectID, laundry: ManagedObjectID) {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        let ids = try context.performAndWait {
            let ann = TransientWorker(context: context)
            ann.name = "Ann"
            let dishes = TransientChore(context: context)
            dishes.title = "dishes"
            let laundry = TransientChore(context: context)
            laundry.title = "laundry"
            ann.chores = [dishes, laundry]
            try context.save()
            return (ann.objectID, dishes.objectID, laundry.objectID)
        }
        return (stack, ids.0, ids.1, ids.2)
    }

    func objects(_ ids: (ann: ManagedObjectID, dishes: ManagedObjectID, laundry: ManagedObjectID), in context: ManagedObjectContext) throws
        -> (TransientWorker, TransientChore, TransientChore)
    {
        (
            try #require(try context.existingObject(with: ids.ann) as? TransientWorker),
            try #require(try context.existingObject(with: ids.dishes) as? TransientChore),
            try #require(try context.existingObject(with: ids.laundry) as? TransientChore)
        )
    }

    // MARK: The model

    @Test("the model check accepts transient pairs; a pair with one stored side or a constraint on one is refused")
    func modelCheck() throws {
        // Core Data: `isTransient` is a property of every property description, relationships
        // included (Apple, NSPropertyDescription.isTransient). Core Data documents nothing for a
        // pair whose sides disagree; Strata refuses it (a stored side would be written while its
        // inverse never is) and says which side to change.
        try Self.model().checkModel()

        let a = EntityDescription(name: "A")
        let b = EntityDescription(name: "B")
        let half = RelationshipDescription(name: "half", destination: b, inverse: "back")
        half.isTransient = true
        let alone = RelationshipDescription(name: "alone", destination: b)  // no inverse: fine
        alone.isTransient = true
        a.properties = [half, alone]
        b.properties = [RelationshipDescription(name: "back", destination: a, inverse: "half", toMany: true)]
        a.uniquenessConstraints = [["alone"]]
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(entities: [a, b]).checkModel() }
        let messages = error.underlyingErrors.map(\.message)
        #expect(messages.count == 2)
        #expect(messages.contains("Relationship 'A.half' is transient but its inverse 'B.back' is not: make both sides of a relationship transient, or neither"))
        #expect(messages.contains("Uniqueness constraint of 'A' names transient relationship 'alone'"))
    }

    @Test("the SQLite schema has no column and no join table for them; a save writes none")
    func noSQLiteStorage() throws {
        // Core Data: transient properties "are not saved to the persistent store" (Apple,
        // NSPropertyDescription.isTransient); a Core Data SQLite file has no column for a
        // transient property (cimgf.com, "Transient Entities and Core Data", 2011: "If you open
        // up the raw SQLite store file and peek at the schema, you will not find any transient
        // attributes").
        let model = Self.model()
        try model.freeze()
        let creation = SQLiteSchema(model: model).creationStatements.joined(separator: "\n")
        #expect(creation.contains("\"ZOWNER\" INTEGER"))  // the stored to-one keeps its column
        #expect(!creation.contains("FOCUS") && !creation.contains("WATCHERS"))
        #expect(!creation.contains("PINNED"))  // no join table for the transient many-to-many

        let (stack, annID, dishesID, laundryID) = try seeded(.sqlite)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        let statements = try context.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: context)
            return try recorder.statements {
                ann.focus = dishes
                ann.$pinned.add(laundry)
                try context.save()
            }
        }
        // The rows of the objects whose transient relationships changed get a new version (as
        // for a change of transient attributes only), and nothing else is written.
        #expect(statements.allSatisfy { !$0.uppercased().contains("FOCUS") && !$0.uppercased().contains("PINNED") })
        #expect(statements.filter { $0.hasPrefix("INSERT") }.isEmpty)
    }

    // MARK: In memory

    @Test("the context keeps them, with their inverses, and tracks them as changes", arguments: TestStack.Kind.allCases)
    func inMemoryWithInverses(kind: TestStack.Kind) throws {
        // Core Data: the context handles inverse relationships (Apple, NSManagedObjectContext:
        // "responsibilities from life cycle management … to validation, inverse relationship
        // handling, and undo/redo"), and transient properties "are still managed for undo,
        // redo, validation, and so on" (NSPropertyDescription.isTransient); changedValues()
        // lists only persistent properties (Apple, NSManagedObject.changedValues()).
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: context)
            let bo = TransientWorker(context: context)
            bo.name = "Bo"

            ann.focus = dishes
            #expect(dishes.watchers == [ann])
            bo.setValue(dishes, forKey: "focus")
            #expect(dishes.watchers == [ann, bo])
            ann.focus = laundry  // leaves dishes' side
            #expect(dishes.watchers == [bo] && laundry.watchers == [ann])
            laundry.$watchers.add(bo)  // from the to-many side: bo leaves dishes
            #expect(bo.focus == laundry && dishes.watchers.isEmpty)

            ann.$pinned.add(dishes)
            laundry.mutableSetValue(forKey: "pinnedBy").add(ann)
            #expect(ann.pinned == [dishes, laundry])
            #expect(dishes.pinnedBy == [ann] && laundry.pinnedBy == [ann])

            #expect(ann.isUpdated && dishes.isUpdated && laundry.isUpdated)
            #expect(ann.changedValues().isEmpty)  // only persistent properties are listed
            #expect(!ann.hasPersistentChangedValues)
            let committed = Set(ann.committedValues(forKeys: nil).keys)
            #expect(committed.contains("name") && committed.isDisjoint(with: ["focus", "pinned"]))

            // A delete nullifies them like any relationship.
            context.delete(bo)
            #expect(laundry.watchers == [ann])
        }
    }

    // MARK: Saving

    @Test("a save keeps them in memory and stores nothing: other contexts see them empty", arguments: TestStack.Kind.allCases)
    func savesNeverWriteThem(kind: TestStack.Kind) throws {
        // Core Data: transient properties "are not saved to the persistent store" (Apple,
        // NSPropertyDescription.isTransient), so another context, which reads the store,
        // finds them empty; the saving context's objects keep their in-memory values.
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let writer = stack.newContext()
        try writer.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: writer)
            let cy = TransientWorker(context: writer)  // an inserted object too
            cy.name = "Cy"
            cy.focus = laundry
            ann.focus = dishes
            ann.pinned = [dishes, laundry]
            try writer.save()
            #expect(!writer.hasChanges)
            #expect(ann.focus == dishes && cy.focus == laundry && ann.pinned == [dishes, laundry])
            #expect(dishes.watchers == [ann] && laundry.watchers == [cy])
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: reader)
            #expect(ann.focus == nil && ann.pinned.isEmpty)
            #expect(dishes.watchers.isEmpty && laundry.watchers.isEmpty && laundry.pinnedBy.isEmpty)
            #expect(ann.chores == [dishes, laundry])  // the stored relationship is there
            let cy = try #require(try reader.fetch(TransientWorker.fetchRequest()).first { $0.name == "Cy" })
            #expect(cy.focus == nil)
            // Not usable in a fetch: the store has nothing to match.
            let request = TransientChore.fetchRequest()
            request.predicate = ObjectPredicate(format: "watchers.@count > 0")
            let thrown = try #require(throws: StrataError.self) { try reader.fetch(request) }
            #expect(thrown.message.contains("Transient relationship 'TransientChore.watchers'"))
        }
        let prefetcher = stack.newContext()
        try prefetcher.performAndWait {
            // Prefetching them reads nothing and finds nothing.
            let request = TransientWorker.fetchRequest()
            request.relationshipKeyPathsForPrefetching = ["pinned", "focus", "chores"]
            let workers = try prefetcher.fetch(request)
            #expect(workers.count == 2)
            #expect(workers.allSatisfy { $0.pinned.isEmpty && $0.focus == nil })
            #expect(workers.first { $0.name == "Ann" }?.chores.count == 2)
        }
        if kind == .sqlite {
            try stack.reopen()
            let reopened = stack.newContext()
            try reopened.performAndWait {
                let (ann, dishes, _) = try objects((annID, dishesID, laundryID), in: reopened)
                #expect(ann.focus == nil && ann.pinned.isEmpty && dishes.watchers.isEmpty)
            }
        }
    }

    @Test("new values from the store leave them as they are", arguments: TestStack.Kind.allCases)
    func reloadsKeepThem(kind: TestStack.Kind) throws {
        // Core Data: only turning an object into a fault releases its transient properties
        // (Apple, refresh(_:mergeChanges:)); a refetch that refreshes values and a refresh that
        // merges changes do not. Strata treats transient attributes the same way.
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let context = stack.newContext()
        // A context holds unchanged objects weakly (Core Data too): a transient value lives as
        // long as its object, so the objects must stay alive between the blocks below.
        context.retainsRegisteredObjects = true
        try context.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: context)
            ann.focus = dishes
            ann.pinned = [laundry]
            try context.save()
        }
        let other = stack.newContext()
        try other.performAndWait {
            (try other.existingObject(with: annID) as? TransientWorker)?.name = "Anna"
            try other.save()
        }
        try context.performAndWait {
            let request = TransientWorker.fetchRequest()
            request.shouldRefreshRefetchedObjects = true
            let ann = try #require(try context.fetch(request).first)
            #expect(ann.name == "Anna")
            let (_, dishes, laundry) = try objects((annID, dishesID, laundryID), in: context)
            #expect(ann.focus == dishes && ann.pinned == [laundry])

            ann.name = "Ann"  // an unsaved change, then a refresh that keeps it
            context.refresh(ann, mergeChanges: true)
            #expect(ann.name == "Ann" && ann.focus == dishes && ann.pinned == [laundry])
        }
    }

    // MARK: Reset

    @Test("refresh without merging resets them to nil and empty", arguments: TestStack.Kind.allCases)
    func refreshResetsThem(kind: TestStack.Kind) throws {
        // Core Data: refresh(_:mergeChanges: false) releases transient properties (Apple,
        // NSManagedObjectContext.refresh(_:mergeChanges:): "if flag is NO, transient properties
        // are released"); the object is a fault again and comes back without them.
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: context)
            ann.focus = dishes
            ann.pinned = [dishes, laundry]
            try context.save()  // kept in memory after the save
            context.refresh(ann, mergeChanges: false)
            #expect(ann.isFault)
            #expect(ann.focus == nil && ann.pinned.isEmpty)
            #expect(ann.name == "Ann" && ann.chores == [dishes, laundry])  // stored values reload
            // Each object holds its own side: the chores keep theirs until refreshed too.
            #expect(dishes.watchers == [ann])
            context.refresh(dishes, mergeChanges: false)
            context.refresh(laundry, mergeChanges: false)
            #expect(dishes.watchers.isEmpty && dishes.pinnedBy.isEmpty && laundry.pinnedBy.isEmpty)
        }
    }

    @Test("rollback resets them on the objects it reverts", arguments: TestStack.Kind.allCases)
    func rollbackResetsThem(kind: TestStack.Kind) throws {
        // Core Data: rollback() discards unsaved changes and restores updated objects to their
        // last committed values (Apple, NSManagedObjectContext.rollback()); a transient value
        // is never committed, so it goes back to nil / empty, as Strata does for transient
        // attributes. Both sides of an edit are changed objects, so both are reverted.
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: context)
            ann.focus = dishes
            laundry.$pinnedBy.add(ann)
            #expect(context.hasChanges)
            context.rollback()
            #expect(!context.hasChanges)
            #expect(ann.focus == nil && ann.pinned.isEmpty)
            #expect(dishes.watchers.isEmpty && laundry.pinnedBy.isEmpty)
            #expect(ann.chores == [dishes, laundry])

            // Set again after a rollback: they work as before.
            ann.focus = laundry
            #expect(laundry.watchers == [ann])
        }
    }

    // MARK: Parent and child contexts

    @Test("a child's save pushes them to the parent; the parent's save stores none", arguments: TestStack.Kind.allCases)
    func childSavePushesThem(kind: TestStack.Kind) throws {
        // Core Data: saving a child context commits its changes one level up, into the parent
        // context (Apple, NSManagedObjectContext, "Parent store"); transient properties are
        // left out only when "an object is saved to a persistent store" (Apple,
        // NSPropertyDescription.isTransient), which a parent context is not. So the parent
        // receives them, and its own save to the store drops them.
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let parent = stack.newContext(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let dotID = try child.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: child)
            let dot = TransientWorker(context: child)
            dot.name = "Dot"
            dot.focus = laundry
            ann.focus = dishes
            ann.pinned = [dishes, laundry]
            try child.save()
            #expect(ann.focus == dishes)  // the child keeps them too
            return dot.objectID
        }
        try parent.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: parent)
            let dot = try #require(try parent.existingObject(with: dotID) as? TransientWorker)
            #expect(ann.focus == dishes && ann.pinned == [dishes, laundry])
            #expect(dishes.watchers == [ann] && laundry.watchers == [dot])
            #expect(dishes.pinnedBy == [ann] && laundry.pinnedBy == [ann])
            #expect(dot.focus == laundry)
            try parent.save()
            #expect(ann.focus == dishes && laundry.watchers == [dot])
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let (ann, dishes, laundry) = try objects((annID, dishesID, laundryID), in: reader)
            #expect(ann.focus == nil && ann.pinned.isEmpty && dishes.watchers.isEmpty && laundry.watchers.isEmpty)
        }
    }

    @Test("a child reads them empty from its parent, and saving it does not clear the parent's", arguments: TestStack.Kind.allCases)
    func childStartsEmpty(kind: TestStack.Kind) throws {
        // Core Data: a child context fetches from its parent as from a store, and transient
        // values are not part of what a store holds (Apple, NSPropertyDescription.isTransient):
        // an object a child faults in starts with them empty, as in any other context. (The
        // parent's transient values reaching the child is not documented by Apple; Strata
        // treats a child like another context, as it does for transient attributes.)
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let parent = stack.newContext(name: "parent")
        try parent.performAndWait {
            let (ann, dishes, _) = try objects((annID, dishesID, laundryID), in: parent)
            ann.focus = dishes
            ann.name = "Ann (parent)"
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let (ann, dishes, _) = try objects((annID, dishesID, laundryID), in: child)
            #expect(ann.name == "Ann (parent)")  // unsaved stored values do come down
            #expect(ann.focus == nil && dishes.watchers.isEmpty)
            ann.name = "Ann (child)"
            try child.save()  // no conflict over the transient values the parent holds
        }
        try parent.performAndWait {
            let (ann, dishes, _) = try objects((annID, dishesID, laundryID), in: parent)
            #expect(ann.name == "Ann (child)" && ann.focus == dishes && dishes.watchers == [ann])
        }
    }

    /// Core Data's `evaluate(with:)` reads an object by key-value coding, transient properties
    /// included (NSPredicate.evaluate(with:)); a fetch cannot use them (they are not stored).
    @Test("evaluate(with:) reads transient relationships; a fetch predicate on one is an error", arguments: TestStack.Kind.allCases)
    func evaluateWithTransient(kind: TestStack.Kind) throws {
        let (stack, annID, dishesID, laundryID) = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let (ann, dishes, _) = try objects((annID, dishesID, laundryID), in: context)
            #expect(!ObjectPredicate(format: "focus != nil").evaluate(with: ann))
            ann.focus = dishes
            #expect(ObjectPredicate(format: "focus != nil").evaluate(with: ann))
            #expect(ObjectPredicate(format: "focus.title == 'dishes'").evaluate(with: ann))
            let request = FetchRequest<TransientWorker>(entityName: "TransientWorker")
            request.predicate = ObjectPredicate(format: "focus != nil")
            #expect(throws: StrataError.self) { try context.fetch(request) }
        }
    }
}
