import Foundation
import Strata
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// The store seam: the same behaviour from every store behind it — the SQLite store, the
/// in-memory store, and `DictionaryStore`, a third store written only against the public
/// `IncrementalStore` API (its predicates, sorting and dictionary fetches done by Strata's
/// in-memory engine through `StoreFetchRequest.evaluate`), and `PostgreSQLStore`, written against
/// the same public API in its own module (each test in a namespace of its own on the test server;
/// `STRATA_SKIP_POSTGRESQL=1` leaves it out, a missing `STRATA_TEST_POSTGRESQL_URL` fails it). Core Data's contract for
/// `NSIncrementalStore` is that a context cannot tell which store is behind it; each test states
/// the behaviour it checks.
@Suite("Store conformance")
struct StoreConformanceTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case sqlite, inMemory, dictionary, postgreSQL
        var description: String { rawValue }

        /// The kinds the tests run on: all, without PostgreSQL when `STRATA_SKIP_POSTGRESQL=1`.
        static var tested: [Kind] { allCases.filter { $0 != .postgreSQL || !PostgreSQLTestDatabase.isSkipped } }
    }

    /// Where one test's store lives: a temporary folder (the SQLite file) and, for PostgreSQL, a
    /// namespace of its own, dropped when the test releases this.
    final class StoreLocation: Sendable {
        let directory = TemporaryDirectory()
        let database: PostgreSQLTestDatabase?

        /// Throws `PostgreSQLTestDatabase.ServerMissing` for `.postgreSQL` without a server URL.
        init(_ kind: Kind) throws {
            database = kind == .postgreSQL ? try PostgreSQLTestDatabase() : nil
        }
    }

    /// A coordinator with one store of `kind` for `model` (the SQLite file in `directory`).
    static func coordinator(_ kind: Kind, model: ManagedObjectModel, directory location: StoreLocation) throws -> PersistentStoreCoordinator {
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        switch kind {
        case .sqlite: try coordinator.addPersistentStore(type: .sqlite, at: location.directory.file("Conformance.sqlite"))
        case .inMemory: try coordinator.addPersistentStore(type: .inMemory)
        case .dictionary: try coordinator.addPersistentStore(type: DictionaryStore.storeType)
        case .postgreSQL:
            guard let database = location.database else { throw PostgreSQLTestDatabase.ServerMissing() }
            try database.addStore(to: coordinator)
        }
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func peopleModel() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        let team = EntityDescription(name: "Team")
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "age", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "score", type: .double),
            RelationshipDescription(name: "team", destination: team, inverse: "members"),
        ]
        team.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "members", destination: person, inverse: "team", toMany: true),
        ]
        return ManagedObjectModel(entities: [person, team])
    }

    /// Inserts people aged 20…29 named p0…p9 in two teams (even ages in "red"), saves.
    static func seedPeople(_ context: ManagedObjectContext, model: ManagedObjectModel) throws {
        try context.performAndWait {
            let red = ManagedObject(entity: try #require(model.entitiesByName["Team"]), insertInto: context)
            red.setValue("red", forKey: "name")
            let blue = ManagedObject(entity: try #require(model.entitiesByName["Team"]), insertInto: context)
            blue.setValue("blue", forKey: "name")
            for index in 0..<10 {
                let person = ManagedObject(entity: try #require(model.entitiesByName["Person"]), insertInto: context)
                person.setValue("p\(index)", forKey: "name")
                person.setValue(Int64(20 + index), forKey: "age")
                person.setValue(Double(index) / 2, forKey: "score")
                person.setValue(index.isMultiple(of: 2) ? red : blue, forKey: "team")
            }
            try context.save()
        }
    }

    // Core Data: a store's metadata holds its UUID and type, and every object ID it hands out
    // carries that UUID (`NSManagedObjectID.persistentStore`, URIs `x-coredata://<UUID>/…`).
    @Test("metadata and identities", arguments: Kind.tested)
    func metadataAndIdentities(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        let store = try #require(coordinator.persistentStores.first)
        let uuid = try #require(store.metadata[StoreMetadataKey.storeUUID] as? String)
        #expect(store.identifier == uuid)
        #expect(store.incrementalStore.identifier == uuid)
        #expect(store.incrementalStore.options.keys.allSatisfy { !$0.hasPrefix("_Strata") })
        let context = Self.context(coordinator)
        try Self.seedPeople(context, model: model)
        let id = try context.performAndWait { () throws -> ManagedObjectID in
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchLimit = 1
            return try #require(context.fetch(request).first).objectID
        }
        #expect(id.storeIdentifier == uuid)
        #expect(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()) == id)
        let key = try #require(store.incrementalStore.referenceObject(for: id))
        #expect(store.incrementalStore.newObjectID(for: id.entity, referenceObject: key) == id)
        // App metadata round-trips; Strata's own keys cannot be overwritten.
        try coordinator.setMetadata([StoreMetadataKey.storeUUID: "other", "app": "value"], for: store)
        #expect(store.metadata["app"] as? String == "value")
        #expect(store.identifier == uuid)
    }

    // Core Data: fetches honour predicate, sort descriptors, fetchOffset and fetchLimit, and
    // count(for:) counts what fetch would return; a fresh context fires faults from the store.
    @Test("fetches, counts and faults", arguments: Kind.tested)
    func fetchesCountsAndFaults(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        try Self.seedPeople(Self.context(coordinator), model: model)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "age >= %@ AND team.name == %@", 22, "red")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
            request.fetchOffset = 1
            request.fetchLimit = 2
            let people = try context.fetch(request)
            #expect(people.map { $0.value(forKey: "name") as? String } == ["p6", "p4"])
            request.fetchOffset = 0
            request.fetchLimit = 0
            #expect(try context.count(for: request) == 4)
            let ids = FetchRequest<ManagedObjectID>(entityName: "Person")
            ids.resultType = .managedObjectIDResultType
            ids.predicate = ObjectPredicate(format: "name BEGINSWITH %@", "p1")
            #expect(try context.fetch(ids).count == 1)
            // A to-many key path in the predicate, and a fault fired from the store.
            let teams = FetchRequest<ManagedObject>(entityName: "Team")
            teams.predicate = ObjectPredicate(format: "ANY members.age == 29")
            let blue = try #require(context.fetch(teams).first)
            #expect(blue.value(forKey: "name") as? String == "blue")
            let members = try #require(blue.value(forKey: "members") as? Set<ManagedObject>)
            #expect(Set(members.compactMap { $0.value(forKey: "name") as? String }) == ["p1", "p3", "p5", "p7", "p9"])
        }
    }

    // Core Data: updates and deletes of one context reach the store; another context reading
    // afterwards sees them, and a deleted object is gone from fetches.
    @Test("updates and deletes", arguments: Kind.tested)
    func updatesAndDeletes(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        try Self.seedPeople(Self.context(coordinator), model: model)
        let writer = Self.context(coordinator)
        try writer.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "name IN %@", ["p0", "p1"])
            request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            let people = try writer.fetch(request)
            people[0].setValue(99, forKey: "age")
            people[0].setValue(nil, forKey: "score")
            writer.delete(people[1])
            try writer.save()
        }
        let reader = Self.context(coordinator)
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
            let people = try reader.fetch(request)
            #expect(people.count == 9)
            #expect(people.first?.value(forKey: "name") as? String == "p0")
            #expect(people.first?.value(forKey: "age") as? Int64 == 99)
            #expect(people.first?.value(forKey: "score") == nil)
            #expect(!people.contains { $0.value(forKey: "name") as? String == "p1" })
            let blueCount = try reader.count(
                for: {
                    let r = FetchRequest<ManagedObject>(entityName: "Person")
                    r.predicate = ObjectPredicate(format: "team.name == 'blue'")
                    return r
                }())
            #expect(blueCount == 4)
        }
    }

    // Core Data: NSBatchDeleteRequest applies the delete rules (NSDeleteRule: cascade deletes
    // the destinations, nullify removes the deleted object from the inverse, deny refuses the
    // whole delete while the relationship holds an object) and counts cascaded objects;
    // NSBatchUpdateRequest evaluates its expressions on each row (`age * 2 + 1`, a division
    // giving a double). Whichever store runs them — SQL, or Strata on the store's primitives —
    // the rows left are the same.
    @Test("batch deletes with delete rules and batch updates by expression", arguments: Kind.tested)
    func batchDeleteRulesAndExpressions(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        model.entitiesByName["Team"]?.relationshipsByName["members"]?.deleteRule = .deny
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        try Self.seedPeople(Self.context(coordinator), model: model)
        let context = Self.context(coordinator)
        func request(_ entity: String, _ format: String) -> FetchRequest<ManagedObject> {
            let request = FetchRequest<ManagedObject>(entityName: entity)
            request.predicate = ObjectPredicate(format: format)
            return request
        }
        try context.performAndWait {
            // Deny: the red team still has members; nothing is deleted.
            let denied = try #require(throws: StrataError.self) { try context.execute(BatchDeleteRequest(fetchRequest: request("Team", "name == 'red'"))) }
            #expect(denied.code == StrataError.Code.validationRelationshipDeniedDelete && denied.key == "members")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Team")) == 2)
            // Nullify: deleting red's members takes them out of the team, which stays.
            let members = BatchDeleteRequest(fetchRequest: request("Person", "team.name == 'red'"))
            members.resultType = .resultTypeCount
            let deleted = try context.execute(members) as? BatchDeleteResult
            #expect(deleted?.result as? Int == 5)
            let red = try #require(try context.fetch(request("Team", "name == 'red'")).first)
            context.refresh(red, mergeChanges: false)
            #expect((red.value(forKey: "members") as? Set<ManagedObject>)?.isEmpty == true)
            // Now red may go.
            let empty = try context.execute(BatchDeleteRequest(fetchRequest: request("Team", "name == 'red'"))) as? BatchDeleteResult
            #expect(empty?.result as? Bool == true)
            // Expressions on the rows left (the blue ones, aged 21, 23, …, 29).
            let update = BatchUpdateRequest(entityName: "Person")
            update.predicate = ObjectPredicate(format: "age >= 23")
            update.propertiesToUpdate = ["age": ObjectExpression(format: "age * 2 + 1"), "score": ObjectExpression(format: "age / 4")]
            _ = try context.execute(update)
            let people = try context.fetch(request("Person", "TRUEPREDICATE"))
            for person in people { context.refresh(person, mergeChanges: false) }
            let rows = people.map { ($0.value(forKey: "age") as? Int64 ?? -1, $0.value(forKey: "score") as? Double ?? -1) }.sorted { $0.0 < $1.0 }
            #expect(rows.map(\.0) == [21, 47, 51, 55, 59])
            #expect(rows.map(\.1) == [0.5, 5.75, 6.25, 6.75, 7.25])  // 21 kept its score (p1: 0.5)
        }
    }

    // Core Data: optimistic locking. A context saving a change to an object another context
    // changed and saved since it read it gets NSManagedObjectMergeError (133020) under the
    // error policy; mergeByPropertyObjectTrump lets its change win.
    @Test("optimistic locking conflicts", arguments: Kind.tested)
    func optimisticLocking(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        try Self.seedPeople(Self.context(coordinator), model: model)
        let first = Self.context(coordinator)
        let second = Self.context(coordinator)
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.predicate = ObjectPredicate(format: "name == 'p2'")
        request.returnsObjectsAsFaults = false
        let mine = try first.performAndWait { try #require(first.fetch(request).first) }
        try second.performAndWait {
            try #require(second.fetch(request).first).setValue(50, forKey: "age")
            try second.save()
        }
        let error = first.performAndWait { () -> StrataError? in
            mine.setValue(60, forKey: "age")
            do {
                try first.save()
                return nil
            } catch {
                return error as? StrataError
            }
        }
        #expect(error?.code == StrataError.Code.managedObjectMerge)
        #expect(error?.conflicts.first?.objectID == mine.objectID)
        try first.performAndWait {
            first.mergePolicy = .mergeByPropertyObjectTrump
            try first.save()
        }
        let reader = Self.context(coordinator)
        let age = try reader.performAndWait { try #require(reader.fetch(request).first).value(forKey: "age") as? Int64 }
        #expect(age == 60)
    }

    // Core Data: dictionary results with aggregate expressions and grouping
    // (`NSDictionaryResultType`, `propertiesToGroupBy`), computed from the stored rows.
    @Test("dictionary and aggregate fetches", arguments: Kind.tested)
    func dictionaryFetches(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        try Self.seedPeople(Self.context(coordinator), model: model)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let total = ExpressionDescription()
            total.name = "total"
            total.expression = ObjectExpression(forFunction: "sum:", arguments: [ObjectExpression(forKeyPath: "age")])
            total.expressionResultType = .integer64
            let request = FetchRequest<NSDictionary>(entityName: "Person")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["team.name", total]
            request.propertiesToGroupBy = ["team.name"]
            request.sortDescriptors = [ObjectSortDescriptor(key: "team.name")]
            let rows = try context.fetch(request)
            #expect(rows.count == 2)
            #expect(rows.first?["team.name"] as? String == "blue")
            let totals = rows.map { ($0["total"] as? NSNumber)?.intValue }
            #expect(totals == [21 + 23 + 25 + 27 + 29, 20 + 22 + 24 + 26 + 28])
        }
    }

    // Core Data: many-to-many and ordered relationships keep their members (and an ordered
    // relationship its order) through a save and a fresh read; inherited entities are fetched
    // through their super-entity.
    @Test("many-to-many, ordered and inherited", arguments: Kind.tested)
    func relationshipsOfEveryKind(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = GraphFixtures.music()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        let writer = Self.context(coordinator)
        try writer.performAndWait {
            let playlist = ManagedObject(entity: try #require(model.entitiesByName["Playlist"]), insertInto: writer)
            playlist.setValue("mix", forKey: "name")
            let album = ManagedObject(entity: try #require(model.entitiesByName["Album"]), insertInto: writer)
            album.setValue("record", forKey: "title")
            var songs: [ManagedObject] = []
            for title in ["a", "b", "c"] {
                let song = ManagedObject(entity: try #require(model.entitiesByName["Song"]), insertInto: writer)
                song.setValue(title, forKey: "title")
                songs.append(song)
            }
            playlist.mutableOrderedSetValue(forKey: "songs").addObjects(from: [songs[2], songs[0], songs[1]])
            album.mutableOrderedSetValue(forKey: "tracks").addObjects(from: [songs[1], songs[2]])
            try writer.save()
            playlist.mutableOrderedSetValue(forKey: "songs").moveObjects(at: IndexSet(integer: 0), to: 2)
            try writer.save()
        }
        let reader = Self.context(coordinator)
        try reader.performAndWait {
            let playlist = try #require(reader.fetch(FetchRequest<ManagedObject>(entityName: "Playlist")).first)
            let songs = try #require(playlist.value(forKey: "songs") as? [ManagedObject])
            #expect(songs.map { $0.value(forKey: "title") as? String } == ["a", "b", "c"])
            let album = try #require(reader.fetch(FetchRequest<ManagedObject>(entityName: "Album")).first)
            let tracks = try #require(album.value(forKey: "tracks") as? [ManagedObject])
            #expect(tracks.map { $0.value(forKey: "title") as? String } == ["b", "c"])
            let song = try #require(songs.first)
            let playlists = try #require(song.value(forKey: "playlists") as? Set<ManagedObject>)
            #expect(playlists.map { $0.objectID } == [playlist.objectID])
        }
    }

    // Core Data: a fetch of an abstract super-entity returns the objects of its sub-entities,
    // each as its own entity; self-referential many-to-many relationships work both ways.
    @Test("inheritance and self-referential relationships", arguments: Kind.tested)
    func inheritance(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = GraphFixtures.company()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        let writer = Self.context(coordinator)
        try writer.performAndWait {
            let employee = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: writer)
            employee.setValue("emma", forKey: "name")
            employee.setValue(Int64(10), forKey: "salary")
            let customer = ManagedObject(entity: try #require(model.entitiesByName["Customer"]), insertInto: writer)
            customer.setValue("carl", forKey: "name")
            employee.mutableSetValue(forKey: "friends").add(customer)
            try writer.save()
        }
        let reader = Self.context(coordinator)
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            let people = try reader.fetch(request)
            #expect(people.map(\.entity.name) == ["Customer", "Employee"])
            let carl = try #require(people.first)
            let friends = try #require(carl.value(forKey: "friends") as? Set<ManagedObject>)
            #expect(friends.compactMap { $0.value(forKey: "name") as? String } == ["emma"])
            let onlyEmployees = FetchRequest<ManagedObject>(entityName: "Person")
            onlyEmployees.predicate = ObjectPredicate(format: "ANY friends.name == 'carl'")
            #expect(try reader.fetch(onlyEmployees).map(\.entity.name) == ["Employee"])
        }
    }

    // Core Data's one-object forms of the primitives: newValuesForObject(with:) gives the row of
    // an object, newValue(forRelationship:forObjectWith:) a to-one's target or a to-many's
    // members; a missing row is an error (133000), not a crash.
    @Test("one-object forms of the primitives", arguments: Kind.tested)
    func oneObjectForms(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        try Self.seedPeople(Self.context(coordinator), model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore)
        let context = Self.context(coordinator)
        let (personID, teamID) = try context.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID) in
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "name == 'p4'")
            let person = try #require(context.fetch(request).first)
            let team = try #require(person.value(forKey: "team") as? ManagedObject)
            return (person.objectID, team.objectID)
        }
        let node = try store.newValuesForObject(with: personID)
        #expect(node.value(forKey: "age") as? Int64 == 24)
        #expect(node.value(forKey: "team") as? ManagedObjectID == teamID)
        let person = try #require(model.entitiesByName["Person"])
        let team = try #require(model.entitiesByName["Team"])
        #expect(try store.newValue(forRelationship: try #require(person.relationshipsByName["team"]), forObjectWith: personID) as? ManagedObjectID == teamID)
        let members = try store.newValue(forRelationship: try #require(team.relationshipsByName["members"]), forObjectWith: teamID) as? [ManagedObjectID]
        #expect(members?.count == 5)
        #expect(members?.contains(personID) == true)
        let missing = store.newObjectID(for: person, referenceObject: 999_999)
        #expect(throws: StrataError.self) { try store.newValuesForObject(with: missing) }
    }

    // Core Data: obtainPermanentIDs(for:) gives unsaved objects the IDs they keep when saved.
    @Test("permanent IDs before the save", arguments: Kind.tested)
    func permanentIDs(kind: Kind) throws {
        let directory = try StoreLocation(kind)
        let model = Self.peopleModel()
        let coordinator = try Self.coordinator(kind, model: model, directory: directory)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let person = ManagedObject(entity: try #require(model.entitiesByName["Person"]), insertInto: context)
            person.setValue("early", forKey: "name")
            try context.obtainPermanentIDs(for: [person])
            let id = person.objectID
            #expect(!id.isTemporaryID)
            try context.save()
            #expect(person.objectID == id)
        }
        let reader = Self.context(coordinator)
        let names = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String } }
        #expect(names == ["early"])
    }
}

/// The parsed predicate is public and read-only, so a store that is not SQL can translate a
/// fetch's predicate itself (as Core Data's incremental stores read `NSComparisonPredicate`'s
/// `leftExpression`, `predicateOperatorType` and `rightExpression`).
@Suite("Predicate trees for stores")
struct PredicateTreeTests {
    @Test("a compound predicate reads as its parts")
    func compoundPredicate() throws {
        let predicate = ObjectPredicate(format: "age > %@ AND ANY team.members.name BEGINSWITH[cd] %@", 30, "a")
        guard case .and(let parts) = predicate.node, parts.count == 2,
            case .comparison(let age) = parts[0], case .comparison(let name) = parts[1]
        else {
            Issue.record("unexpected tree \(predicate.node)")
            return
        }
        #expect(age.lhs == .keyPath(["age"]))
        #expect(age.comparisonOperator == .greaterThan)
        #expect(age.rhs == .constant(.integer(30)))
        #expect(name.comparisonModifier == .any)
        #expect(name.lhs == .keyPath(["team", "members", "name"]))
        #expect(name.comparisonOperator == .beginsWith)
        #expect(name.comparisonOptions == [.caseInsensitive, .diacriticInsensitive])
        #expect(name.rhs == .constant(.string("a")))
    }

    @Test("a store request carries the predicate and sort it was made from")
    func storeRequestCarriesTheTree() throws {
        let directory = try StoreConformanceTests.StoreLocation(.dictionary)
        let model = StoreConformanceTests.peopleModel()
        let coordinator = try StoreConformanceTests.coordinator(.dictionary, model: model, directory: directory)
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(coordinator), model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? DictionaryStore)
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "name == %@", "p3")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
            _ = try context.fetch(request)
        }
        let seen = try #require(store.lastFetch)
        #expect(seen.entity.name == "Person")
        #expect(seen.predicate?.node == ObjectPredicate(format: "name == 'p3'").node)
        #expect(seen.sortDescriptors == [ObjectSortDescriptor(key: "age", ascending: false)])
    }
}

/// The store registry: `registerStoreClass(_:forStoreType:)` as Core Data's.
@Suite("Store registry")
struct StoreRegistryTests {
    // Core Data: adding a store of a type no class is registered for fails with an error
    // (NSPersistentStoreInvalidTypeError, 134000), and nothing is added.
    @Test("an unregistered type is an error")
    func unregisteredType() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        #expect(throws: StrataError.self) { try coordinator.addPersistentStore(type: StoreType(rawValue: "NoSuchStore")) }
        do {
            try coordinator.addPersistentStore(type: StoreType(rawValue: "NoSuchStore"))
        } catch let error as StrataError {
            #expect(error.code == StrataError.Code.persistentStoreInvalidType)
            #expect(error.message.contains("NoSuchStore"))
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    // The built-in types are registered from the start; a registered class is what the
    // coordinator instantiates.
    @Test("built-in and registered classes")
    func registeredClasses() throws {
        #expect(PersistentStoreCoordinator.storeClass(forStoreType: .sqlite) != nil)
        #expect(PersistentStoreCoordinator.storeClass(forStoreType: .inMemory) != nil)
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        let store = try coordinator.addPersistentStore(type: DictionaryStore.storeType)
        #expect(store.incrementalStore is DictionaryStore)
        #expect(store.type == DictionaryStore.storeType)
    }

    // A store that does not implement the primitives fails with an error naming the missing
    // override instead of trapping.
    @Test("a store without loadMetadata() fails to load with a clear error")
    func incompleteStore() throws {
        let type = StoreType(rawValue: "StrataTestIncomplete")
        PersistentStoreCoordinator.registerStoreClass(IncompleteStore.self, forStoreType: type)
        defer { PersistentStoreCoordinator.registerStoreClass(nil, forStoreType: type) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        do {
            try coordinator.addPersistentStore(type: type)
            Issue.record("adding an incomplete store succeeded")
        } catch let error as StrataError {
            #expect(error.message.contains("loadMetadata()"))
        }
        #expect(coordinator.persistentStores.isEmpty)
    }
}

/// A store that overrides nothing.
final class IncompleteStore: IncrementalStore, @unchecked Sendable {}
