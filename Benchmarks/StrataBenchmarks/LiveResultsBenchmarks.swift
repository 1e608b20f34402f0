import BenchmarkHarness
import Foundation
import Strata

/// A fetched-results controller over 100,000 teams in 50 sections receiving a background save
/// of 1,000 changes (wins changed, one in ten moved to another section), merged into its
/// context: the controller applying them in place (issue #15, item 3) vs the same merge followed
/// by a full refetch (a new controller's `performFetch()`), which is what a view without
/// change tracking does. Each iteration starts from its own copy of the data set, with the
/// view's controller fetched and the background save made outside the measurement. Both
/// sides' digests hold the final layout (section names and every team's name, in order), read
/// unmeasured.
enum LiveResultsBenchmarks {
    static let teams = 100_000
    static let sections = 50
    static let changes = 1_000

    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 7, scalingFactor: changes)
        suite.pair(
            "fetched-results controller: a save of \(Sizes.label(changes)) changes into \(Sizes.label(teams)) objects in \(sections) sections, applied in place vs a full refetch",
            configuration: configuration, targets: [.ratioAtMost(0.25)],
            strata: { context in try run(context, refetch: false) },
            raw: { context in try run(context, refetch: true) })
    }

    /// The model: teams with a zone (the section), wins and a name.
    static let model: ManagedObjectModel = {
        let team = EntityDescription(name: "Team")
        team.properties = [
            AttributeDescription(name: "zone", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "wins", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
        ]
        return ManagedObjectModel(entities: [team])
    }()

    static func request() -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Team")
        request.sortDescriptors = [
            ObjectSortDescriptor(key: "zone", ascending: true), ObjectSortDescriptor(key: "wins", ascending: false),
            ObjectSortDescriptor(key: "name", ascending: true),
        ]
        return request
    }

    static func zone(_ index: Int) -> String { "zone \(String(format: "%02d", index % sections))" }

    /// The data set, written once per run with a batch insert.
    static let source: Result<URL, any Error> = Result(catching: { () throws -> URL in
        let url = Datasets.shared.freshURL("live-results-source")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let insert = BatchInsertRequest(
                entityName: "Team",
                objects: (0..<teams).map { ["zone": zone($0 &* 7), "wins": Int64(($0 &* 31) % 100), "name": "team \($0)"] as [String: Any] })
            _ = try context.execute(insert)
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    })

    /// Counts the controller's reports (so the strata side's delegate does real work).
    final class Counter: FetchedResultsControllerDelegate {
        var changes = 0
        func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
            changes += 1
        }
    }

    /// What one iteration holds, released inside the last unmeasured segment (tearing down
    /// 100,000 objects is not what is measured).
    final class Iteration {
        var view: ManagedObjectContext?
        var background: ManagedObjectContext?
        var controller: AnyFetchedResultsController?
        var first: AnyFetchedResultsController?
        let counter = Counter()
    }

    private static func run(_ context: BenchmarkContext, refetch: Bool) throws -> RowDigest {
        let iteration = Iteration()
        let url = try context.unmeasured { () throws -> URL in
            // (The view and background contexts are only reached through `iteration`, so that
            // everything is released inside the last unmeasured segment.)
            let url = Datasets.shared.freshURL("live-results")
            try FileManager.default.copyItem(at: try source.get(), to: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let view = ManagedObjectContext(concurrencyType: .privateQueue)
            view.persistentStoreCoordinator = coordinator
            let background = ManagedObjectContext(concurrencyType: .privateQueue)
            background.persistentStoreCoordinator = coordinator
            iteration.view = view
            iteration.background = background
            try view.performAndWait {
                let controller = FetchedResultsController(fetchRequest: request(), managedObjectContext: view, sectionNameKeyPath: "zone", cacheName: nil)
                try controller.performFetch()
                controller.delegate = iteration.counter
                // The refetching side keeps its first controller too, without a delegate (so,
                // as in Core Data, it does not follow changes): both sides hold the same objects.
                if refetch { controller.delegate = nil }
                iteration.controller = controller
                iteration.first = controller
            }
            return url
        }
        // The background save (unmeasured): the same 1,000 teams and values on both sides.
        let saved = try context.unmeasured { () throws -> Set<ManagedObjectID> in
            guard let background = iteration.background else { throw RawDatabase.Failure(message: "no background context") }
            return try background.performAndWait {
                let all = try background.fetch(FetchRequest<ManagedObject>(entityName: "Team"))
                var ids = Set<ManagedObjectID>()
                for step in 0..<changes {
                    let team = all[(step &* 7_919) % all.count]
                    team.setValue(Int64((step &* 13) % 100), forKey: "wins")
                    if step % 10 == 0 { team.setValue(zone(step &* 3), forKey: "zone") }
                    ids.insert(team.objectID)
                }
                try background.save()
                background.reset()
                return ids
            }
        }
        // Measured: the merge, then either the controller's in-place update or a refetch.
        guard let view = iteration.view else { throw RawDatabase.Failure(message: "no view context") }
        try view.performAndWait {
            view.mergeChanges(
                fromContextDidSave: Notification(
                    name: .managedObjectContextDidSave, object: nil, userInfo: [ManagedObjectContext.NotificationKey.updatedObjectIDs: saved]))
            if refetch {
                let fresh = FetchedResultsController(fetchRequest: request(), managedObjectContext: view, sectionNameKeyPath: "zone", cacheName: nil)
                try fresh.performFetch()
                iteration.controller = fresh
            }
        }
        return try context.unmeasured {
            defer {
                iteration.first = nil
                iteration.controller = nil
                iteration.view = nil
                iteration.background = nil
                try? FileManager.default.removeItem(at: url)  // (any left by a failure go with the data sets' folder)
            }
            if !refetch && iteration.counter.changes == 0 { throw RawDatabase.Failure(message: "the controller reported no change") }
            var digest = RowDigest()
            try view.performAndWait {
                var total = 0
                for section in iteration.controller?.sections ?? [] {
                    for case let object as ManagedObject in section.objects ?? [] {
                        var row = RowHasher()
                        row.combine(total)  // the place counts, not only the members
                        row.combine(section.name)
                        row.combine(object.value(forKey: "name") as? String ?? "")
                        row.combine(object.value(forKey: "wins") as? Int64 ?? -1)
                        digest.add(row)
                        total += 1
                    }
                }
                if total != teams { throw RawDatabase.Failure(message: "the layout holds \(total) teams, not \(teams)") }
            }
            return digest
        }
    }
}
