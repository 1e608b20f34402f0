import Foundation
import Strata
import StrataPostgreSQL
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// What is specific to the PostgreSQL store (`StoreType.postgreSQL`); what every store shares
/// is in `StoreConformanceTests`, which runs on PostgreSQL too. Each test uses a namespace of its
/// own on the test server (`PostgreSQLTestDatabase`) and states the Core Data fact it follows.
@Suite("PostgreSQL store", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLStoreTests {
    // MARK: Fixtures

    /// A coordinator for `model` with a PostgreSQL store in `database`'s namespace.
    static func coordinator(_ database: PostgreSQLTestDatabase, model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try database.addStore(to: coordinator)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext { StoreConformanceTests.context(coordinator) }

    /// `Item` with one attribute of every stored type, and a `Tag` with a unique `label`.
    static func everyTypeModel() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let transformable = AttributeDescription(name: "plist", type: .transformable)
        item.properties = [
            AttributeDescription(name: "i16", type: .integer16),
            AttributeDescription(name: "i32", type: .integer32),
            AttributeDescription(name: "i64", type: .integer64),
            AttributeDescription(name: "double", type: .double),
            AttributeDescription(name: "float", type: .float),
            AttributeDescription(name: "decimal", type: .decimal),
            AttributeDescription(name: "string", type: .string),
            AttributeDescription(name: "flag", type: .boolean),
            AttributeDescription(name: "date", type: .date),
            AttributeDescription(name: "data", type: .binaryData),
            AttributeDescription(name: "uuid", type: .uuid),
            AttributeDescription(name: "link", type: .uri),
            transformable,
        ]
        let tag = EntityDescription(name: "Tag")
        tag.properties = [AttributeDescription(name: "label", type: .string)]
        tag.uniquenessConstraints = [["label"]]
        return ManagedObjectModel(entities: [item, tag])
    }

    /// The values of one `Item`, by key.
    typealias Values = [String: any Sendable]

    /// Rows at the edges of every type.
    static let extremeRows: [Values] = [
        [
            "i16": Int16.min, "i32": Int32.max, "i64": Int64.max, "double": Double.greatestFiniteMagnitude, "float": Float.greatestFiniteMagnitude,
            "decimal": Decimal(string: "123456789012345678901234567890", locale: Locale(identifier: "en_US_POSIX")) ?? 0,
            "string": "Grüße, 日本語, 👩‍👩‍👧 'single' \"double\" \\ back\nslash", "flag": true,
            "date": Date(timeIntervalSinceReferenceDate: 756_789_012.123_456_7), "data": Data(), "uuid": UUID(),
            "link": URL(string: "https://example.com/a%20b?q=1&r=%C3%A9#frag") ?? URL(fileURLWithPath: "/"), "plist": ["a", "b"],
        ],
        [
            "i16": Int16.max, "i32": Int32.min, "i64": Int64.min, "double": -Double.leastNonzeroMagnitude, "float": -Float.leastNonzeroMagnitude,
            "decimal": Decimal(string: "-0.000000000000000000000000000012345", locale: Locale(identifier: "en_US_POSIX")) ?? 0,
            "string": "", "flag": false, "date": Date(timeIntervalSinceReferenceDate: -3_155_760_000.000_001),
            "data": Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), "uuid": UUID(),
            "link": URL(string: "file:///tmp/x") ?? URL(fileURLWithPath: "/"),
        ],
        ["double": Double.infinity, "float": -Float.infinity, "decimal": Decimal(string: "3.14159265358979323846264338327950288", locale: Locale(identifier: "en_US_POSIX")) ?? 0],
        ["double": -0.0, "float": Float.nan, "i64": Int64(0)],
        ["double": Double.nan],
    ]

    /// Whether two stored values are the same (doubles and floats by bit pattern, so NaN and
    /// −0.0 count).
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x as Double, let y as Double): return x.bitPattern == y.bitPattern
        case (let x as Float, let y as Float): return x.bitPattern == y.bitPattern
        case (let x as Int16, let y as Int16): return x == y
        case (let x as Int32, let y as Int32): return x == y
        case (let x as Int64, let y as Int64): return x == y
        case (let x as Decimal, let y as Decimal): return x == y
        case (let x as String, let y as String): return x == y
        case (let x as Bool, let y as Bool): return x == y
        case (let x as Date, let y as Date): return x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
        case (let x as Data, let y as Data): return x == y
        case (let x as UUID, let y as UUID): return x == y
        case (let x as URL, let y as URL): return x.absoluteString == y.absoluteString
        case (let x as [String], let y as [String]): return x == y
        default: return false
        }
    }

    /// `id` (of another coordinator) as an ID of `coordinator`'s store: IDs cross coordinators
    /// as URIs, as in Core Data.
    static func id(_ id: ManagedObjectID, in coordinator: PersistentStoreCoordinator) throws -> ManagedObjectID {
        try #require(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
    }

    /// Catches the `StrataError` `body` throws (nil when it succeeds).
    static func strataError(_ body: () throws -> Void) -> StrataError? {
        do {
            try body()
            return nil
        } catch {
            return error as? StrataError
        }
    }

    /// The server URL with the password replaced.
    static func url(withPassword password: String) throws -> URL {
        let text = try PostgreSQLTestDatabase.serverURL()
        guard let url = URL(string: text), let old = url.password, let changed = URL(string: text.replacingOccurrences(of: ":\(old)@", with: ":\(password)@")) else {
            throw PostgreSQLTestDatabase.ServerMissing()
        }
        return changed
    }

    // MARK: Opening

    // Core Data: a store that cannot be opened fails `addPersistentStore` with
    // NSPersistentStoreOpenError (134080), and nothing is added. A refused connection fails at
    // once, not after a long wait.
    @Test("a refused port fails to open with 134080 within seconds")
    func refusedPort() throws {
        let model = Self.everyTypeModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let url = try #require(URL(string: "postgresql://strata:secret-word@127.0.0.1:1/strata_test"))
        let start = ContinuousClock.now
        let error = Self.strataError { try coordinator.addPersistentStore(type: .postgreSQL, at: url) }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(error?.code == StrataError.Code.persistentStoreOpen)
        #expect(coordinator.persistentStores.isEmpty)
        let text = "\(error.map { String(describing: $0) } ?? "")"
        #expect(!text.contains("secret-word"))
    }

    // Core Data: 134080 for a store that cannot be opened. Strata adds the server's SQLSTATE
    // (28P01, invalid_password) and message, and never shows the password.
    @Test("a wrong password fails to open with 134080 and 28P01, without the password")
    func wrongPassword() throws {
        let password = "Wrong-Password-\(UUID().uuidString.prefix(8))"
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.everyTypeModel())
        let url = try Self.url(withPassword: password)
        var thrown: (any Error)?
        do { try coordinator.addPersistentStore(type: .postgreSQL, at: url) } catch { thrown = error }
        let error = try #require(thrown as? StrataError)
        #expect(error.code == StrataError.Code.persistentStoreOpen)
        #expect(error.message.contains("28P01"))
        var dumped = ""
        dump(error, to: &dumped)
        for text in [error.message, error.description, String(reflecting: error), error.localizedDescription, dumped, error.url?.absoluteString ?? ""] {
            #expect(!text.contains(password), "the password appears in: \(text)")
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    // Core Data: 134080 for a store that cannot be opened; here the database does not exist
    // (SQLSTATE 3D000, invalid_catalog_name).
    @Test("a missing database fails to open with 134080 and 3D000")
    func missingDatabase() throws {
        let text = try PostgreSQLTestDatabase.serverURL()
        let url = try #require(URL(string: text.replacingOccurrences(of: "/strata_test", with: "/no_such_database_\(UUID().uuidString.prefix(6).lowercased())")))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.everyTypeModel())
        let error = Self.strataError { try coordinator.addPersistentStore(type: .postgreSQL, at: url) }
        #expect(error?.code == StrataError.Code.persistentStoreOpen)
        #expect(error?.message.contains("3D000") == true)
    }

    // Core Data: a store added with NSReadOnlyPersistentStoreOption reads but refuses saves.
    @Test("a read-only store reads, refuses saves and creates nothing")
    func readOnly() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let refused = PersistentStoreCoordinator(managedObjectModel: model)
        let createError = Self.strataError { try database.addStore(to: refused, options: [PersistentStoreOption.readOnly: true]) }
        #expect(createError?.code == StrataError.Code.persistentStoreOpen)
        let writer = Self.context(try Self.coordinator(database, model: model))
        try writer.performAndWait {
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: writer).setValue("x", forKey: "label")
            try writer.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try database.addStore(to: coordinator, options: [PersistentStoreOption.readOnly: true])
        let reader = Self.context(coordinator)
        let error = try reader.performAndWait { () throws -> StrataError? in
            let tag = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first)
            #expect(tag.value(forKey: "label") as? String == "x")
            tag.setValue("y", forKey: "label")
            return Self.strataError { try reader.save() }
        }
        #expect(error?.code == StrataError.Code.persistentStoreSave)
    }

    // Core Data: a store keeps its NSStoreUUID and its objects across opens; the metadata names
    // the store type and holds the model's entity version hashes.
    @Test("reopening keeps the store's UUID, metadata and data")
    func reopening() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let first = try Self.coordinator(database, model: model)
        let store = try #require(first.persistentStores.first)
        let uuid = try #require(store.metadata[StoreMetadataKey.storeUUID] as? String)
        #expect(store.metadata[StoreMetadataKey.storeType] as? String == "PostgreSQL")
        #expect((store.metadata[StoreMetadataKey.entityVersionHashes] as? [String: String])?.keys.sorted() == ["Item", "Tag"])
        try first.setMetadata(["app": "value", "numbers": [1, 2, 3], "when": Date(timeIntervalSinceReferenceDate: 1.5), "nested": ["k": Data([1, 2])]], for: store)
        let context = Self.context(first)
        try context.performAndWait {
            let tag = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
            tag.setValue("kept", forKey: "label")
            try context.save()
        }
        try first.remove(store)

        let second = try Self.coordinator(database, model: model)
        let reopened = try #require(second.persistentStores.first)
        #expect(reopened.identifier == uuid)
        #expect(reopened.metadata["app"] as? String == "value")
        #expect(reopened.metadata["numbers"] as? [Int] == [1, 2, 3])
        #expect(reopened.metadata["when"] as? Date == Date(timeIntervalSinceReferenceDate: 1.5))
        #expect((reopened.metadata["nested"] as? [String: any Sendable])?["k"] as? Data == Data([1, 2]))
        let reader = Self.context(second)
        let labels = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map { $0.value(forKey: "label") as? String } }
        #expect(labels == ["kept"])
    }

    // Core Data: metadata holds property-list values only; Strata refuses anything else with an
    // error naming the key, and writes nothing.
    @Test("metadata that is not a property list is refused")
    func nonPropertyListMetadata() throws {
        struct Opaque: Sendable {}
        let database = try PostgreSQLTestDatabase()
        let coordinator = try Self.coordinator(database, model: Self.everyTypeModel())
        let store = try #require(coordinator.persistentStores.first)
        let error = Self.strataError { try coordinator.setMetadata(["bad": Opaque()], for: store) }
        #expect(error?.message.contains("bad") == true)
        #expect(store.metadata["bad"] == nil)
    }

    // Core Data: opening a store with a model whose version hashes differ is an error
    // (134080 with NSPersistentStoreIncompatibleVersionHashError, 134100, as on SQLite), and
    // the store is not touched.
    @Test("an incompatible model is refused and nothing is changed")
    func incompatibleModel() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let first = try Self.coordinator(database, model: model)
        let uuid = try #require(first.persistentStores.first?.identifier)
        let other = EntityDescription(name: "Item")
        other.properties = [AttributeDescription(name: "different", type: .string)]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [other]))
        let error = Self.strataError { try database.addStore(to: coordinator) }
        #expect(error?.code == StrataError.Code.persistentStoreOpen)
        #expect(error?.underlyingErrors.first?.code == StrataError.Code.persistentStoreIncompatibleVersionHash)
        #expect(coordinator.persistentStores.isEmpty)
        let connection = try database.connect()
        let columns = try connection.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Item' AND column_name = 'different'", parameters: [.text(database.namespace)])
        #expect(try columns.first?.int64(0) == 0)
        let again = try Self.coordinator(database, model: model)
        #expect(again.persistentStores.first?.identifier == uuid)
    }

    // Two processes opening a new store at once: one creates it, both see the same store.
    @Test("two coordinators creating one store at once agree on it")
    func concurrentCreation() async throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let identifiers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let coordinator = try Self.coordinator(database, model: model)
                    return coordinator.persistentStores.first?.identifier ?? ""
                }
            }
            var all: [String] = []
            for try await identifier in group { all.append(identifier) }
            return all
        }
        #expect(Set(identifiers).count == 1)
        #expect(identifiers.first?.isEmpty == false)
    }

    // Core Data's PersistentStoreDescription takes any store type and URL.
    @Test("a store description of type .postgreSQL loads")
    func storeDescription() throws {
        let database = try PostgreSQLTestDatabase()
        let container = PersistentContainer(name: "Server", managedObjectModel: Self.everyTypeModel())
        let description = PersistentStoreDescription(url: database.url)
        description.type = .postgreSQL
        description.setOption(database.namespace, forKey: PostgreSQLStoreOption.namespace)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.first?.type == .postgreSQL)
        #expect(container.persistentStoreCoordinator.persistentStores.first?.incrementalStore is PostgreSQLStore)
    }

    // MARK: Names and values

    // Core Data: any valid entity or attribute name works, SQL reserved words included.
    @Test("reserved words as entity, attribute and relationship names")
    func reservedWords() throws {
        let order = EntityDescription(name: "Order")
        let user = EntityDescription(name: "user")
        let group = EntityDescription(name: "group")
        order.properties = [
            AttributeDescription(name: "select", type: .string),
            AttributeDescription(name: "from", type: .integer64),
            RelationshipDescription(name: "user", destination: user, inverse: "order"),
            RelationshipDescription(name: "group", destination: group, inverse: "order", toMany: true),
        ]
        user.properties = [
            AttributeDescription(name: "where", type: .string),
            RelationshipDescription(name: "order", destination: order, inverse: "user", toMany: true),
        ]
        group.properties = [
            AttributeDescription(name: "table", type: .string),
            RelationshipDescription(name: "order", destination: order, inverse: "group", toMany: true),
        ]
        let model = ManagedObjectModel(entities: [order, user, group])
        let database = try PostgreSQLTestDatabase()
        let coordinator = try Self.coordinator(database, model: model)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let o = ManagedObject(entity: order, insertInto: context)
            o.setValue("*", forKey: "select")
            o.setValue(Int64(7), forKey: "from")
            let u = ManagedObject(entity: user, insertInto: context)
            u.setValue("here", forKey: "where")
            o.setValue(u, forKey: "user")
            let g = ManagedObject(entity: group, insertInto: context)
            g.setValue("t", forKey: "table")
            o.mutableSetValue(forKey: "group").add(g)
            try context.save()
        }
        let reader = Self.context(try Self.coordinator(database, model: model))
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Order")
            request.predicate = ObjectPredicate(format: "select == '*' AND from == 7 AND user.where == 'here'")
            let fetched = try #require(try reader.fetch(request).first)
            #expect((fetched.value(forKey: "user") as? ManagedObject)?.value(forKey: "where") as? String == "here")
            let groups = try #require(fetched.value(forKey: "group") as? Set<ManagedObject>)
            #expect(groups.map { $0.value(forKey: "table") as? String } == ["t"])
        }
    }

    // Core Data stores every attribute type without loss: Decimal exactly, dates as seconds
    // since 2001-01-01 to the last bit, integers and doubles at their limits (NaN, −0.0 and the
    // infinities included), empty and large binary data, any Unicode text.
    @Test("every attribute type round-trips without loss")
    func everyTypeRoundTrips() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let writer = Self.context(try Self.coordinator(database, model: model))
        let ids = try writer.performAndWait { () throws -> [ManagedObjectID] in
            var objects: [ManagedObject] = []
            for row in Self.extremeRows {
                let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: writer)
                for (key, value) in row { item.setValue(value, forKey: key) }
                objects.append(item)
            }
            try writer.save()
            return objects.map(\.objectID)
        }
        // A second coordinator: the values come from the server, not from a cache.
        let readerCoordinator = try Self.coordinator(database, model: model)
        let reader = Self.context(readerCoordinator)
        try reader.performAndWait {
            for (id, row) in zip(ids, Self.extremeRows) {
                let item = try reader.existingObject(with: try Self.id(id, in: readerCoordinator))
                for attribute in Self.everyTypeModel().entitiesByName["Item"]?.attributesByName.keys.sorted() ?? [] {
                    let stored = item.value(forKey: attribute)
                    #expect(Self.same(stored, row[attribute]), "\(attribute): wrote \(String(describing: row[attribute])), read \(String(describing: stored))")
                }
            }
        }
    }

    // Core Data leaves statement handling to the store; the SQLite store caches its compiled
    // statements. This one prepares the statements it runs many times on each connection, unless
    // told not to (poolers that drop a session's prepared statements), and a table another
    // program changed under a prepared statement does not break reads (PostgreSQL refuses the
    // old statement with 0A000 once its result type changed; the store prepares it again).
    @Test("fetches and saves give the same results with and without prepared statements, also after a column changed under them", arguments: [true, false])
    func preparedStatements(prepares: Bool) throws {
        let database = try PostgreSQLTestDatabase()
        let item = EntityDescription(name: "Item")
        item.properties = [AttributeDescription(name: "name", type: .string), AttributeDescription(name: "score", type: .integer32)]
        let model = ManagedObjectModel(entities: [item])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try database.addStore(to: coordinator, options: [PostgreSQLStoreOption.preparesStatements: prepares])
        let context = Self.context(coordinator)
        func names(scoreAbove floor: Int32) throws -> [String] {
            try context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = ObjectPredicate(format: "score > %@", NSNumber(value: floor))
                request.sortDescriptors = [ObjectSortDescriptor(key: "score")]
                request.fetchLimit = 10
                return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
            }
        }
        try context.performAndWait {
            for score in 1...5 {
                let object = ManagedObject(entity: item, insertInto: context)
                object.setValue("item \(score)", forKey: "name")
                object.setValue(Int32(score), forKey: "score")
            }
            try context.save()
        }
        for floor in 0...4 { #expect(try names(scoreAbove: Int32(floor)) == (floor + 1...5).map { "item \($0)" }) }
        // Edits and a delete run their per-row statements many times too.
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            for object in try context.fetch(request) {
                let score = object.value(forKey: "score") as? Int32 ?? 0
                if score == 5 { context.delete(object) } else { object.setValue(score * 10, forKey: "score") }
            }
            try context.save()
            context.reset()
        }
        #expect(try names(scoreAbove: 15) == ["item 2", "item 3", "item 4"])
        // Another program widens the column: the result type of the store's SELECT changes.
        let connection = try database.connect()
        try connection.execute("ALTER TABLE \(database.namespace).\"Item\" ALTER COLUMN score TYPE bigint")
        #expect(try names(scoreAbove: 15) == ["item 2", "item 3", "item 4"])
        #expect(try names(scoreAbove: 0) == ["item 1", "item 2", "item 3", "item 4"])
    }

    // MARK: Saves

    // Core Data: optimistic locking across coordinators (processes). A save based on a row
    // another coordinator changed since fails with NSManagedObjectMergeError (133020) carrying
    // an NSMergeConflict with the old and new versions; a stale delete too.
    @Test("a stale save from another coordinator is 133020 with conflicts")
    func staleSave() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let first = Self.context(try Self.coordinator(database, model: model))
        let secondCoordinator = try Self.coordinator(database, model: model)
        let second = Self.context(secondCoordinator)
        let (id, otherID) = try first.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID) in
            let tag = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: first)
            tag.setValue("one", forKey: "label")
            let other = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: first)
            other.setValue("two", forKey: "label")
            try first.save()
            return (tag.objectID, other.objectID)
        }
        let (mine, mineToDelete) = try second.performAndWait {
            (try second.existingObject(with: try Self.id(id, in: secondCoordinator)), try second.existingObject(with: try Self.id(otherID, in: secondCoordinator)))
        }
        second.performAndWait {
            _ = mine.value(forKey: "label")
            _ = mineToDelete.value(forKey: "label")
        }
        try first.performAndWait {
            try first.existingObject(with: id).setValue("changed", forKey: "label")
            try first.existingObject(with: otherID).setValue("changed too", forKey: "label")
            try first.save()
        }
        let error = second.performAndWait { () -> StrataError? in
            mine.setValue("stale", forKey: "label")
            second.delete(mineToDelete)
            return Self.strataError { try second.save() }
        }
        #expect(error?.code == StrataError.Code.managedObjectMerge)
        let conflicts = error?.conflicts ?? []
        #expect(Set(conflicts.map(\.objectID)) == [mine.objectID, mineToDelete.objectID])
        for conflict in conflicts {
            #expect(conflict.oldVersionNumber == 1)
            #expect(conflict.newVersionNumber == 2)
        }
        #expect(conflicts.first { $0.objectID == mine.objectID }?.persistedSnapshot?["label"] == "changed")
        // Nothing of the failed save landed.
        let reader = Self.context(try Self.coordinator(database, model: model))
        let labels = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).compactMap { $0.value(forKey: "label") as? String }.sorted() }
        #expect(labels == ["changed", "changed too"])
    }

    // Core Data: a save violating a uniqueness constraint fails with
    // NSManagedObjectConstraintMergeError (133021) under the error merge policy, as on SQLite,
    // and writes nothing. The store also holds the constraint itself (a unique index limited to
    // the entity), so a duplicate written behind Strata's back is refused by the server too.
    @Test("uniqueness constraints: 133021 and a unique index on the server")
    func uniquenessConstraint() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let first = Self.context(try Self.coordinator(database, model: model))
        try first.performAndWait {
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: first).setValue("taken", forKey: "label")
            try first.save()
        }
        let second = Self.context(try Self.coordinator(database, model: model))
        let error = try second.performAndWait { () throws -> StrataError? in
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: second).setValue("new", forKey: "label")
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: second).setValue("taken", forKey: "label")
            return Self.strataError { try second.save() }
        }
        #expect(error?.code == StrataError.Code.managedObjectConstraintMerge)
        let connection = try database.connect()
        #expect(try connection.execute("SELECT count(*) FROM \(database.namespace).\"Tag\"").first?.int64(0) == 1)
        var serverError: PostgreSQLError?
        do {
            try connection.execute("INSERT INTO \(database.namespace).\"Tag\" (\"$pk\", \"$entity\", \"$version\", label) VALUES (1000, 'Tag', 1, 'taken')")
        } catch let error as PostgreSQLError {
            serverError = error
        }
        #expect(serverError?.isUniqueViolation == true)
    }

    // Core Data: a save is all or nothing, and a failed save leaves the context as it was, so
    // the app can fix the problem and save again. Here the server refuses a value (text holding
    // U+0000, which PostgreSQL text cannot store) after other rows of the save were written:
    // the error says what failed, none of the save is in the database, and the fixed save works.
    @Test("a failed save leaves the database unchanged and the context usable")
    func failedSave() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let context = Self.context(try Self.coordinator(database, model: model))
        let (bad, kept) = try context.performAndWait { () throws -> (ManagedObject, ManagedObject) in
            let kept = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
            kept.setValue("kept", forKey: "label")
            try context.save()
            kept.setValue("renamed", forKey: "label")
            for label in ["a", "b"] {
                ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context).setValue(label, forKey: "label")
            }
            let bad = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
            bad.setValue("nul \u{0} inside", forKey: "string")
            return (bad, kept)
        }
        let error = context.performAndWait { Self.strataError { try context.save() } }
        #expect(error?.code == StrataError.Code.persistentStoreSave)
        #expect(error?.message.contains("NUL") == true)
        #expect(error?.entityName == "Item" && error?.key == "string")
        let connection = try database.connect()
        let labels = try connection.execute("SELECT label FROM \(database.namespace).\"Tag\" ORDER BY label").map { try $0.string(0) }
        #expect(labels == ["kept"])
        #expect(try connection.execute("SELECT count(*) FROM \(database.namespace).\"Item\"").first?.int64(0) == 0)
        #expect(try connection.execute("SELECT \"$version\" FROM \(database.namespace).\"Tag\"").first?.int64(0) == 1)
        // The context still holds its changes: fix the value and save again.
        try context.performAndWait {
            #expect(kept.value(forKey: "label") as? String == "renamed")
            bad.setValue("fixed", forKey: "string")
            try context.save()
        }
        let after = try connection.execute("SELECT label FROM \(database.namespace).\"Tag\" ORDER BY label").map { try $0.string(0) }
        #expect(after == ["a", "b", "renamed"])
        #expect(try connection.execute("SELECT string FROM \(database.namespace).\"Item\"").first?.string(0) == "fixed")
    }

    // Core Data with a shared store: what one coordinator saves, another coordinator on the same
    // store reads (its contexts fetch the saved rows; a refreshed object shows the new values).
    @Test("two coordinators on one database see each other's saves")
    func twoCoordinators() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let a = Self.context(try Self.coordinator(database, model: model))
        let b = Self.context(try Self.coordinator(database, model: model))
        let id = try a.performAndWait { () throws -> ManagedObjectID in
            let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: a)
            item.setValue("from a", forKey: "string")
            try a.save()
            return item.objectID
        }
        try b.performAndWait {
            let item = try #require(try b.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first)
            #expect(item.objectID.uriRepresentation() == id.uriRepresentation())
            #expect(item.value(forKey: "string") as? String == "from a")
            item.setValue("from b", forKey: "string")
            try b.save()
        }
        try a.performAndWait {
            let item = try a.existingObject(with: id)
            a.refresh(item, mergeChanges: false)
            #expect(item.value(forKey: "string") as? String == "from b")
        }
    }

    // Core Data: optimistic locking keeps concurrent read-modify-write cycles from losing
    // updates. Several coordinators (as several app servers would) increment one counter; each
    // retries after 133020 with fresh values. Every increment lands once.
    @Test("concurrent increments from several coordinators lose no update")
    func concurrentIncrements() async throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let setup = Self.context(try Self.coordinator(database, model: model))
        let uri = try setup.performAndWait { () throws -> URL in
            let counter = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: setup)
            counter.setValue(Int64(0), forKey: "i64")
            try setup.save()
            return counter.objectID.uriRepresentation()
        }
        let workers = 4
        let increments = 15
        let conflicts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    let coordinator = try Self.coordinator(database, model: model)
                    let context = Self.context(coordinator)
                    let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
                    var conflicts = 0
                    for _ in 0..<increments {
                        while true {
                            let error = context.performAndWait { () -> StrataError? in
                                Self.strataError {
                                    let counter = try context.existingObject(with: id)
                                    context.refresh(counter, mergeChanges: false)
                                    counter.setValue((counter.value(forKey: "i64") as? Int64 ?? 0) + 1, forKey: "i64")
                                    try context.save()
                                }
                            }
                            guard let error else { break }
                            #expect(error.code == StrataError.Code.managedObjectMerge)
                            guard error.code == StrataError.Code.managedObjectMerge else { return conflicts }
                            conflicts += 1
                            context.performAndWait { context.rollback() }
                        }
                    }
                    return conflicts
                }
            }
            var total = 0
            for try await count in group { total += count }
            return total
        }
        let connection = try database.connect()
        let stored = try connection.execute("SELECT i64, \"$version\" FROM \(database.namespace).\"Item\"")
        #expect(try stored.first?.int64(0) == Int64(workers * increments))
        #expect(try stored.first?.int64(1) == Int64(workers * increments + 1))
        _ = conflicts  // how many retries the interleaving caused; any number is fine
    }

    // Core Data: batch update, delete and insert requests work on every store; through the public seam
    // Strata runs them by rows (read, then one save), so they also honour optimistic locking.
    @Test("batch update, delete and insert requests work through the seam")
    func batchRequests() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let context = Self.context(try Self.coordinator(database, model: model))
        try context.performAndWait {
            for index in 0..<10 {
                let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
                item.setValue(Int64(index), forKey: "i64")
            }
            try context.save()
            let update = BatchUpdateRequest(entityName: "Item")
            update.predicate = ObjectPredicate(format: "i64 >= 5")
            update.propertiesToUpdate = ["string": "big"]
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as? BatchUpdateResult)?.result as? Int == 5)
            let matching = FetchRequest<ManagedObject>(entityName: "Item")
            matching.predicate = ObjectPredicate(format: "i64 < 3")
            let delete = BatchDeleteRequest(fetchRequest: matching)
            delete.resultType = .resultTypeCount
            #expect((try context.execute(delete) as? BatchDeleteResult)?.result as? Int == 3)
        }
        let connection = try database.connect()
        let rows = try connection.execute("SELECT i64, string FROM \(database.namespace).\"Item\" ORDER BY i64").map { (try $0.int64(0), try $0.string(1)) }
        #expect(rows.map(\.0) == [3, 4, 5, 6, 7, 8, 9])
        #expect(rows.map(\.1) == [nil, nil, "big", "big", "big", "big", "big"])
        // A batch insert: rows from dictionaries, written in one save.
        try context.performAndWait {
            let insert = BatchInsertRequest(entityName: "Tag", objects: [["label": "x"], ["label": "y"]])
            _ = try context.execute(insert)
        }
        let labels = try connection.execute("SELECT label FROM \(database.namespace).\"Tag\" ORDER BY label").map { try $0.string(0) }
        #expect(labels == ["x", "y"])
    }

    // MARK: Relationships, read back by a fresh coordinator (no row cache in between)

    /// `Deck.cards` (ordered) ↔ `Card.decks`: a many-to-many ordered on one side (Strata orders
    /// one side only). `Card.decks` sorts first, so the join table is named after it and
    /// `Deck.cards` keeps its order in the join table's `"$owner_position"`.
    static func deckModel() -> ManagedObjectModel {
        let deck = EntityDescription(name: "Deck")
        let card = EntityDescription(name: "Card")
        deck.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "cards", destination: card, inverse: "decks", toMany: true, isOrdered: true),
        ]
        card.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "decks", destination: deck, inverse: "cards", toMany: true),
        ]
        return ManagedObjectModel(entities: [deck, card])
    }

    /// Edits the decks from both sides over three saves, then reads every ordered relationship
    /// back with a new coordinator, as "owner: members" lines.
    static func deckScenario(_ kind: StoreConformanceTests.Kind) throws -> [String] {
        let location = try StoreConformanceTests.StoreLocation(kind)
        let model = deckModel()
        let writer = Self.context(try StoreConformanceTests.coordinator(kind, model: model, directory: location))
        try writer.performAndWait {
            func make(_ entity: String, _ name: String) throws -> ManagedObject {
                let object = ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: writer)
                object.setValue(name, forKey: "name")
                return object
            }
            let (d1, d2) = (try make("Deck", "d1"), try make("Deck", "d2"))
            let (c1, c2, c3) = (try make("Card", "c1"), try make("Card", "c2"), try make("Card", "c3"))
            d1.mutableOrderedSetValue(forKey: "cards").addObjects(from: [c3, c1, c2])
            d2.mutableOrderedSetValue(forKey: "cards").addObjects(from: [c1])
            try writer.save()
            // From the unordered side: c2 leaves d1, c3 joins d2 (at the end of d2's cards).
            c2.mutableSetValue(forKey: "decks").remove(d1)
            c3.mutableSetValue(forKey: "decks").add(d2)
            try writer.save()
            d1.mutableOrderedSetValue(forKey: "cards").moveObjects(at: IndexSet(integer: 0), to: 1)
            try writer.save()
        }
        let reader = Self.context(try StoreConformanceTests.coordinator(kind, model: model, directory: location))
        return try reader.performAndWait {
            var lines: [String] = []
            for entity in ["Deck", "Card"] {
                let request = FetchRequest<ManagedObject>(entityName: entity)
                request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
                for object in try reader.fetch(request) {
                    let key = entity == "Deck" ? "cards" : "decks"
                    let value = object.value(forKey: key)
                    let objects = value as? [ManagedObject] ?? (value as? Set<ManagedObject>).map { Array($0) } ?? []
                    var members = objects.map { $0.value(forKey: "name") as? String ?? "?" }
                    if !(value is [ManagedObject]) { members.sort() }
                    lines.append("\(object.value(forKey: "name") as? String ?? "?"): \(members.joined(separator: " "))")
                }
            }
            return lines
        }
    }

    // Core Data: an ordered many-to-many keeps its order, whichever side changed its members,
    // through saves and a fresh read; the PostgreSQL store agrees with the SQLite store.
    @Test("ordered many-to-many edited from both sides reads back as on SQLite")
    func orderedManyToMany() throws {
        let expected = ["d1: c1 c3", "d2: c1 c3", "c1: d1 d2", "c2: ", "c3: d1 d2"]
        #expect(try Self.deckScenario(.sqlite) == expected)
        #expect(try Self.deckScenario(.postgreSQL) == expected)
    }

    // Core Data: an object reached through a relationship is of its own entity, also when the
    // relationship's destination is its (abstract) super-entity.
    @Test("relationship targets come back as their sub-entity")
    func subEntityTargets() throws {
        let database = try PostgreSQLTestDatabase()
        let model = GraphFixtures.company()
        let writer = Self.context(try Self.coordinator(database, model: model))
        try writer.performAndWait {
            let boss = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: writer)
            boss.setValue("boss", forKey: "name")
            let emma = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: writer)
            emma.setValue("emma", forKey: "name")
            emma.setValue(boss, forKey: "manager")
            let carl = ManagedObject(entity: try #require(model.entitiesByName["Customer"]), insertInto: writer)
            carl.setValue("carl", forKey: "name")
            emma.mutableSetValue(forKey: "friends").add(carl)
            try writer.save()
        }
        let coordinator = try Self.coordinator(database, model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore)
        let reader = Self.context(coordinator)
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "name == 'emma'")
            let emma = try #require(try reader.fetch(request).first)
            let row = try store.newValuesForObject(with: emma.objectID)
            #expect((row.value(forKey: "manager") as? ManagedObjectID)?.entity.name == "Employee")
            let friends = try store.newValue(forRelationship: try #require(emma.entity.relationshipsByName["friends"]), forObjectWith: emma.objectID) as? [ManagedObjectID]
            #expect(friends?.map(\.entity.name) == ["Customer"])
            #expect((emma.value(forKey: "manager") as? ManagedObject)?.value(forKey: "name") as? String == "boss")
        }
    }

    // Core Data returns a sorted fetch's objects in its order. The store reads the entity of a
    // to-one target in a table of several entities with one more statement, so rows with such a
    // target wait for it while the others do not: the result keeps the sort order all the same.
    @Test("a sorted fetch mixing rows with and without sub-entity targets keeps its order")
    func sortedFetchWithSubEntityTargets() throws {
        let database = try PostgreSQLTestDatabase()
        let model = GraphFixtures.company()
        let writer = Self.context(try Self.coordinator(database, model: model))
        try writer.performAndWait {
            let employee = try #require(model.entitiesByName["Employee"])
            let boss = ManagedObject(entity: employee, insertInto: writer)
            boss.setValue("a boss", forKey: "name")
            for index in 0..<12 {
                let person = ManagedObject(entity: employee, insertInto: writer)
                person.setValue("e\(String(format: "%02d", index))", forKey: "name")
                if index % 3 != 0 { person.setValue(boss, forKey: "manager") }
            }
            try writer.save()
        }
        let reader = Self.context(try Self.coordinator(database, model: model))
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: false)]
            request.returnsObjectsAsFaults = false
            let people = try reader.fetch(request)
            let names = people.map { $0.value(forKey: "name") as? String ?? "?" }
            #expect(names == (0..<12).reversed().map { "e\(String(format: "%02d", $0))" } + ["a boss"])
            for person in people where person.value(forKey: "name") as? String != "a boss" {
                let manager = person.value(forKey: "manager") as? ManagedObject
                let index = Int((person.value(forKey: "name") as? String ?? "e00").dropFirst()) ?? 0
                #expect((manager?.entity.name) == (index % 3 != 0 ? "Employee" : nil))
            }
        }
    }

    // Core Data: an object-ID fetch returns each object's ID with its own entity, also when the
    // fetched entity is an abstract super-entity. The store reads the entity's name per row only
    // from a table of several entities; every row of a table of one is that entity's.
    @Test("an ID fetch gives each row its own entity, in a table of several entities and of one")
    func objectIDFetchEntities() throws {
        let database = try PostgreSQLTestDatabase()
        let model = GraphFixtures.company()
        let writer = Self.context(try Self.coordinator(database, model: model))
        try writer.performAndWait {
            for (entity, name) in [("Employee", "emma"), ("Customer", "carl"), ("Employee", "eve"), ("Department", "sales"), ("Department", "ops")] {
                ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: writer).setValue(name, forKey: "name")
            }
            try writer.save()
        }
        let reader = Self.context(try Self.coordinator(database, model: model))
        try reader.performAndWait {
            for (entity, expected) in [("Person", ["carl": "Customer", "emma": "Employee", "eve": "Employee"]), ("Department", ["ops": "Department", "sales": "Department"])] {
                let request = FetchRequest<ManagedObjectID>(entityName: entity)
                request.resultType = .managedObjectIDResultType
                let ids = try reader.fetch(request)
                #expect(ids.count == expected.count)
                var found: [String: String] = [:]
                for id in ids { found[try reader.existingObject(with: id).value(forKey: "name") as? String ?? "?"] = id.entity.name }
                #expect(found == expected, "\(entity)")
            }
        }
    }

    // Core Data reads each row of an inheritance tree's table as the entity the row names. A row
    // the model cannot read so (written by another program) is an error naming the table when
    // an object's values are read by key, not an object of the wrong entity read from the wrong
    // columns. (A fetch never meets one: it selects the entities it asks for.)
    @Test("reading a row that names an entity of another table, or none of the model, fails with 134070")
    func rowOfForeignEntity() throws {
        let database = try PostgreSQLTestDatabase()
        let model = GraphFixtures.company()
        let employee = try #require(model.entitiesByName["Employee"])
        let connection = try database.connect()
        let table = try PostgreSQLIdentifier.quoted(database.namespace) + ".\"Person\""
        let coordinator = try Self.coordinator(database, model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore)
        for (key, entity) in [(1000, "Department"), (1001, "Ghost")] {
            try connection.execute("INSERT INTO \(table) (\"$pk\", \"$entity\", \"$version\", name) VALUES (\(key), '\(entity)', 1, 'x')")
            let id = store.newObjectID(for: employee, referenceObject: Int64(key))
            let reader = Self.context(coordinator)
            let error = reader.performAndWait {
                #expect(throws: StrataError.self) { try reader.existingObject(with: id) }
            }
            #expect(error?.code == StrataError.Code.persistentStoreOperation)
            #expect(error?.message.contains("names an entity the table does not hold: \(entity)") == true, "\(error?.message ?? "")")
            #expect(try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person")) } == 0)
        }
    }

    // Core Data faults in many objects at once; Strata reads them in batches of 5,000 keys, so a
    // long list of IDs is one statement per batch, not one statement per object nor one too
    // large for the server.
    @Test("many objects read back in batches")
    func manyObjects() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let writer = Self.context(try Self.coordinator(database, model: model))
        let count = 6_001
        try writer.performAndWait {
            let entity = try #require(model.entitiesByName["Item"])
            for index in 0..<count { ManagedObject(entity: entity, insertInto: writer).setValue(Int64(index), forKey: "i64") }
            try writer.save()
        }
        let coordinator = try Self.coordinator(database, model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore)
        let reader = Self.context(coordinator)
        let ids = try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            return try reader.fetch(request).map(\.objectID)
        }
        #expect(ids.count == count)
        let rows = try store.newValuesForObjects(with: ids, options: .default)
        #expect(rows.count == count)
        #expect(Set(rows.compactMap { $0.value(forKey: "i64") as? Int64 }) == Set((0..<Int64(count)).map { $0 }))
    }

    // A released coordinator leaves no connection behind: a server's connection slots are few
    // (100 by default), and app servers create and drop coordinators.
    @Test("releasing a coordinator closes its connections")
    func connectionsClose() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let name = "strata_close_\(UUID().uuidString.prefix(8).lowercased())"
        let url = database.url(applicationName: name)
        let connection = try database.connect()
        func open() throws -> Int64? {
            try connection.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", parameters: [.text(name)]).first?.int64(0)
        }
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: database.options)
            let context = Self.context(coordinator)
            try context.performAndWait {
                ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context).setValue("x", forKey: "label")
                try context.save()
            }
            #expect(try open() ?? 0 >= 1)
        }
        // Closing is asynchronous on the server side: wait up to 5 s for the sessions to end.
        let deadline = ContinuousClock.now + .seconds(5)
        while try open() ?? 0 > 0 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try open() == 0)
    }

    // Core Data takes entity and property names of any length; PostgreSQL cuts identifiers at
    // 63 bytes, so the store shortens long names with a hash (`PostgreSQLSchema.identifier`) and
    // two names sharing a long prefix still get their own tables and columns.
    @Test("names longer than PostgreSQL's 63-byte identifiers")
    func longNames() throws {
        let prefix = String(repeating: "VeryLongName", count: 6)
        let first = EntityDescription(name: prefix + "First")
        let second = EntityDescription(name: prefix + "Second")
        first.properties = [
            AttributeDescription(name: prefix.lowercased() + "A", type: .string),
            AttributeDescription(name: prefix.lowercased() + "B", type: .string),
            RelationshipDescription(name: prefix.lowercased() + "Links", destination: second, inverse: prefix.lowercased() + "Backs", toMany: true),
        ]
        second.properties = [
            RelationshipDescription(name: prefix.lowercased() + "Backs", destination: first, inverse: prefix.lowercased() + "Links", toMany: true)
        ]
        let model = ManagedObjectModel(entities: [first, second])
        let database = try PostgreSQLTestDatabase()
        let writer = Self.context(try Self.coordinator(database, model: model))
        try writer.performAndWait {
            let a = ManagedObject(entity: first, insertInto: writer)
            a.setValue("a", forKey: prefix.lowercased() + "A")
            a.setValue("b", forKey: prefix.lowercased() + "B")
            a.mutableSetValue(forKey: prefix.lowercased() + "Links").add(ManagedObject(entity: second, insertInto: writer))
            try writer.save()
        }
        let reader = Self.context(try Self.coordinator(database, model: model))
        try reader.performAndWait {
            let a = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: first.name)).first)
            #expect(a.value(forKey: prefix.lowercased() + "A") as? String == "a")
            #expect(a.value(forKey: prefix.lowercased() + "B") as? String == "b")
            #expect((a.value(forKey: prefix.lowercased() + "Links") as? Set<ManagedObject>)?.count == 1)
        }
    }

    // A server that ends the store's sessions (a restart, an administrator, a failover) costs
    // no more than new connections: the next read and save work without reopening the store.
    @Test("the store works on after the server ends its connections")
    func terminatedConnections() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let name = "strata_kill_\(UUID().uuidString.prefix(8).lowercased())"
        let url = database.url(applicationName: name)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: database.options)
        let context = Self.context(coordinator)
        try context.performAndWait {
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context).setValue("before", forKey: "label")
            try context.save()
        }
        let admin = try database.connect()
        let ended = try admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = $1", parameters: [.text(name)])
        #expect(try ended.first?.int64(0) ?? 0 >= 1)
        try context.performAndWait {
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context).setValue("after", forKey: "label")
            try context.save()
            context.reset()
            let labels = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).compactMap { $0.value(forKey: "label") as? String }
            #expect(labels.sorted() == ["after", "before"])
        }
    }

    // Core Data: a context pinned to a query generation reads the store as it was when pinned,
    // whatever is saved meanwhile (here by another coordinator, as another server would);
    // unpinned, it reads the current state. The PostgreSQL store holds the generation as a
    // REPEATABLE READ snapshot.
    @Test("a pinned query generation reads a snapshot")
    func queryGenerations() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let coordinator = try Self.coordinator(database, model: model)
        let setup = Self.context(coordinator)
        try setup.performAndWait {
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: setup).setValue("old", forKey: "label")
            try setup.save()
        }
        let pinned = Self.context(coordinator)
        try pinned.performAndWait { try pinned.setQueryGenerationFrom(.current) }
        let other = Self.context(try Self.coordinator(database, model: model))
        try other.performAndWait {
            let tag = try #require(try other.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first)
            tag.setValue("new", forKey: "label")
            ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: other).setValue("added", forKey: "label")
            try other.save()
        }
        func labels() throws -> [String] {
            try pinned.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Tag")
                request.returnsObjectsAsFaults = false
                return try pinned.fetch(request).compactMap { $0.value(forKey: "label") as? String }.sorted()
            }
        }
        #expect(try labels() == ["old"])
        try pinned.performAndWait {
            try pinned.setQueryGenerationFrom(nil)
            pinned.reset()
        }
        #expect(try labels() == ["added", "new"])
    }

    // Core Data promises no order for a fetch without sort descriptors; every Strata store gives
    // key order there (the SQLite store's `ORDER BY Z_PK`). The PostgreSQL store reads such a
    // fetch in the table's own order (a scan, not a walk of the key's index) and orders the rows
    // itself: updated rows, whose new versions the table keeps after the others, still come in
    // key order.
    @Test("a fetch without sort descriptors returns rows in key order, also after updates moved them in the table")
    func unsortedFetchInKeyOrder() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let coordinator = try Self.coordinator(database, model: model)
        let context = Self.context(coordinator)
        let tag = try #require(model.entitiesByName["Tag"])
        try context.performAndWait {
            for label in ["a", "b", "c", "d", "e"] { ManagedObject(entity: tag, insertInto: context).setValue(label, forKey: "label") }
            try context.save()
            let request = FetchRequest<ManagedObject>(entityName: "Tag")
            request.sortDescriptors = [ObjectSortDescriptor(key: "label")]
            let tags = try context.fetch(request)
            for object in tags.prefix(2) { object.setValue("\(object.value(forKey: "label") as? String ?? "")2", forKey: "label") }
            try context.save()
        }
        // The table's own order is no longer the key order (else the test would prove nothing).
        let connection = try database.connect()
        let table = try PostgreSQLIdentifier.quoted(database.namespace) + ".\"Tag\""
        let scanned = try connection.execute("SELECT \"$pk\" FROM \(table)").map { try $0.int64(0) ?? 0 }
        #expect(scanned.count == 5)
        #expect(scanned != scanned.sorted(), "the table's order: \(scanned)")
        let reader = Self.context(try Self.coordinator(database, model: model))
        for returnsFaults in [false, true] {
            let labels = try reader.performAndWait {
                reader.reset()
                let request = FetchRequest<ManagedObject>(entityName: "Tag")
                request.returnsObjectsAsFaults = returnsFaults
                return try reader.fetch(request).compactMap { $0.value(forKey: "label") as? String }
            }
            #expect(labels == ["a2", "b2", "c", "d", "e"], "returnsObjectsAsFaults \(returnsFaults)")
        }
    }
}
