import Foundation
import Strata
import StrataLocks
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// Persistent history on the PostgreSQL store with several app servers: what Core Data promises
/// for one store file shared by an app and its extensions (every writer's transactions in the
/// history, a token to resume from, `NSPersistentStoreRemoteChange` carrying the transaction's
/// token, tombstones keeping the preserved values, a store with history opened without tracking
/// being read-only) must hold for coordinators on several servers sharing one namespace. Two
/// coordinators in one test process stand for two servers. The cases every store shares run in
/// `PersistentHistoryTests`.
@Suite("PostgreSQL persistent history", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLHistoryTests {
    static let tracking: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]

    static func coordinator(_ database: PostgreSQLTestDatabase, model: ManagedObjectModel = PersistentHistoryTests.model(), options: [String: any Sendable] = tracking) throws
        -> PersistentStoreCoordinator
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try database.addStore(to: coordinator, options: options)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator, author: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = author
        return context
    }

    /// Inserts one note titled `title` and saves.
    static func insertNote(_ title: String, in context: ManagedObjectContext) throws {
        try context.performAndWait {
            let note = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"]), insertInto: context)
            note.setValue(title, forKey: "title")
            try context.save()
        }
    }

    static func history(after token: PersistentHistoryToken?, in coordinator: PersistentStoreCoordinator) throws -> [PersistentHistoryTransaction] {
        let context = context(coordinator)
        return try context.performAndWait {
            let result = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)) as? PersistentHistoryResult)
            return try #require(result.result as? [PersistentHistoryTransaction])
        }
    }

    @Test("another server's save is in the history; its remote-change notification carries the transaction's token")
    func otherServersTransactions() throws {
        let database = try PostgreSQLTestDatabase()
        let observed = try Self.coordinator(database, options: Self.tracking.merging([PersistentStoreOption.remoteChangeNotificationPost: true]) { $1 })
        let other = try Self.coordinator(database)
        let start = observed.currentPersistentHistoryToken()
        let tokens = StrataLock<[PersistentHistoryToken]>([])
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: observed, queue: nil) { notification in
            if let token = notification.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.historyToken] as? PersistentHistoryToken {
                tokens.withLock { $0.append(token) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try Self.insertNote("from the other server", in: Self.context(other, author: "server-b"))
        let deadline = Date().addingTimeInterval(5)
        while tokens.withLock({ $0.isEmpty }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let received = try #require(tokens.withLock { $0.first })
        let transactions = try Self.history(after: start, in: observed)
        #expect(transactions.map(\.author) == ["server-b"])
        #expect(transactions.first?.token == received)
        // The token names the observing coordinator's store: fetching after it returns nothing.
        #expect(try Self.history(after: received, in: observed).isEmpty)
        #expect(observed.currentPersistentHistoryToken() == received)
    }

    @Test("numbers rise in commit order across servers: a reader resuming from its last token never misses a transaction")
    func commitOrderAcrossServers() throws {
        let database = try PostgreSQLTestDatabase()
        let servers = try (0..<2).map { _ in try Self.coordinator(database) }
        let reader = try Self.coordinator(database)
        let writersDone = StrataLock(false)
        let seen = StrataLock<[Int64]>([])
        let readerThread = Thread {
            var token: PersistentHistoryToken?
            while true {
                let finished = writersDone.withLock { $0 }
                guard let transactions = try? Self.history(after: token, in: reader) else { return }
                if let last = transactions.last { token = last.token }
                seen.withLock { $0 += transactions.map(\.transactionNumber) }
                if finished { return }
            }
        }
        readerThread.start()
        let perWriter = 25
        let group = DispatchGroup()
        let failures = StrataLock(0)
        for (index, server) in servers.enumerated() {
            for writer in 0..<2 {
                DispatchQueue.global().async(group: group) {
                    let context = Self.context(server, author: "server-\(index)")
                    for n in 0..<perWriter {
                        do { try Self.insertNote("\(index)-\(writer)-\(n)", in: context) } catch { failures.withLock { $0 += 1 } }
                    }
                }
            }
        }
        group.wait()
        writersDone.withLock { $0 = true }
        let deadline = Date().addingTimeInterval(20)
        while !readerThread.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(failures.withLock { $0 } == 0)
        let all = try Self.history(after: nil, in: reader)
        #expect(all.count == 4 * perWriter)
        #expect(all.map(\.transactionNumber) == all.map(\.transactionNumber).sorted())
        // The reader, resuming from each fetch's last token, saw every transaction exactly once.
        #expect(seen.withLock { $0 } == all.map(\.transactionNumber))
    }

    /// Item (tombstone keeps every attribute type).
    static func everyTypeModel() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let types: [(String, AttributeType)] = [
            ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("dbl", .double), ("flt", .float), ("dec", .decimal), ("str", .string),
            ("flag", .boolean), ("when", .date), ("blob", .binaryData), ("uuid", .uuid), ("link", .uri), ("plist", .transformable), ("none", .string),
        ]
        item.properties = types.map { name, type in
            let attribute = AttributeDescription(name: name, type: type)
            attribute.preservesValueInHistoryOnDeletion = true
            return attribute
        }
        return ManagedObjectModel(entities: [item])
    }

    @Test("a tombstone keeps the preserved value of every attribute type exactly; an attribute with no value is absent")
    func tombstoneOfEveryType() throws {
        let database = try PostgreSQLTestDatabase()
        let model = Self.everyTypeModel()
        let coordinator = try Self.coordinator(database, model: model)
        let values: [String: Any] = [
            "i16": Int16.min, "i32": Int32.max, "i64": Int64.min, "dbl": -0.1, "flt": Float(3.25), "dec": Decimal(string: "12345678901234567890.123456789")!,
            "str": "naïve — \"quoted\" \\ 日本", "flag": true, "when": Date(timeIntervalSinceReferenceDate: 123_456.789), "blob": Data([0, 1, 2, 255]),
            "uuid": UUID(), "link": URL(string: "https://example.com/a?b=c")!, "plist": ["a", "b"] as [String],
        ]
        let context = Self.context(coordinator)
        let token = try context.performAndWait {
            let item = ManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
            for (key, value) in values { item.setValue(value, forKey: key) }
            try context.save()
            let token = coordinator.currentPersistentHistoryToken()
            context.delete(item)
            try context.save()
            return token
        }
        let transactions = try Self.history(after: token, in: coordinator)
        let tombstone = try #require(transactions.first?.changes?.first?.tombstone)
        #expect(transactions.first?.changes?.first?.changeType == .delete)
        #expect(tombstone["i16"] as? Int16 == Int16.min)
        #expect(tombstone["i32"] as? Int32 == Int32.max)
        #expect(tombstone["i64"] as? Int64 == Int64.min)
        #expect(tombstone["dbl"] as? Double == -0.1)
        #expect(tombstone["flt"] as? Float == 3.25)
        #expect(tombstone["dec"] as? Decimal == values["dec"] as? Decimal)
        #expect(tombstone["str"] as? String == values["str"] as? String)
        #expect(tombstone["flag"] as? Bool == true)
        #expect(tombstone["when"] as? Date == values["when"] as? Date)
        #expect(tombstone["blob"] as? Data == values["blob"] as? Data)
        #expect(tombstone["uuid"] as? UUID == values["uuid"] as? UUID)
        #expect(tombstone["link"] as? URL == values["link"] as? URL)
        #expect(tombstone["plist"] as? [String] == ["a", "b"])
        #expect(tombstone["none"] == nil)
        #expect(tombstone.count == values.count)
    }

    @Test("a namespace keeping a history is read-only for a store added without tracking, as in Core Data; with tracking it records on")
    func readOnlyWithoutTracking() throws {
        let database = try PostgreSQLTestDatabase()
        let tracking = try Self.coordinator(database)
        try Self.insertNote("first", in: Self.context(tracking))
        let untracked = try Self.coordinator(database, options: [:])
        let context = Self.context(untracked)
        context.performAndWait {
            ManagedObject(entity: untracked.managedObjectModel.entitiesByName["Note"]!, insertInto: context).setValue("hole", forKey: "title")
            #expect(throws: StrataError.self) { try context.save() }
        }
        try Self.insertNote("second", in: Self.context(tracking))
        let transactions = try Self.history(after: nil, in: tracking)
        #expect(transactions.count == 2)
        let titles = try Self.context(tracking).performAndWait {
            try Self.context(tracking).count(for: FetchRequest<ManagedObject>(entityName: "Note"))
        }
        #expect(titles == 2)
    }

    @Test("deleting history before a token removes it for every server; numbers keep rising")
    func deleteIsShared() throws {
        let database = try PostgreSQLTestDatabase()
        let first = try Self.coordinator(database)
        let second = try Self.coordinator(database)
        try Self.insertNote("a", in: Self.context(first))
        try Self.insertNote("b", in: Self.context(second))
        let token = try #require(first.currentPersistentHistoryToken())
        let context = Self.context(first)
        let deleted = try context.performAndWait {
            let request = PersistentHistoryChangeRequest.deleteHistory(before: token)
            request.resultType = .count
            return try #require(try context.execute(request) as? PersistentHistoryResult).result as? Int
        }
        #expect(deleted == 2)
        #expect(try Self.history(after: nil, in: second).isEmpty)
        try Self.insertNote("c", in: Self.context(second))
        let after = try Self.history(after: nil, in: first)
        #expect(after.count == 1)
        #expect((after.first?.transactionNumber ?? 0) > (token.transactionNumber(forStoreIdentifier: first.persistentStores[0].identifier) ?? .max))
    }

    @Test("a listener that reconnects reads from the history what others committed while it was away, and reports it")
    func catchUpAfterReconnecting() throws {
        let database = try PostgreSQLTestDatabase()
        let reader = try Self.coordinator(database, options: Self.tracking.merging([PersistentStoreOption.remoteChangeNotificationPost: true]) { $1 })
        try Self.insertNote("before", in: Self.context(reader))
        let context = Self.context(reader)
        context.automaticallyMergesChangesFromParent = true
        let note = try context.performAndWait { try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first) }
        let key = try #require(context.performAndWait { reader.persistentStores[0].incrementalStore.referenceObject(for: note.objectID) })
        let tokens = StrataLock<[PersistentHistoryToken]>([])
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: reader, queue: nil) { notification in
            if let token = notification.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.historyToken] as? PersistentHistoryToken { tokens.withLock { $0.append(token) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        // Another server's commit whose message never arrives: written without NOTIFY, as the
        // store writes a save (row, version, history), then the reader's listening session ends.
        let connection = try database.connect()
        let ns = "\"\(database.namespace)\""
        let number = try connection.transaction(isolation: .readCommitted) { () throws -> Int64 in
            try connection.execute("UPDATE \(ns).\"Note\" SET title = 'while away', \"$version\" = \"$version\" + 1 WHERE \"$pk\" = $1", parameters: [.int64(key)])
            let number = try #require(try connection.execute("SELECT nextval('\(ns).\"$history_number\"'::regclass)").first?.int64(0))
            try connection.execute(
                "INSERT INTO \(ns).\"$history_transaction\" (number, \"timestamp\", author, origin) VALUES ($1, 0, 'elsewhere', 'another server')", parameters: [.int64(number)])
            try connection.execute(
                "INSERT INTO \(ns).\"$history_change\" (\"transaction\", entity, key, type, properties) VALUES ($1, 'Note', $2, 1, '[\"title\"]')",
                parameters: [.int64(number), .int64(key)])
            return number
        }
        let ended = try connection.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND query LIKE $1",
            parameters: [.text("%" + database.namespace + "%")])
        #expect(try ended.first?.int64(0) == 1)
        let identifier = reader.persistentStores[0].identifier
        #expect(ChangesMadeElsewhereTests.eventually(context, within: 10) { note.value(forKey: "title") as? String == "while away" })
        #expect(tokens.withLock { $0.contains { $0.transactionNumber(forStoreIdentifier: identifier) == number } })
    }
}
