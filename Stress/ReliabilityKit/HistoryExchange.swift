import Foundation
import Strata
import StrataLocks

/// Two processes write one store with persistent history tracking and remote-change
/// notifications on, and each reads the other's transactions from the history after a token
/// (issue #14, item 6). Each side runs ``exchange(_:)``: `saves` saves of one `Entry` each
/// (its `seq` counting up) with its own transaction author, then waits (bounded) until the
/// history after the token holds every one of the peer's entries. It checks that they are there
/// in order with none missing, that its own are too, and that a `.persistentStoreRemoteChange`
/// notification with each peer transaction's token arrived.
///
/// `history-writer --store PATH --token JSON --author A --peer B --saves N --peer-saves M --seconds S`
/// runs one side in a child process and prints one `RESULT` line.
public enum HistoryExchange {
    /// What one side asks for.
    public struct Side: Sendable {
        public var store: URL
        /// The token both sides read after (JSON of a `PersistentHistoryToken`).
        public var token: Data
        public var author: String
        public var peer: String
        public var saves: Int
        public var peerSaves: Int
        /// The most seconds to wait for the peer's transactions and notifications.
        public var seconds: Double
        /// A file this side creates once its store is added (it then gets every later notification).
        public var readyFile: URL?
        /// A file this side waits for (bounded by `seconds`) before it writes.
        public var waitsForFile: URL?

        public init(store: URL, token: Data, author: String, peer: String, saves: Int, peerSaves: Int, seconds: Double) {
            self.store = store
            self.token = token
            self.author = author
            self.peer = peer
            self.saves = saves
            self.peerSaves = peerSaves
            self.seconds = seconds
        }

        /// The child's command-line arguments (after the executable).
        public var arguments: [String] {
            [
                "history-writer", "--store", store.path, "--token", String(decoding: token, as: UTF8.self), "--author", author, "--peer", peer, "--saves", String(saves),
                "--peer-saves", String(peerSaves), "--seconds", String(seconds),
            ] + (readyFile.map { ["--ready", $0.path] } ?? []) + (waitsForFile.map { ["--wait-for", $0.path] } ?? [])
        }
    }

    /// One side's verdict: problems (empty when it passed) and what it saw.
    public struct Outcome: Sendable {
        public var problems: [String] = []
        public var peerSeen = 0
        public var notified = 0

        /// The `RESULT` line.
        public var line: String {
            "RESULT peerSeen=\(peerSeen) notified=\(notified) problems=\(problems.count)" + (problems.isEmpty ? "" : " " + problems.joined(separator: " | "))
        }
    }

    /// The model both sides use: `Entry(author, seq)`.
    public static func model() -> ManagedObjectModel {
        let entry = EntityDescription(name: "Entry")
        entry.properties = [
            AttributeDescription(name: "author", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "seq", type: .integer32, isOptional: false, defaultValue: Int32(0)),
        ]
        return ManagedObjectModel(entities: [entry])
    }

    /// The store's options: history tracking and remote-change notifications.
    public static let options: [String: any Sendable] = [
        PersistentStoreOption.persistentHistoryTracking: true, PersistentStoreOption.remoteChangeNotificationPost: true, PersistentStoreOption.timeout: 10.0,
    ]

    /// Creates the store and returns the token both sides read after (JSON).
    public static func createStore(at url: URL) throws -> Data {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        defer { try? coordinator.remove(store) }
        guard let token = coordinator.currentPersistentHistoryToken() else { throw HarnessError("a new store with tracking on has no history token") }
        return try JSONEncoder().encode(token)
    }

    /// Runs one side (see the type's documentation).
    public static func exchange(_ side: Side) -> Outcome {
        var outcome = Outcome()
        do {
            try run(side, into: &outcome)
        } catch {
            outcome.problems.append("\(side.author): \(error)")
        }
        return outcome
    }

    private static func run(_ side: Side, into outcome: inout Outcome) throws {
        let token = try JSONDecoder().decode(PersistentHistoryToken.self, from: side.token)
        let model = model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: side.store, options: options)
        defer { try? coordinator.remove(store) }
        // Transactions after this one come after the store was added: each must be notified.
        let start = coordinator.currentPersistentHistoryToken()?.transactionNumber(forStoreIdentifier: store.identifier) ?? 0
        let notified = StrataLock<Set<PersistentHistoryToken>>([])
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { notification in
            if let token = notification.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.historyToken] as? PersistentHistoryToken {
                notified.withLock { _ = $0.insert(token) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        if let ready = side.readyFile { _ = FileManager.default.createFile(atPath: ready.path, contents: Data()) }
        if let other = side.waitsForFile {
            let limit = Date().addingTimeInterval(side.seconds)
            while !FileManager.default.fileExists(atPath: other.path) && Date() < limit { Thread.sleep(forTimeInterval: 0.005) }
        }
        guard let entity = model.entitiesByName["Entry"] else { throw HarnessError("no Entry entity") }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = side.author
        for index in 0..<side.saves {
            try context.performAndWait {
                let entry = ManagedObject(entity: entity, insertInto: context)
                entry.setValue(side.author, forKey: "author")
                entry.setValue(Int32(index), forKey: "seq")
                try context.save()
                context.reset()
            }
            Thread.sleep(forTimeInterval: 0.002)  // let the peer interleave
        }
        // Read the history after the token until the peer's saves are all there (bounded).
        let deadline = Date().addingTimeInterval(side.seconds)
        var transactions: [PersistentHistoryTransaction] = []
        var peerTokens: [PersistentHistoryToken] = []
        while true {
            transactions = try context.performAndWait {
                let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)) as? PersistentHistoryResult
                return result?.result as? [PersistentHistoryTransaction] ?? []
            }
            peerTokens = transactions.filter { $0.author == side.peer && $0.transactionNumber > start }.map(\.token)
            let allNotified = notified.withLock { seen in peerTokens.allSatisfy { seen.contains($0) } }
            if (peerTokens.count >= side.peerSaves && allNotified) || Date() >= deadline { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        // Every transaction is one save of one entry; the peer's arrive in its own order.
        var seqByAuthor: [String: [Int32]] = [:]
        for transaction in transactions {
            guard let change = transaction.changes?.first, transaction.changes?.count == 1, change.changeType == .insert else {
                outcome.problems.append("\(side.author): transaction \(transaction.transactionNumber) is not one insert")
                continue
            }
            let entry = try context.performAndWait { () -> (String, Int32) in
                let object = try context.existingObject(with: change.changedObjectID)
                return (object.value(forKey: "author") as? String ?? "?", object.value(forKey: "seq") as? Int32 ?? -1)
            }
            if entry.0 != transaction.author { outcome.problems.append("\(side.author): transaction \(transaction.transactionNumber) by \(transaction.author ?? "nil") inserted \(entry.0)'s entry") }
            seqByAuthor[entry.0, default: []].append(entry.1)
        }
        let numbers = transactions.map(\.transactionNumber)
        if numbers != numbers.sorted() || Set(numbers).count != numbers.count { outcome.problems.append("\(side.author): transaction numbers out of order") }
        for (author, count) in [(side.peer, side.peerSaves), (side.author, side.saves)] {
            let seqs = seqByAuthor[author] ?? []
            if seqs != (0..<count).map(Int32.init) { outcome.problems.append("\(side.author) read \(author)'s entries as \(seqs.prefix(8))… (\(seqs.count) of \(count))") }
        }
        outcome.peerSeen = seqByAuthor[side.peer]?.count ?? 0
        outcome.notified = notified.withLock { seen in peerTokens.filter { seen.contains($0) }.count }
        if outcome.notified != peerTokens.count {
            outcome.problems.append("\(side.author): \(outcome.notified) of the \(peerTokens.count) peer transactions committed after its store was added were notified")
        }
    }

    /// The `history-writer` child: runs one side and prints its `RESULT` line; exit 0 when it passed.
    public static func runChild(_ arguments: Arguments) -> Int32 {
        var side = Side(
            store: URL(fileURLWithPath: arguments.string("store") ?? "history.sqlite"), token: Data((arguments.string("token") ?? "").utf8),
            author: arguments.string("author") ?? "child", peer: arguments.string("peer") ?? "parent", saves: arguments.int("saves", 20),
            peerSaves: arguments.int("peer-saves", 20), seconds: arguments.double("seconds", 20))
        side.readyFile = arguments.string("ready").map { URL(fileURLWithPath: $0) }
        side.waitsForFile = arguments.string("wait-for").map { URL(fileURLWithPath: $0) }
        let outcome = exchange(side)
        StandardOutput.writeLine(outcome.line)
        return outcome.problems.isEmpty ? 0 : 1
    }
}
