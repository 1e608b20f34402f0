import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store of the public seam may run a batch delete itself (`IncrementalStore.executeBatchDelete`,
/// a few statements on a SQL store) or leave it to Strata. Core Data's `NSBatchDeleteRequest`
/// result is the same either way: a status, the count or the IDs of the deleted objects
/// (cascaded ones included), with the model's delete rules applied, and merging the IDs
/// (`mergesChangesIntoContexts`) turns live objects into deleted ones.
@Suite("Batch deletes through the store seam")
struct StoreBatchDeleteSeamTests {
    /// The people model with `team` and `members` given `rule` (`noAction` reaches no other
    /// row when people are deleted), seeded, on a `DictionaryStore`.
    static func stack(rule: RelationshipDescription.DeleteRule) throws -> (PersistentStoreCoordinator, DictionaryStore) {
        let model = StoreConformanceTests.peopleModel()
        for entity in model.entities {
            for relationship in entity.relationshipsByName.values { relationship.deleteRule = rule }
        }
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: DictionaryStore.storeType)
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(coordinator), model: model)
        return (coordinator, try #require(store.incrementalStore as? DictionaryStore))
    }

    /// Core Data: NSBatchDeleteRequest runs in the persistent store without loading objects;
    /// `.resultTypeObjectIDs` names the deleted objects, and merging them marks live objects
    /// deleted (NSIncrementalStore stores answer a request they can run themselves).
    @Test("a delete that reaches no other row runs in the store; its IDs merge into a live context")
    func runsInTheStore() throws {
        let (coordinator, store) = try Self.stack(rule: .noAction)
        let viewer = StoreConformanceTests.context(coordinator)
        let older = try viewer.performAndWait {
            try viewer.fetch(FetchRequest<ManagedObject>(entityName: "Person")).filter { ($0.value(forKey: "age") as? Int64 ?? 0) >= 25 }
        }
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let request = BatchDeleteRequest(
                fetchRequest: {
                    let fetch = FetchRequest<ManagedObject>(entityName: "Person")
                    fetch.predicate = ObjectPredicate(format: "age >= 25")
                    return fetch
                }())
            request.resultType = .resultTypeObjectIDs
            request.mergesChangesIntoContexts = true
            let ids = try #require((try context.execute(request) as? BatchDeleteResult)?.result as? [ManagedObjectID])
            #expect(Set(ids) == Set(older.map(\.objectID)))
            #expect(store.batchDeletesRun == 1)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 5)
        }
        viewer.performAndWait {}  // the merge was queued on the viewer's queue
        #expect(viewer.performAndWait { older.allSatisfy { $0.isDeleted } })
    }

    /// Core Data: a batch delete applies the nullify rule (NSDeleteRule.nullifyDeleteRule): the
    /// deleted team's members stay, without a team; `.resultTypeCount` counts the deleted rows.
    @Test("a delete with rules to apply is left to Strata and gives the same kind of result")
    func rulesAreLeftToStrata() throws {
        let (coordinator, store) = try Self.stack(rule: .nullify)
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let request = BatchDeleteRequest(
                fetchRequest: {
                    let fetch = FetchRequest<ManagedObject>(entityName: "Team")
                    fetch.predicate = ObjectPredicate(format: "name == 'red'")
                    return fetch
                }())
            request.resultType = .resultTypeCount
            let result = try context.execute(request) as? BatchDeleteResult
            #expect(result?.result as? Int == 1)
            #expect(store.batchDeletesRun == 0)
            // Nullify: the red team's members stay, without a team.
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(people.count == 10)
            #expect(people.filter { $0.value(forKey: "team") == nil }.count == 5)
        }
    }

    /// Core Data: a batch delete starts from a fetch request (its predicate, sub-entities) or
    /// from object IDs of one entity, follows cascade (NSDeleteRule.cascadeDeleteRule) to the
    /// destination's objects and nullify to the inverse, and `.resultTypeStatusOnly` gives true.
    @Test("the request a store receives names its rows or objects and the delete rules; its result is the context's")
    func requestParts() throws {
        final class Recorder: IncrementalStore, @unchecked Sendable {
            struct Seen {
                var entity: String
                var predicate: String?
                var includesSubentities: Bool
                var objectIDs: [ManagedObjectID]?
                var rules: [String]
                var returnsObjectIDs: Bool
                var returnsChangedObjectIDs: Bool
            }
            nonisolated(unsafe) static var seen: [Seen] = []
            /// What the store answers: a count, and whether it names as many objects.
            nonisolated(unsafe) static var namesAsMany = true
            override func loadMetadata() throws -> [String: any Sendable] { [StoreMetadataKey.storeUUID: UUID().uuidString] }
            override func executeBatchDelete(_ request: StoreBatchDeleteRequest) throws -> StoreBatchDeleteResult? {
                let rules =
                    request.cascadeRelationships.map { "cascade \($0.name)" } + request.denyRelationships.map { "deny \($0.name)" }
                    + request.nullifyRelationships.map { "nullify \($0.name)" }
                Self.seen.append(
                    Seen(
                        entity: request.entity.name, predicate: request.predicate?.predicateFormat, includesSubentities: request.includesSubentities,
                        objectIDs: request.objectIDs, rules: rules.sorted() + request.deletableEntities.map { "deletes \($0.name)" }, returnsObjectIDs: request.returnsObjectIDs,
                        returnsChangedObjectIDs: request.returnsChangedObjectIDs))
                let ids = request.objectIDs ?? []
                return StoreBatchDeleteResult(count: Self.namesAsMany ? ids.count : ids.count + 1, deletedObjectIDs: request.returnsObjectIDs ? ids : [])
            }
        }
        let type = StoreType(rawValue: "StrataTestBatchDeleteRecorder")
        PersistentStoreCoordinator.registerStoreClass(Recorder.self, forStoreType: type)
        let model = StoreConformanceTests.peopleModel()
        let team = try #require(model.entitiesByName["Team"])
        team.relationshipsByName["members"]?.deleteRule = .cascade
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type)
        let context = StoreConformanceTests.context(coordinator)
        let ids = [1, 2].map { store.incrementalStore.newObjectID(for: team, referenceObject: Int64($0)) }
        try context.performAndWait {
            let fetch = FetchRequest<ManagedObject>(entityName: "Team")
            fetch.predicate = ObjectPredicate(format: "name BEGINSWITH %@", "r")
            let status = try context.execute(BatchDeleteRequest(fetchRequest: fetch)) as? BatchDeleteResult
            #expect(status?.result as? Bool == true)
            let byIDs = BatchDeleteRequest(objectIDs: ids)
            byIDs.resultType = .resultTypeObjectIDs
            let named = try context.execute(byIDs) as? BatchDeleteResult
            #expect(named?.result as? [ManagedObjectID] == ids)
        }
        #expect(Recorder.seen.count == 2)
        let first = try #require(Recorder.seen.first)
        #expect(first.entity == "Team" && first.predicate == #"name BEGINSWITH "r""# && first.includesSubentities && first.objectIDs == nil)
        // Team.members cascades to Person; Person.team nullifies Team.members.
        #expect(first.rules == ["cascade members", "nullify team", "deletes Team", "deletes Person"])
        #expect(!first.returnsObjectIDs && !first.returnsChangedObjectIDs)
        let second = try #require(Recorder.seen.last)
        #expect(second.objectIDs == ids && second.predicate == nil && !second.includesSubentities && second.returnsObjectIDs)
        // A store that counts more objects than it names is an error, not a wrong result.
        Recorder.namesAsMany = false
        let error = try #require(throws: StrataError.self) {
            try context.performAndWait {
                let request = BatchDeleteRequest(objectIDs: ids)
                request.resultType = .resultTypeObjectIDs
                _ = try context.execute(request)
            }
        }
        #expect(error.code == StrataError.Code.persistentStoreOperation)
    }
}
