import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The section cache (issue #15, item 4). Core Data: "If Core Data finds a cache stored with
/// this name, it is checked to see if it matches the fetchRequest. If it does, the cache is
/// loaded directly — this avoids the overhead of computing the section and index information.
/// If the cached information doesn't match the request, the cache is deleted and recomputed"
/// (init(fetchRequest:managedObjectContext:sectionNameKeyPath:cacheName:) documentation);
/// `deleteCache(withName:)` deletes it, nil deleting every cache.
@Suite("Fetched-results controller cache")
struct FetchedResultsCacheTests {
    static func controller(_ context: ManagedObjectContext, _ request: FetchRequest<ManagedObject>, cacheName: String) -> FetchedResultsController<ManagedObject> {
        FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: cacheName)
    }

    static func readsTeams(_ statements: [String]) -> Bool {
        statements.contains { $0.uppercased().hasPrefix("SELECT") && $0.contains("ZTEAM") }
    }

    @Test("a cache is reused for the same request and unchanged store, and invalidated otherwise")
    func reuseAndInvalidation() throws {
        let name = "strata-test-\(UUID().uuidString)"
        defer { AnyFetchedResultsController.deleteCache(withName: name) }
        let file = FetchedResultsCache.directory.appendingPathComponent(FetchedResultsCache.fileName(for: name))
        let stack = try TestStack(model: WorldCup.model(), kind: .sqlite)
        let recorder = stack.recordSQL()
        let first = stack.newContext()
        let layout = try first.performAndWait {
            try FetchedResultsControllerTests.seedWorldCup(first)
            let controller = Self.controller(first, WorldCup.teamsByZone(), cacheName: name)
            try controller.performFetch()
            return TableNames(controller)
        }
        #expect(FileManager.default.fileExists(atPath: file.path))

        // Same request, store unchanged: no fetch runs; the same layout, as faults.
        let second = stack.newContext()
        try second.performAndWait {
            let controller = Self.controller(second, WorldCup.teamsByZone(), cacheName: name)
            let statements = try recorder.statements { try controller.performFetch() }
            #expect(!Self.readsTeams(statements), "\(statements)")
            #expect(TableNames(controller) == layout)
            #expect(controller.fetchedObjects?.allSatisfy(\.isFault) == true)
            #expect(controller.sectionIndexTitles == ["A", "E", "N", "S"])
        }

        // Another request under the same name: recomputed (and the cache rewritten for it).
        let third = stack.newContext()
        try third.performAndWait {
            let request = WorldCup.teamsByZone()
            request.predicate = ObjectPredicate(format: "wins > 4")
            let controller = Self.controller(third, request, cacheName: name)
            let statements = try recorder.statements { try controller.performFetch() }
            #expect(Self.readsTeams(statements))
            #expect(controller.fetchedObjects?.count == 5)
        }

        // The store changed since the cache was written: recomputed.
        try first.performAndWait {
            WorldCup.insertTeam(first, name: "Egypt", zone: "Africa", wins: 5)
            try first.save()
        }
        let fourth = stack.newContext()
        try fourth.performAndWait {
            let request = WorldCup.teamsByZone()
            request.predicate = ObjectPredicate(format: "wins > 4")
            let controller = Self.controller(fourth, request, cacheName: name)
            let statements = try recorder.statements { try controller.performFetch() }
            #expect(Self.readsTeams(statements))
            #expect(controller.fetchedObjects?.count == 6)
        }

        AnyFetchedResultsController.deleteCache(withName: name)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// The cache describes the results as fetched: the first change the controller reports
    /// makes it stale, so it is deleted then (the next performFetch writes it again).
    @Test("a reported change deletes the cache; unsaved changes and in-memory stores are not cached")
    func changesAndLimits() throws {
        let name = "strata-test-\(UUID().uuidString)"
        defer { AnyFetchedResultsController.deleteCache(withName: name) }
        let file = FetchedResultsCache.directory.appendingPathComponent(FetchedResultsCache.fileName(for: name))
        let stack = try TestStack(model: WorldCup.model(), kind: .sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            try FetchedResultsControllerTests.seedWorldCup(context)
            let controller = Self.controller(context, WorldCup.teamsByZone(), cacheName: name)
            try controller.performFetch()
            let recorder = TableRecorder(controller)
            controller.delegate = recorder
            #expect(FileManager.default.fileExists(atPath: file.path))
            controller.fetchedObjects?.first?.setValue(Int64(99), forKey: "wins")
            context.processPendingChanges()
            #expect(!FileManager.default.fileExists(atPath: file.path))
            // With unsaved changes the layout is not written.
            let again = Self.controller(context, WorldCup.teamsByZone(), cacheName: name)
            try again.performFetch()
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
        let memory = try TestStack(model: WorldCup.model(), kind: .inMemory)
        let memoryContext = memory.newContext()
        try memoryContext.performAndWait {
            try FetchedResultsControllerTests.seedWorldCup(memoryContext)
            try Self.controller(memoryContext, WorldCup.teamsByZone(), cacheName: name).performFetch()
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    /// A damaged cache file is an optimisation lost, never an error.
    @Test("a damaged cache file is ignored and replaced")
    func damagedFile() throws {
        let name = "strata-test-\(UUID().uuidString)"
        defer { AnyFetchedResultsController.deleteCache(withName: name) }
        let file = FetchedResultsCache.directory.appendingPathComponent(FetchedResultsCache.fileName(for: name))
        let stack = try TestStack(model: WorldCup.model(), kind: .sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            try FetchedResultsControllerTests.seedWorldCup(context)
            try Self.controller(context, WorldCup.teamsByZone(), cacheName: name).performFetch()
        }
        // One flipped bit in the object table (the header intact) must not load other objects.
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: file)
        let other = stack.newContext()
        try other.performAndWait {
            let controller = Self.controller(other, WorldCup.teamsByZone(), cacheName: name)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 9)
            #expect(controller.fetchedObjects?.contains(where: \.isFault) == false)  // fetched, not read from the file
        }
        try Data("short".utf8).write(to: file)
        let third = stack.newContext()
        try third.performAndWait {
            let controller = Self.controller(third, WorldCup.teamsByZone(), cacheName: name)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 9)
        }
    }
}

/// Section names and object IDs of a controller, comparable across contexts.
struct TableNames: Equatable {
    let sections: [String]
    let ids: [[ManagedObjectID]]

    init(_ controller: AnyFetchedResultsController) {
        sections = (controller.sections ?? []).map(\.name)
        ids = (controller.sections ?? []).map { ($0.objects ?? []).compactMap { ($0 as? ManagedObject)?.objectID } }
    }
}
