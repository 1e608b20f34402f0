import Foundation
import Strata
import StrataTestSupport
import Testing

/// The fetched-results controller (issue #15, items 1–2): sections, index paths, and change
/// reports that turn the previous sections into exactly the new ones.
@Suite("Fetched-results controller")
struct FetchedResultsControllerTests {
    static func seedWorldCup(_ context: ManagedObjectContext) throws {
        let teams: [(String, String, Int64)] = [
            ("Brazil", "South America", 7), ("Argentina", "South America", 6), ("Germany", "Europe", 7), ("France", "Europe", 6),
            ("Spain", "Europe", 5), ("Japan", "Asia", 4), ("Korea", "Asia", 4), ("Ghana", "Africa", 3), ("Mexico", "North America", 4),
        ]
        for (name, zone, wins) in teams { WorldCup.insertTeam(context, name: name, zone: zone, wins: wins) }
        try context.save()
    }

    /// Core Data: the controller groups the results into sections by `sectionNameKeyPath`, in
    /// the order of the first sort descriptor, and `object(at:)` / `indexPath(forObject:)` map
    /// between index paths and objects (NSFetchedResultsController documentation, "sections",
    /// "object(at:)", "indexPath(forObject:)"); the default index title is the capitalized
    /// first letter of the section name (`sectionIndexTitle(forSectionName:)`).
    @Test("sections, index paths and index titles", arguments: TestStack.Kind.allCases)
    func sectionsAndIndexPaths(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.seedWorldCup(context)
            let controller = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            #expect(controller.sections == nil)
            #expect(controller.fetchedObjects == nil)
            try controller.performFetch()
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["Africa", "Asia", "Europe", "North America", "South America"])
            #expect(sections.map(\.numberOfObjects) == [1, 2, 3, 1, 2])
            #expect(sections.map(\.indexTitle) == ["A", "A", "E", "N", "S"])
            #expect(controller.sectionIndexTitles == ["A", "E", "N", "S"])
            #expect(controller.section(forSectionIndexTitle: "E", at: 0) == 2)
            let europe = (sections[2].objects ?? []).compactMap { ($0 as? ManagedObject)?.value(forKey: "name") as? String }
            #expect(europe == ["Germany", "France", "Spain"])
            // Equal wins: the name decides (Japan before Korea).
            let asia = (sections[1].objects ?? []).compactMap { ($0 as? ManagedObject)?.value(forKey: "name") as? String }
            #expect(asia == ["Japan", "Korea"])
            let france = try #require(controller.object(at: IndexPath(item: 1, section: 2)))
            #expect(france.value(forKey: "name") as? String == "France")
            #expect(controller.indexPath(forObject: france) == IndexPath(item: 1, section: 2))
            #expect(controller.object(at: IndexPath(item: 9, section: 2)) == nil)
            #expect(controller.object(at: IndexPath(item: 0, section: 9)) == nil)
            // fetchedObjects is the fetch's own order.
            let fetched = try context.fetch(WorldCup.teamsByZone())
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == fetched.map(ObjectIdentifier.init))
        }
    }

    /// Core Data: "The fetch request must have at least one sort descriptor. If the controller
    /// generates sections, the first sort descriptor in the array is used to group the objects
    /// into sections; its key must either be the same as sectionNameKeyPath or the relative
    /// ordering using its key must match that using sectionNameKeyPath" (init(fetchRequest:
    /// managedObjectContext:sectionNameKeyPath:cacheName:) documentation). Strata throws.
    @Test("a request that does not group by the section key path is an error", arguments: TestStack.Kind.allCases)
    func firstSortMustGroup(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.seedWorldCup(context)
            let byWins = FetchRequest<ManagedObject>(entityName: "Team")
            byWins.sortDescriptors = [ObjectSortDescriptor(key: "wins", ascending: false), ObjectSortDescriptor(key: "qualifyingZone", ascending: true)]
            let controller = FetchedResultsController(fetchRequest: byWins, managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            let error = try #require(throws: StrataError.self) { try controller.performFetch() }
            #expect(error.message.contains("qualifyingZone"))
            #expect(controller.sections == nil)
            let unsorted = FetchRequest<ManagedObject>(entityName: "Team")
            let second = FetchedResultsController(fetchRequest: unsorted, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            #expect(throws: StrataError.self) { try second.performFetch() }
            let badPath = FetchedResultsController(fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "zone.nope", cacheName: nil)
            #expect(throws: StrataError.self) { try badPath.performFetch() }
        }
    }

    /// Core Data: a section key path may go through to-one relationships
    /// (`sectionNameKeyPath` is "a key path on result objects"), and a change to the related
    /// object's attribute that the sections or sort keys use reaches the controller.
    @Test("sections through a to-one relationship follow the related object", arguments: TestStack.Kind.allCases)
    func sectionsThroughToOne(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let europe = WorldCup.insertZone(context, name: "Europe")
            let asia = WorldCup.insertZone(context, name: "Asia")
            WorldCup.insertTeam(context, name: "Germany", zone: "", wins: 7, zoneObject: europe)
            WorldCup.insertTeam(context, name: "Japan", zone: "", wins: 4, zoneObject: asia)
            WorldCup.insertTeam(context, name: "Spain", zone: "", wins: 5, zoneObject: europe)
            try context.save()
            let controller = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZoneObject(), managedObjectContext: context, sectionNameKeyPath: "zone.name", cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            #expect(controller.sections?.map(\.name) == ["Asia", "Europe"])
            // Renaming a zone moves its teams to a new section after the others.
            asia.setValue("Zeta", forKey: "name")
            context.processPendingChanges()
            #expect(controller.sections?.map(\.name) == ["Europe", "Zeta"])
            #expect(recorder.table == TableState(controller))
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
            #expect(recorder.counts[.move] == 1)
        }
    }

    /// A predicate over a related object's attribute (`zone.name BEGINSWITH 'E'`): renaming a
    /// zone brings its teams in or takes them out (issue #15: "changes to a related object's
    /// attribute that appears in the predicate or a sort key are seen"); the controller finds
    /// them through the inverse relationship.
    @Test("a related object's change brings objects into and out of a predicate", arguments: TestStack.Kind.allCases)
    func relatedPredicate(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let europe = WorldCup.insertZone(context, name: "Europe")
            let asia = WorldCup.insertZone(context, name: "Asia")
            WorldCup.insertTeam(context, name: "Germany", zone: "", wins: 7, zoneObject: europe)
            WorldCup.insertTeam(context, name: "Japan", zone: "", wins: 4, zoneObject: asia)
            WorldCup.insertTeam(context, name: "Korea", zone: "", wins: 3, zoneObject: asia)
            try context.save()
            context.reset()
            let request = FetchRequest<ManagedObject>(entityName: "Team")
            request.predicate = ObjectPredicate(format: "zone.name BEGINSWITH %@", "E")
            request.sortDescriptors = [ObjectSortDescriptor(key: "wins", ascending: false)]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            let names = { (controller.fetchedObjects ?? []).compactMap { $0.value(forKey: "name") as? String } }
            #expect(names() == ["Germany"])
            try context.existingObject(with: asia.objectID).setValue("Eurasia", forKey: "name")
            context.processPendingChanges()
            #expect(names() == ["Germany", "Japan", "Korea"])
            try context.existingObject(with: europe.objectID).setValue("Old Europe", forKey: "name")
            context.processPendingChanges()
            #expect(names() == ["Japan", "Korea"])
            #expect(recorder.table == TableState(controller))
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
            #expect(recorder.counts == [.insert: 2, .delete: 1])
        }
    }

    /// Core Data reports an object whose change moves it as one `.move` (old and new index
    /// paths), and one that stays in place as `.update` (NSFetchedResultsChangeType).
    @Test("an update that changes position is one move; one that does not is an update", arguments: TestStack.Kind.allCases)
    func moveOnce(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.seedWorldCup(context)
            let controller = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            let spain = try #require(controller.object(at: IndexPath(item: 2, section: 2)))
            spain.setValue(Int64(9), forKey: "wins")
            context.processPendingChanges()
            #expect(recorder.counts == [.move: 1])
            #expect(controller.indexPath(forObject: spain) == IndexPath(item: 0, section: 2))
            spain.setValue("Spain!", forKey: "name")  // first in its section either way
            context.processPendingChanges()
            #expect(recorder.counts == [.move: 1, .update: 1])
            // Into a zone of its own: a section insert and a move.
            spain.setValue("Aaland", forKey: "qualifyingZone")
            context.processPendingChanges()
            #expect(controller.sections?.first?.name == "Aaland")
            #expect(recorder.counts == [.move: 2, .update: 1])
            #expect(recorder.table == TableState(controller))
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
            // Deleting the only team of a section deletes the section.
            context.delete(spain)
            context.processPendingChanges()
            #expect(controller.sections?.first?.name == "Africa")
            #expect(recorder.table == TableState(controller))
            #expect(recorder.counts[.delete] == 1)
        }
    }

    /// Core Data's controller hears of changes merged into its context: a background context's
    /// save merged with `mergeChanges(fromContextDidSave:)`, a child context's save, and batch
    /// requests merged with `mergeChanges(fromRemoteContextSave:into:)` (NSBatchUpdateRequest
    /// documentation: batch changes reach contexts only through such a merge).
    @Test("merged saves, child saves and merged batch updates reach the controller", arguments: TestStack.Kind.allCases)
    func mergedChanges(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let view = stack.newContext(name: "view")
        let background = stack.newContext(name: "background")
        let (controller, recorder) = try view.performAndWait {
            try Self.seedWorldCup(view)
            let controller = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: view, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            return (controller, recorder)
        }
        // A background save, merged.
        let saved = try background.performAndWait {
            WorldCup.insertTeam(background, name: "Australia", zone: "Oceania", wins: 2)
            let ghana = try background.fetch(FetchRequest<ManagedObject>(entityName: "Team")).first { $0.value(forKey: "name") as? String == "Ghana" }
            ghana?.setValue("Europe", forKey: "qualifyingZone")
            let inserted = background.insertedObjects
            let updated = background.updatedObjects
            try background.save()
            return (Set(inserted.map(\.objectID)), Set(updated.map(\.objectID)))
        }
        view.performAndWait {
            view.mergeChanges(
                fromContextDidSave: Notification(
                    name: .managedObjectContextDidSave, object: nil,
                    userInfo: [
                        ManagedObjectContext.NotificationKey.insertedObjectIDs: saved.0, ManagedObjectContext.NotificationKey.updatedObjectIDs: saved.1,
                    ]))
        }
        view.performAndWait {
            #expect(controller.sections?.map(\.name) == ["Asia", "Europe", "North America", "Oceania", "South America"])
            #expect(recorder.table == TableState(controller))
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
        }
        // A child's save.
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = view
        try child.performAndWait {
            WorldCup.insertTeam(child, name: "Egypt", zone: "Africa", wins: 1)
            try child.save()
        }
        view.performAndWait {
            #expect(controller.sections?.first?.name == "Africa")
            #expect(recorder.table == TableState(controller))
        }
        // A batch update merged into the contexts.
        let update = BatchUpdateRequest(entityName: "Team")
        update.predicate = ObjectPredicate(format: "qualifyingZone == %@", "Asia")
        update.propertiesToUpdate = ["qualifyingZone": "Middle Earth"]
        update.mergesChangesIntoContexts = true
        try background.performAndWait { _ = try background.execute(update) }
        view.performAndWait {}  // the merge was queued on the view's queue
        view.performAndWait {
            #expect(controller.sections?.map(\.name).contains("Middle Earth") == true)
            #expect(controller.sections?.map(\.name).contains("Asia") == false)
            #expect(recorder.table == TableState(controller))
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
        }
    }

    /// `reset()` invalidates every object (Core Data posts NSInvalidatedAllObjectsKey): the
    /// controller fetches again and reports the difference with the new objects.
    @Test("reset is followed by a refetch", arguments: TestStack.Kind.allCases)
    func resetRefetches(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.seedWorldCup(context)
            let controller = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            WorldCup.insertTeam(context, name: "Unsaved", zone: "Zulu", wins: 0)
            context.processPendingChanges()
            context.reset()
            #expect(controller.sections?.map(\.name).contains("Zulu") == false)
            #expect(controller.fetchedObjects?.count == 9)
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
            #expect(recorder.table == TableState(controller))
        }
    }

    /// Core Data: with no delegate the controller does not track changes ("No tracking: the
    /// delegate is set to nil. The controller simply provides access to the data as it was when
    /// the fetch was executed", NSFetchedResultsController overview).
    @Test("without a delegate the results stay those of the fetch", arguments: TestStack.Kind.allCases)
    func noTrackingWithoutDelegate(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.seedWorldCup(context)
            let controller = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            try controller.performFetch()
            WorldCup.insertTeam(context, name: "Egypt", zone: "Africa", wins: 1)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 9)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 10)
        }
    }

    /// A window (`fetchLimit`): the controller keeps the first n objects in order.
    @Test("a fetch limit keeps the first objects", arguments: TestStack.Kind.allCases)
    func fetchLimitWindow(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: WorldCup.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.seedWorldCup(context)
            let request = WorldCup.teamsByZone()
            request.fetchLimit = 3
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            WorldCup.insertTeam(context, name: "Algeria", zone: "Africa", wins: 9)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 3)
            #expect(controller.fetchedObjects?.first?.value(forKey: "name") as? String == "Algeria")
            #expect(recorder.table == TableState(controller))
            #expect(recorder.problems.isEmpty, "\(recorder.problems)")
        }
    }
}
