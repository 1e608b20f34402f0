import Foundation
import Strata
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// Batch updates and inserts on PostgreSQL run as single statements and behave as Core Data's
/// `NSBatchUpdateRequest` and `NSBatchInsertRequest` do on SQLite: the result names the rows,
/// objects refreshed afterwards show the values, a batch insert with a uniqueness constraint
/// updates the stored row that matches, and other coordinators hear of it.
@Suite("PostgreSQL batch requests", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLBatchRequestTests {
    static func model() -> ManagedObjectModel {
        let model = StoreConformanceTests.peopleModel()
        model.entitiesByName["Team"]?.uniquenessConstraints = [["name"]]
        return model
    }

    static func stack(_ database: PostgreSQLTestDatabase, model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try database.addStore(to: coordinator)
        return StoreConformanceTests.context(coordinator)
    }

    @Test("a batch update sets constants on the matching rows, by a predicate SQL runs or one left to memory")
    func batchUpdate() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.model()
        let context = try Self.stack(database, model: model)
        let watcher = try Self.stack(database, model: model)
        watcher.automaticallyMergesChangesFromParent = true
        try StoreConformanceTests.seedPeople(context, model: model)
        let watched = try watcher.performAndWait { () throws -> ManagedObject in
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "age == 29")
            return try #require(try watcher.fetch(request).first)
        }
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Person")
            update.predicate = ObjectPredicate(format: "age >= 25 AND team.name == %@", "blue")
            update.propertiesToUpdate = ["score": 9.5, "name": "senior"]
            update.resultType = .updatedObjectIDsResultType
            let ids = try #require((try context.execute(update) as? BatchUpdateResult)?.result as? [ManagedObjectID])
            #expect(ids.count == 3)  // ages 25, 27, 29 are blue
            let check = FetchRequest<ManagedObject>(entityName: "Person")
            check.predicate = ObjectPredicate(format: "name == 'senior'")
            #expect(try context.fetch(check).map { $0.value(forKey: "age") as? Int64 }.compactMap { $0 }.sorted() == [25, 27, 29])

            // [cd] is left to Strata's engine; the result is the same kind.
            let folded = BatchUpdateRequest(entityName: "Person")
            folded.predicate = ObjectPredicate(format: "name ==[cd] %@", "SÉNIOR")
            folded.propertiesToUpdate = ["score": 1.0]
            folded.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(folded) as? BatchUpdateResult)?.result as? Int == 3)
        }
        #expect(ChangesMadeElsewhereTests.eventually(watcher, within: 5) { watched.value(forKey: "name") as? String == "senior" })
    }

    @Test("a batch insert adds rows, and upserts on a uniqueness constraint")
    func batchInsert() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.model()
        let context = try Self.stack(database, model: model)
        try context.performAndWait {
            let people = BatchInsertRequest(entityName: "Person", objects: (0..<2_500).map { ["name": "n\($0)", "age": $0] })
            people.resultType = .objectIDs
            let ids = try #require((try context.execute(people) as? BatchInsertResult)?.result as? [ManagedObjectID])
            #expect(ids.count == 2_500 && Set(ids).count == 2_500)
            let first = try context.existingObject(with: ids[0])
            #expect(first.value(forKey: "name") as? String == "n0")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 2_500)

            let red = BatchInsertRequest(entityName: "Team", objects: [["name": "red"], ["name": "blue"]])
            red.resultType = .objectIDs
            let teamIDs = try #require((try context.execute(red) as? BatchInsertResult)?.result as? [ManagedObjectID])
            let again = BatchInsertRequest(entityName: "Team", objects: [["name": "blue"], ["name": "green"]])
            again.resultType = .objectIDs
            let secondIDs = try #require((try context.execute(again) as? BatchInsertResult)?.result as? [ManagedObjectID])
            // "blue" matched the stored team: the same object, updated, not a second one.
            #expect(secondIDs[0] == teamIDs[1])
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Team")) == 3)
        }
    }
}
