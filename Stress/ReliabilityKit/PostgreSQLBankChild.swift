import Foundation
import Strata
import StrataPostgreSQLStore
import StrataTestSupport

/// One process of the "postgresql processes" part (``PostgreSQLProcesses``): its own
/// coordinator on a PostgreSQL namespace holding the bank accounts, it moves money between two
/// random accounts in a fresh context per transfer (read both balances, move the amount, insert
/// a `Transfer` row with the transfer's ID, save) until its time is up.
///
/// Standard output (unbuffered, one line each): `TRY id` before each attempt, `ACK id source
/// target amount` after its save returned, and at the end one `RESULT` line
/// (``PostgreSQLBankChild/Result``). An optimistic-locking conflict (133020) is retried with a
/// new attempt; any other error (the server gone, a session ended) is counted and the next
/// attempt starts 50 ms later, so a child never stops because the server restarted.
///
/// With `--peers N` the child also measures how long other processes' saves take to reach a
/// second root context with `automaticallyMergesChangesFromParent` that holds every account:
/// once its time is up it saves a `Counter` named `done-<id>` holding the time of its last
/// transfer, waits until the N children's markers are stored, reads the final balances from
/// the store, and waits until the merging context shows them without being asked to fetch. The
/// latency is measured from the last transfer of the other children.
///
/// `pg-bank-child --url URL --namespace NS --accounts A --id K --seed S --seconds T [--peers N]`
public enum PostgreSQLBankChild {
    /// Transfer IDs of child `id` are `id × idStride + attempt`.
    public static let idStride: Int64 = 10_000_000

    /// What a child did, from its `RESULT` line.
    public struct Result: Sendable, Equatable {
        /// Transfers acknowledged.
        public var acknowledged = 0
        /// Optimistic-locking conflicts retried.
        public var conflicts = 0
        /// Attempts that failed with another error (server down, session ended).
        public var errors = 0
        /// The longest attempt, successful or not, in milliseconds.
        public var longestAttempt = 0
        /// The longest time from a failed attempt to the next acknowledged one, in milliseconds.
        public var longestOutage = 0
        /// Milliseconds until the merging context showed the others' last changes; -1 if not
        /// measured, -2 if it never showed them.
        public var mergeLatency = -1

        /// Creates an empty result.
        public init() {}

        /// The `RESULT` line.
        public var line: String {
            "RESULT acked=\(acknowledged) conflicts=\(conflicts) errors=\(errors) longest=\(longestAttempt) outage=\(longestOutage) merge=\(mergeLatency)"
        }

        /// Parses a `RESULT` line.
        public init?(line: String) {
            guard line.hasPrefix("RESULT ") else { return nil }
            var fields: [String: Int] = [:]
            for part in line.dropFirst(7).split(separator: " ") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, let value = Int(pair[1]) { fields[String(pair[0])] = value }
            }
            guard let acknowledged = fields["acked"] else { return nil }
            self.acknowledged = acknowledged
            conflicts = fields["conflicts"] ?? 0
            errors = fields["errors"] ?? 0
            longestAttempt = fields["longest"] ?? 0
            longestOutage = fields["outage"] ?? 0
            mergeLatency = fields["merge"] ?? -1
        }
    }

    /// The store options of every process of the part.
    public static func options(namespace: String) -> [String: any Sendable] {
        [
            PostgreSQLStoreOption.namespace: namespace, PostgreSQLStoreOption.maximumConnections: 2,
            PostgreSQLStoreOption.connectionTimeout: 2.0,
        ]
    }

    /// Runs the child; returns its exit code.
    public static func run(_ arguments: Arguments) -> Int32 {
        guard let text = arguments.string("url"), let url = URL(string: text), let namespace = arguments.string("namespace") else {
            FileHandle.standardError.write(Data("pg-bank-child: --url and --namespace are required\n".utf8))
            return 2
        }
        let accounts = max(2, arguments.int("accounts", 8))
        let id = Int64(arguments.int("id", 0))
        let peers = arguments.int("peers", 0)
        let deadline = Date().addingTimeInterval(arguments.double("seconds", 5))
        var random = SeededRandom(seed: arguments.uint64("seed", 1) &+ UInt64(id) &* 7_919)
        let model = BankModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model, name: "pg-bank-child \(id)")
        // The server may be restarting: opening is retried until the time is up.
        var opened = false
        while !opened {
            do {
                try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options(namespace: namespace))
                opened = true
            } catch {
                guard Date() < deadline else {
                    FileHandle.standardError.write(Data("pg-bank-child: cannot open: \(error)\n".utf8))
                    return 3
                }
                usleep(100_000)
            }
        }
        guard let transferEntity = model.entitiesByName["Transfer"] else { return 3 }
        let watch = ManagedObjectContext(concurrencyType: .privateQueue)
        watch.persistentStoreCoordinator = coordinator
        watch.name = "watch"
        watch.automaticallyMergesChangesFromParent = true
        // Strong references keep the accounts registered (and materialized) in `watch`.
        var watched: [ManagedObject] = []
        if peers > 0 {
            do {
                watched = try watch.performAndWait { try watch.fetch(FetchRequest<ManagedObject>(entityName: "Account")) }
            } catch {
                FileHandle.standardError.write(Data("pg-bank-child: cannot fetch the accounts to watch: \(error)\n".utf8))
                return 3
            }
        }
        var result = Result()
        var attempt: Int64 = 0
        var failingSince: Date?
        var lastTransfer = Date()
        while Date() < deadline {
            attempt += 1
            let transferID = id * idStride + attempt
            let source = Int64(random.below(accounts))
            var target = Int64(random.below(accounts - 1))
            if target >= source { target += 1 }
            let amount = Int64(1 + random.below(50))
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            StandardOutput.writeLine("TRY \(transferID)")
            let started = Date()
            do {
                try context.performAndWait {
                    let request = FetchRequest<ManagedObject>(entityName: "Account")
                    request.predicate = ObjectPredicate(format: "number IN %@", [source, target])
                    let rows = try context.fetch(request)
                    guard let from = rows.first(where: { BankWorkload.int64($0, "number") == source }),
                        let to = rows.first(where: { BankWorkload.int64($0, "number") == target })
                    else { throw HarnessError("accounts \(source) and \(target) not found") }
                    from.setValue(BankWorkload.int64(from, "balance") - amount, forKey: "balance")
                    to.setValue(BankWorkload.int64(to, "balance") + amount, forKey: "balance")
                    let transfer = ManagedObject(entity: transferEntity, insertInto: context)
                    transfer.setValue(transferID, forKey: "saveNumber")
                    transfer.setValue(source, forKey: "source")
                    transfer.setValue(target, forKey: "target")
                    transfer.setValue(amount, forKey: "amount")
                    try context.save()
                }
                StandardOutput.writeLine("ACK \(transferID) \(source) \(target) \(amount)")
                result.acknowledged += 1
                lastTransfer = Date()
                if let since = failingSince {
                    result.longestOutage = max(result.longestOutage, milliseconds(Date().timeIntervalSince(since)))
                    failingSince = nil
                }
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge {
                result.conflicts += 1
            } catch {
                result.errors += 1
                if failingSince == nil { failingSince = started }
                FileHandle.standardError.write(Data("pg-bank-child \(id): attempt \(transferID) failed after \(Date().timeIntervalSince(started)) s: \(error)\n".utf8))
                usleep(50_000)
            }
            result.longestAttempt = max(result.longestAttempt, milliseconds(Date().timeIntervalSince(started)))
        }
        if peers > 0 {
            result.mergeLatency = measureMerge(coordinator: coordinator, watch: watch, watched: watched, id: id, peers: peers, lastTransfer: lastTransfer)
        }
        StandardOutput.writeLine(result.line)
        withExtendedLifetime(watched) {}
        return 0
    }

    private static func milliseconds(_ seconds: TimeInterval) -> Int { Int((seconds * 1_000).rounded()) }

    /// Saves this child's `done-<id>` marker, waits (at most 20 s) for every peer's, then until
    /// `watch` shows the balances stored; returns the milliseconds from the other children's
    /// last transfer to that moment (-2 if `watch` never showed them within 5 s).
    private static func measureMerge(
        coordinator: PersistentStoreCoordinator, watch: ManagedObjectContext, watched: [ManagedObject], id: Int64, peers: Int, lastTransfer: Date
    ) -> Int {
        let giveUp = Date().addingTimeInterval(20)
        var marked = false
        while !marked && Date() < giveUp {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            do {
                try context.performAndWait {
                    guard let entity = coordinator.managedObjectModel.entitiesByName["Counter"] else { throw HarnessError("no Counter entity") }
                    let marker = ManagedObject(entity: entity, insertInto: context)
                    marker.setValue("done-\(id)", forKey: "name")
                    marker.setValue(Int64(lastTransfer.timeIntervalSince1970 * 1_000), forKey: "value")
                    try context.save()
                }
                marked = true
            } catch {
                usleep(50_000)
            }
        }
        // Every peer's marker, then the truth as stored.
        var truth: [Int64: Int64]?
        var othersLast: Int64 = 0
        while truth == nil && Date() < giveUp {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            truth = try? context.performAndWait { () -> [Int64: Int64]? in
                let request = FetchRequest<ManagedObject>(entityName: "Counter")
                request.predicate = ObjectPredicate(format: "name BEGINSWITH %@", "done-")
                let markers = try context.fetch(request)
                guard markers.count >= peers else { return nil }
                othersLast = markers.filter { ($0.value(forKey: "name") as? String) != "done-\(id)" }.map { BankWorkload.int64($0, "value") }.max() ?? 0
                let accounts = try context.fetch(FetchRequest<ManagedObject>(entityName: "Account"))
                return Dictionary(accounts.map { (BankWorkload.int64($0, "number"), BankWorkload.int64($0, "balance")) }, uniquingKeysWith: { first, _ in first })
            }
            if truth == nil { usleep(10_000) }
        }
        guard let truth else { return -2 }
        let watchDeadline = Date().addingTimeInterval(5)
        while Date() < watchDeadline {
            let shown = watch.performAndWait {
                watched.allSatisfy { truth[BankWorkload.int64($0, "number")] == BankWorkload.int64($0, "balance") }
            }
            if shown {
                return max(0, Int(Date().timeIntervalSince1970 * 1_000) - Int(othersLast))
            }
            usleep(5_000)
        }
        return -2
    }
}
