import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store of the public seam may run a batch update itself (`IncrementalStore.executeBatchUpdate`,
/// one `UPDATE` on a SQL store) or leave it to Strata. Core Data's `NSBatchUpdateRequest` result
/// is the same either way: the count or the IDs of the updated rows, and contexts that refresh
/// the objects read the new values.
@Suite("Batch updates through the store seam")
struct StoreBatchUpdateSeamTests {
    static func stack() throws -> (PersistentStoreCoordinator, DictionaryStore) {
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        let store = try coordinator.addPersistentStore(type: DictionaryStore.storeType)
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(coordinator), model: coordinator.managedObjectModel)
        return (coordinator, try #require(store.incrementalStore as? DictionaryStore))
    }

    @Test("a constant update runs in the store; its result and the refreshed objects show it")
    func constantsRunInTheStore() throws {
        let (coordinator, store) = try Self.stack()
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let older = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).filter { ($0.value(forKey: "age") as? Int64 ?? 0) >= 25 }
            let update = BatchUpdateRequest(entityName: "Person")
            update.predicate = ObjectPredicate(format: "age >= 25")
            update.propertiesToUpdate = ["score": 10.0, "name": "senior"]
            update.resultType = .updatedObjectIDsResultType
            let result = try #require(try context.execute(update) as? BatchUpdateResult)
            let ids = try #require(result.result as? [ManagedObjectID])
            #expect(Set(ids) == Set(older.map(\.objectID)))
            #expect(store.batchUpdatesRun == 1)
            for person in older { context.refresh(person, mergeChanges: false) }
            #expect(older.allSatisfy { $0.value(forKey: "name") as? String == "senior" && $0.value(forKey: "score") as? Double == 10 })
        }
    }

    @Test("an update by expression is left to Strata and gives the same kind of result")
    func expressionsAreLeftToStrata() throws {
        let (coordinator, store) = try Self.stack()
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Person")
            update.propertiesToUpdate = ["age": ObjectExpression(format: "age + 1")]
            update.resultType = .updatedObjectsCountResultType
            let result = try #require(try context.execute(update) as? BatchUpdateResult)
            #expect(result.result as? Int == 10)
            #expect(store.batchUpdatesRun == 0)
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            #expect(try context.fetch(request).first?.value(forKey: "age") as? Int64 == 21)
        }
    }

    @Test("the request a store receives names its rows, constants and expressions")
    func requestParts() throws {
        final class Recorder: IncrementalStore, @unchecked Sendable {
            nonisolated(unsafe) static var seen: (constants: [String: Any?], expressions: [String: ObjectExpression], predicate: String?)?
            override func loadMetadata() throws -> [String: any Sendable] { [StoreMetadataKey.storeUUID: UUID().uuidString] }
            override func executeBatchUpdate(_ request: StoreBatchUpdateRequest) throws -> StoreBatchUpdateResult? {
                Self.seen = (request.constantsToUpdate, request.expressionsToUpdate, request.rows.predicate?.predicateFormat)
                return StoreBatchUpdateResult(count: 0)
            }
        }
        let type = StoreType(rawValue: "StrataTestBatchRecorder")
        PersistentStoreCoordinator.registerStoreClass(Recorder.self, forStoreType: type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        try coordinator.addPersistentStore(type: type)
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Person")
            update.predicate = ObjectPredicate(format: "name BEGINSWITH %@", "p")
            update.propertiesToUpdate = ["age": ObjectExpression(format: "age * 2"), "score": ObjectExpression(forConstantValue: 1.5)]
            _ = try context.execute(update)
        }
        let seen = try #require(Recorder.seen)
        #expect(seen.constants.count == 1 && seen.constants["score"] as? Double == 1.5)
        #expect(seen.expressions["age"] == ObjectExpression(format: "age * 2"))
        #expect(seen.predicate == #"name BEGINSWITH "p""#)
    }
}

/// A store of the public seam may run a batch insert itself (`IncrementalStore.executeBatchInsert`,
/// one `INSERT` on a SQL store) or leave it to Strata; Core Data's `NSBatchInsertRequest` result
/// is the same either way.
@Suite("Batch inserts through the store seam")
struct StoreBatchInsertSeamTests {
    @Test("plain inserts run in the store; upserts are left to Strata; both give the rows")
    func insertsAndUpserts() throws {
        let model = StoreConformanceTests.peopleModel()
        let team = try #require(model.entitiesByName["Team"])
        team.uniquenessConstraints = [["name"]]
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(try coordinator.addPersistentStore(type: DictionaryStore.storeType).incrementalStore as? DictionaryStore)
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let people = BatchInsertRequest(entityName: "Person", objects: [["name": "a", "age": 1], ["name": "b"], ["score": 2.5]])
            people.resultType = .objectIDs
            let ids = try #require((try context.execute(people) as? BatchInsertResult)?.result as? [ManagedObjectID])
            #expect(ids.count == 3 && Set(ids).count == 3)
            #expect(store.batchInsertsRun == 1)
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            let fetched = try context.fetch(request)
            // Defaults fill what a row left out ("" for name, 0 for age), as in Core Data.
            #expect(fetched.map { $0.value(forKey: "name") as? String } == ["", "a", "b"])
            #expect(fetched.map { $0.value(forKey: "age") as? Int64 } == [0, 1, 0])

            let teams = BatchInsertRequest(entityName: "Team", objects: [["name": "red"], ["name": "red"], ["name": "blue"]])
            teams.resultType = .count
            #expect((try context.execute(teams) as? BatchInsertResult)?.result as? Int == 2)
            #expect(store.batchInsertsRun == 1)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Team")) == 2)
        }
    }
}
