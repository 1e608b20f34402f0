import Foundation
import Strata
import StrataLocks
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// Several app servers on one database: each PostgreSQL store announces its commits (`NOTIFY`)
/// and listens for the others' (`LISTEN`). Core Data's promise for a context with
/// `automaticallyMergesChangesFromParent` is that it merges what other contexts save through
/// its coordinator; Strata keeps it across coordinators of a PostgreSQL database, with no polling
/// in the app's code. Two coordinators in one test process stand for two servers: each has its
/// own store instance, connections and listener.
@Suite("PostgreSQL change notifications", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLChangeNotificationTests {
    static func coordinator(_ database: PostgreSQLTestDatabase, options: [String: any Sendable] = [:]) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        try database.addStore(to: coordinator, options: options)
        return coordinator
    }

    @Test("a merging context of another coordinator sees inserts, updates and deletes within seconds")
    func mergesAcrossCoordinators() throws {
        let database = try PostgreSQLTestDatabase()
        let writerCoordinator = try Self.coordinator(database)
        let readerCoordinator = try Self.coordinator(database)
        let writer = StoreConformanceTests.context(writerCoordinator)
        try StoreConformanceTests.seedPeople(writer, model: writerCoordinator.managedObjectModel)
        let reader = StoreConformanceTests.context(readerCoordinator)
        reader.automaticallyMergesChangesFromParent = true
        let (first, second) = try reader.performAndWait { () throws -> (ManagedObject, ManagedObject) in
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            let people = try reader.fetch(request)
            return (people[0], people[1])
        }
        let secondID = reader.performAndWait { second.objectID }
        let objectsDidChange = StrataLock(0)
        let observer = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: reader, queue: nil) { _ in
            objectsDidChange.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            let people = try writer.fetch(request)
            people[0].setValue("renamed on the other server", forKey: "name")
            writer.delete(try #require(people.first { $0.objectID.uriRepresentation() == secondID.uriRepresentation() }))
            try writer.save()
        }
        #expect(ChangesMadeElsewhereTests.eventually(reader, within: 5) { first.value(forKey: "name") as? String == "renamed on the other server" && second.isDeleted })
        #expect(objectsDidChange.withLock { $0 } >= 1)
    }

    @Test("the remote-change notification is posted for another coordinator's commit, not for one's own")
    func remoteChangeNotification() throws {
        let database = try PostgreSQLTestDatabase()
        let observed = try Self.coordinator(database, options: [PersistentStoreOption.remoteChangeNotificationPost: true])
        let other = try Self.coordinator(database)
        let received = StrataLock(0)
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: observed, queue: nil) { _ in
            received.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(observed), model: observed.managedObjectModel)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(received.withLock { $0 } == 0)
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(other), model: other.managedObjectModel)
        let deadline = Date().addingTimeInterval(5)
        while received.withLock({ $0 }) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(received.withLock { $0 } >= 1)
    }

    @Test("a save of thousands of rows is announced in several messages, and all of it is merged")
    func largeSaves() throws {
        let database = try PostgreSQLTestDatabase()
        let writerCoordinator = try Self.coordinator(database)
        let readerCoordinator = try Self.coordinator(database)
        let writer = StoreConformanceTests.context(writerCoordinator)
        let model = writerCoordinator.managedObjectModel
        let count = 3_000
        try writer.performAndWait {
            for index in 0..<count {
                let person = ManagedObject(entity: try #require(model.entitiesByName["Person"]), insertInto: writer)
                person.setValue("n\(index)", forKey: "name")
            }
            try writer.save()
        }
        let reader = StoreConformanceTests.context(readerCoordinator)
        reader.automaticallyMergesChangesFromParent = true
        let people = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")) }
        try writer.performAndWait {
            for person in try writer.fetch(FetchRequest<ManagedObject>(entityName: "Person")) { person.setValue(Int64(7), forKey: "age") }
            try writer.save()
        }
        #expect(ChangesMadeElsewhereTests.eventually(reader, within: 10) { people.count == count && people.allSatisfy { $0.value(forKey: "age") as? Int64 == 7 } })
    }
}
