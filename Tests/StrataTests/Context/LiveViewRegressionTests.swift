import Foundation
import Strata
import StrataTestSupport
import Testing

/// Context behaviours a live view depends on, found by the fetched-results controller's random
/// walk (Tests/StrataTests/Results/FetchedResultsRandomWalkTests.swift) and pinned here one by
/// one. Model: the World Cup teams and zones (Tests/StrataTests/Results/FetchedResultsTestSupport.swift).
@Suite("Context behaviours live views depend on")
struct LiveViewRegressionTests {
    static func seeded(_ kind: TestStack.Kind) throws -> (TestStack, ManagedObjectContext, zone: ManagedObjectID, other: ManagedObjectID, team: ManagedObjectID) {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let view = stack.newContext(name: "view")
        let ids = try view.performAndWait {
            let zone = WorldCup.insertZone(view, name: "Europe")
            let other = WorldCup.insertZone(view, name: "Asia")
            let team = WorldCup.insertTeam(view, name: "France", zone: "Europe", wins: 6, zoneObject: zone)
            try view.save()
            return (zone.objectID, other.objectID, team.objectID)
        }
        return (stack, view, ids.0, ids.1, ids.2)
    }

    /// Core Data: when a child context saves, the parent's objects-did-change lists the objects
    /// the child inserted (NSManagedObjectContextObjectsDidChange: "inserted objects").
    @Test("a child's save reports its inserts in the parent's objects-did-change", arguments: TestStack.Kind.allCases)
    func childInsertsReported(kind: TestStack.Kind) throws {
        let (stack, view, zone, _, _) = try Self.seeded(kind)
        defer { withExtendedLifetime(stack) {} }
        let log = NotificationLog(view, names: [.managedObjectContextObjectsDidChange])
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = view
        let inserted = try child.performAndWait {
            let team = WorldCup.insertTeam(child, name: "Spain", zone: "Europe", wins: 5, zoneObject: try child.existingObject(with: zone))
            try child.save()
            return team.objectID
        }
        let info = log.lastUserInfo[.managedObjectContextObjectsDidChange] ?? [:]
        #expect((info[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>) == [inserted])
    }

    /// Core Data validates a child's save against its own objects; an object its parent
    /// inserted and has not saved yet is a valid destination (it has a temporary ID and is not
    /// inserted in the child), so moving it between two to-manys in the child saves.
    @Test("a child may relate its parent's unsaved objects", arguments: TestStack.Kind.allCases)
    func childRelatesParentsUnsavedObject(kind: TestStack.Kind) throws {
        let (stack, view, zone, other, _) = try Self.seeded(kind)
        defer { withExtendedLifetime(stack) {} }
        let unsaved = view.performAndWait {
            WorldCup.insertTeam(view, name: "Japan", zone: "Asia", wins: 4, zoneObject: view.object(with: zone)).objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = view
        try child.performAndWait {
            // The child reaches the parent's unsaved object through a fetch (it sees the parent's
            // pending changes).
            let japan = try child.fetch(FetchRequest<ManagedObject>(entityName: "Team")).first { $0.value(forKey: "name") as? String == "Japan" }
            #expect(japan?.objectID == unsaved)
            japan?.setValue(try child.existingObject(with: other), forKey: "zone")
            try child.save()
        }
        try view.performAndWait {
            try view.save()
            let teams = view.object(with: other).value(forKey: "teams") as? Set<ManagedObject>
            #expect(teams?.map(\.objectID).contains(view.object(with: unsaved).objectID) == true)
        }
    }

    /// Core Data merges another context's save into an object with unsaved changes property by
    /// property; relationship changes of both sides survive (mergeChanges(fromContextDidSave:),
    /// NSMergeByPropertyObjectTrumpMergePolicy). A to-many the object read before the other save
    /// must not hide that save's new members, or the next save of the object writes them away.
    @Test("merging into an object with unsaved changes keeps both sides' to-many members", arguments: TestStack.Kind.allCases)
    func mergeRebasesToMany(kind: TestStack.Kind) throws {
        let (stack, view, zone, _, _) = try Self.seeded(kind)
        let background = stack.newContext(name: "background")
        let local = view.performAndWait {
            let europe = view.object(with: zone)
            _ = europe.value(forKey: "teams")  // read before the other save
            europe.setValue("Europa", forKey: "name")
            return WorldCup.insertTeam(view, name: "Italy", zone: "Europe", wins: 4, zoneObject: europe).objectID
        }
        let saved = try background.performAndWait {
            let team = WorldCup.insertTeam(background, name: "Germany", zone: "Europe", wins: 7, zoneObject: try background.existingObject(with: zone))
            let updated = background.updatedObjects.map(\.objectID)
            try background.save()
            return (team.objectID, Set(updated))
        }
        try view.performAndWait {
            view.mergeChanges(
                fromContextDidSave: Notification(
                    name: .managedObjectContextDidSave, object: nil,
                    userInfo: [ManagedObjectContext.NotificationKey.insertedObjectIDs: Set([saved.0]), ManagedObjectContext.NotificationKey.updatedObjectIDs: saved.1]))
            let names = Set((view.object(with: zone).value(forKey: "teams") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String })
            #expect(names == ["France", "Germany", "Italy"])
            #expect(view.object(with: local).value(forKey: "zone") as? ManagedObject === view.object(with: zone))
            try view.save()
        }
    }

    /// Core Data: rollback undoes an unsaved delete and the object takes its last committed
    /// values; a save merged meanwhile moved those committed values on (the merge refreshes the
    /// object's snapshot even while it is deleted).
    @Test("a merged save updates a deleted object's committed values", arguments: TestStack.Kind.allCases)
    func mergeIntoDeletedObject(kind: TestStack.Kind) throws {
        let (stack, view, _, _, team) = try Self.seeded(kind)
        let background = stack.newContext(name: "background")
        view.performAndWait { view.delete(view.object(with: team)) }
        try background.performAndWait {
            try background.existingObject(with: team).setValue(Int64(9), forKey: "wins")
            try background.save()
        }
        view.performAndWait {
            view.mergeChanges(
                fromContextDidSave: Notification(
                    name: .managedObjectContextDidSave, object: nil, userInfo: [ManagedObjectContext.NotificationKey.updatedObjectIDs: Set([team])]))
            view.rollback()
            #expect(view.object(with: team).value(forKey: "wins") as? Int64 == 9)
        }
    }

    /// A to-many edited without being loaded records the edit (see Sources/Strata/Objects/ToManyDelta.swift);
    /// once the object is saved or rolled back the edit is done or undone, and an edit of
    /// another property later must not replay it (Core Data's rollback "removes everything
    /// from the undo stack, discards all insertions and deletions, and restores updated objects
    /// to their last committed values").
    @Test("saved or rolled-back to-many edits are not replayed by a later change", arguments: TestStack.Kind.allCases)
    func staleToManyEditsDropped(kind: TestStack.Kind) throws {
        let (stack, view, zone, _, _) = try Self.seeded(kind)
        defer { withExtendedLifetime(stack) {} }
        try view.performAndWait {
            let europe = view.object(with: zone)
            view.refresh(europe, mergeChanges: false)
            let temporary = WorldCup.insertTeam(view, name: "Spain", zone: "Europe", wins: 5, zoneObject: europe)
            view.processPendingChanges()
            view.rollback()  // the insert is undone; the zone's recorded edit must go with it
            #expect(temporary.managedObjectContext == nil)
            europe.setValue("Europa", forKey: "name")
            try view.save()
            let names = (europe.value(forKey: "teams") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }
            #expect(names == ["France"])
        }
    }
}
