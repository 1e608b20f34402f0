import Foundation
import Strata
import StrataTestSupport
import Testing

/// Issue #15's required test: the World Cup model under seeded random edits, inserts, deletes,
/// zone changes (new and emptied sections), renamed zone objects, saves, rollbacks, resets,
/// merged background saves, child saves and merged batch updates. After every change set,
/// applying the reported changes to the previous table (as UIKit applies a batch of updates)
/// gives exactly what a freshly fetched controller shows, and the snapshot form equals the fresh
/// controller's snapshot. Core Data's contract for the delegate: the reported index paths are
/// those of the table before (deletes, move sources) and after (inserts, move destinations)
/// the change (NSFetchedResultsControllerDelegate documentation).
@Suite("Fetched-results controller under random changes")
struct FetchedResultsRandomWalkTests {
    final class Walk {
        let stack: TestStack
        let view: ManagedObjectContext
        let background: ManagedObjectContext
        var random: SeededRandom
        var zoneObjects: [ManagedObjectID] = []
        let seed: UInt64

        init(kind: TestStack.Kind, seed: UInt64) throws {
            stack = try TestStack(model: WorldCup.model(), kind: kind, recordsSQL: false)
            view = stack.newContext(name: "view")
            background = stack.newContext(name: "background")
            random = SeededRandom(seed: seed)
            self.seed = seed
        }

        func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }

        func zoneName() -> String {
            int(0..<10) == 0 ? "New\(int(0..<4))" : WorldCup.zones[int(0..<WorldCup.zones.count)]
        }

        func randomTeam(in context: ManagedObjectContext) throws -> ManagedObject? {
            let teams = try context.fetch(FetchRequest<ManagedObject>(entityName: "Team"))
            return teams.isEmpty ? nil : teams[int(0..<teams.count)]
        }

        func randomZone(in context: ManagedObjectContext) -> ManagedObject? {
            guard !zoneObjects.isEmpty else { return nil }
            let id = zoneObjects[int(0..<zoneObjects.count)]
            return try? context.existingObject(with: id)
        }

        /// One random edit in `context` (names and wins drawn from small sets, so sort keys tie).
        func edit(_ context: ManagedObjectContext) throws {
            switch int(0..<100) {
            case 0..<30:
                WorldCup.insertTeam(
                    context, name: "N\(int(0..<25))", zone: zoneName(), wins: Int64(int(0..<6)), zoneObject: int(0..<5) == 0 ? nil : randomZone(in: context))
            case 30..<55:
                try randomTeam(in: context)?.setValue(Int64(int(0..<6)), forKey: "wins")
            case 55..<68:
                try randomTeam(in: context)?.setValue(zoneName(), forKey: "qualifyingZone")
            case 68..<78:
                if let team = try randomTeam(in: context) { context.delete(team) }
            case 78..<86:
                randomZone(in: context)?.setValue("Z\(int(0..<8))", forKey: "name")
            case 86..<94:
                try randomTeam(in: context)?.setValue(randomZone(in: context), forKey: "zone")
            default:
                try randomTeam(in: context)?.setValue("N\(int(0..<25))", forKey: "name")
            }
        }
    }

    /// The controllers under test on the view context, and how to check them.
    final class Watched {
        let byZone: FetchedResultsController<ManagedObject>
        let byZoneObject: FetchedResultsController<ManagedObject>
        let snapshots: FetchedResultsController<ManagedObject>
        let byZoneTable: TableRecorder
        let byZoneObjectTable: TableRecorder
        let snapshotRecorder: SnapshotRecorder

        init(_ context: ManagedObjectContext) throws {
            byZone = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            byZoneObject = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZoneObject(), managedObjectContext: context, sectionNameKeyPath: "zone.name", cacheName: nil)
            snapshots = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            try byZone.performFetch()
            try byZoneObject.performFetch()
            try snapshots.performFetch()
            byZoneTable = TableRecorder(byZone)
            byZoneObjectTable = TableRecorder(byZoneObject)
            snapshotRecorder = SnapshotRecorder(snapshots)
            byZone.delegate = byZoneTable
            byZoneObject.delegate = byZoneObjectTable
            snapshots.delegate = snapshotRecorder
        }

        /// Compares every controller with a fresh one (and the fresh one with a plain fetch).
        func check(_ context: ManagedObjectContext, _ label: String) throws {
            for (request, keyPath, table, controller) in [
                (WorldCup.teamsByZone(), "qualifyingZone", byZoneTable, byZone), (WorldCup.teamsByZoneObject(), "zone.name", byZoneObjectTable, byZoneObject),
            ] {
                let fresh = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: keyPath, cacheName: nil)
                try fresh.performFetch()
                let truth = TableState(fresh)
                #expect(TableState(controller) == truth, "\(label) \(keyPath): controller \(TableState(controller)) vs fresh \(truth)")
                #expect(table.table == truth, "\(label) \(keyPath): applied changes \(table.table) vs fresh \(truth)")
                #expect(table.problems.isEmpty, "\(label) \(keyPath): \(table.problems)")
                let fetched = try context.fetch(request).map(ObjectIdentifier.init)
                if keyPath == "qualifyingZone" || !context.hasChanges {
                    #expect(truth.sections.flatMap(\.items) == fetched, "\(label) \(keyPath): fresh controller order vs fetch")
                } else {
                    // As in Core Data, a fetch orders by the stored values of related objects
                    // (an unsaved rename of a zone does not reorder it); the controller orders
                    // by the current ones. The members are the same.
                    #expect(Set(truth.sections.flatMap(\.items)) == Set(fetched), "\(label) \(keyPath): fresh controller members vs fetch")
                }
            }
            let fresh = FetchedResultsController(
                fetchRequest: WorldCup.teamsByZone(), managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
            try fresh.performFetch()
            #expect(snapshotRecorder.last == fresh.snapshot, "\(label): snapshot")
        }
    }

    @Test("applying the reported changes gives a fresh fetch", arguments: TestStack.Kind.allCases, [UInt64(1), 7, 42, 2026])
    func randomWalk(kind: TestStack.Kind, seed: UInt64) throws {
        let walk = try Walk(kind: kind, seed: seed)
        let view = walk.view
        let watched = try view.performAndWait {
            var zones: [ManagedObject] = []
            for name in WorldCup.zones { zones.append(WorldCup.insertZone(view, name: name)) }
            for index in 0..<20 {
                WorldCup.insertTeam(
                    view, name: "N\(index)", zone: WorldCup.zones[index % WorldCup.zones.count], wins: Int64(index % 4), zoneObject: zones[index % zones.count])
            }
            try view.save()
            walk.zoneObjects = zones.map(\.objectID)
            return try Watched(view)
        }
        var checks = 0
        for step in 0..<220 {
            let op = walk.int(0..<100)
            let label = "seed \(seed) \(kind) step \(step) op \(op)"
            switch op {
            case 0..<55:
                try view.performAndWait {
                    for _ in 0..<walk.int(1..<4) { try walk.edit(view) }
                }
            case 55..<65:
                try view.performAndWait { try view.save() }
            case 65..<75:
                // A background save, merged into the view.
                let ids = try walk.background.performAndWait {
                    for _ in 0..<walk.int(1..<4) { try walk.edit(walk.background) }
                    let inserted = walk.background.insertedObjects
                    let updated = walk.background.updatedObjects
                    let deleted = walk.background.deletedObjects
                    try walk.background.save()
                    return (Set(inserted.map(\.objectID)), Set(updated.map(\.objectID)), Set(deleted.map(\.objectID)))
                }
                view.performAndWait {
                    typealias Key = ManagedObjectContext.NotificationKey
                    view.mergeChanges(
                        fromContextDidSave: Notification(
                            name: .managedObjectContextDidSave, object: nil,
                            userInfo: [Key.insertedObjectIDs: ids.0, Key.updatedObjectIDs: ids.1, Key.deletedObjectIDs: ids.2]))
                }
            case 75..<83:
                // A child's save pushes into the view.
                let child = ManagedObjectContext(concurrencyType: .privateQueue)
                child.parent = view
                child.mergePolicy = .mergeByPropertyObjectTrump
                try child.performAndWait {
                    for _ in 0..<walk.int(1..<3) { try walk.edit(child) }
                    try child.save()
                }
            case 83..<88:
                // A batch update merged into every context.
                let update = BatchUpdateRequest(entityName: "Team")
                update.predicate = ObjectPredicate(format: "qualifyingZone == %@", WorldCup.zones[walk.int(0..<WorldCup.zones.count)])
                update.propertiesToUpdate = walk.int(0..<2) == 0 ? ["wins": ObjectExpression(format: "wins + 1")] : ["qualifyingZone": walk.zoneName()]
                update.mergesChangesIntoContexts = true
                view.mergePolicy = .mergeByPropertyObjectTrump
                _ = try walk.background.performAndWait { try walk.background.execute(update) }
                view.performAndWait {}
            case 88..<94:
                view.performAndWait { view.rollback() }
            case 94..<96:
                view.performAndWait { view.reset() }
            default:
                break
            }
            try view.performAndWait {
                view.processPendingChanges()
                try watched.check(view, label)
            }
            checks += 1
        }
        view.performAndWait {
            #expect(watched.byZoneTable.events > 50, "the walk changed the results")
            #expect((watched.byZoneTable.counts[.move] ?? 0) > 0)
            #expect((watched.byZoneTable.counts[.insert] ?? 0) > 0)
            #expect((watched.byZoneTable.counts[.delete] ?? 0) > 0)
            #expect((watched.byZoneTable.counts[.update] ?? 0) > 0)
            #expect(watched.snapshotRecorder.events > 50)
        }
        #expect(checks == 220)
    }
}
