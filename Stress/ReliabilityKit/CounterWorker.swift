import CSQLite
import Foundation
import Strata
import StrataTestSupport

/// One of the processes of the several-process test: for a bounded time, picks a counter,
/// reads it in a fresh context, adds one and saves; an optimistic-locking conflict (133020) is
/// retried. At the end prints one `RESULT` line with what it did.
///
/// `counter-worker --store PATH --journal J --seconds T --timeout S --counters C --seed N`
public enum CounterWorker {
    /// The worker's tallies.
    public struct Tally: Sendable {
        /// Increments acknowledged (save returned), per counter index.
        public var increments: [Int]
        /// Optimistic-locking conflicts retried.
        public var conflicts = 0
        /// Timeouts (134090) after at least the configured timeout.
        public var timeouts = 0
        /// Timeouts reported before the configured timeout elapsed.
        public var earlyTimeouts = 0
        /// SQLITE_BUSY / SQLITE_LOCKED surfaced with another code than 134090.
        public var busyNotTimeout = 0
        /// Any other error.
        public var otherErrors = 0

        /// The `RESULT` line.
        public var line: String {
            "RESULT increments=\(increments.map(String.init).joined(separator: ",")) conflicts=\(conflicts) timeouts=\(timeouts) early=\(earlyTimeouts) busy=\(busyNotTimeout) errors=\(otherErrors)"
        }

        /// Parses a `RESULT` line.
        public init?(line: String) {
            guard line.hasPrefix("RESULT ") else { return nil }
            var fields: [String: String] = [:]
            for part in line.dropFirst(7).split(separator: " ") {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { fields[pair[0]] = pair[1] }
            }
            guard let list = fields["increments"] else { return nil }
            increments = list.split(separator: ",").compactMap { Int($0) }
            conflicts = Int(fields["conflicts"] ?? "") ?? 0
            timeouts = Int(fields["timeouts"] ?? "") ?? 0
            earlyTimeouts = Int(fields["early"] ?? "") ?? 0
            busyNotTimeout = Int(fields["busy"] ?? "") ?? 0
            otherErrors = Int(fields["errors"] ?? "") ?? 0
        }

        init(counters: Int) { increments = Array(repeating: 0, count: counters) }

        /// Counts a timeout error that came `elapsed` seconds after its call started.
        mutating func record(timeoutAfter elapsed: TimeInterval, limit: TimeInterval, _ error: StrataError) {
            if elapsed + 0.002 < limit {
                earlyTimeouts += 1
                FileHandle.standardError.write(Data("counter-worker: timeout after \(elapsed) s < \(limit) s: \(error)\n".utf8))
            } else {
                timeouts += 1
            }
        }
    }

    /// Runs the worker; returns the exit code.
    public static func run(_ arguments: Arguments) -> Int32 {
        guard let path = arguments.string("store") else { return 2 }
        let counters = arguments.int("counters", 8)
        let seconds = arguments.double("seconds", 5)
        let settings = arguments.storeSettings()
        let timeout = settings.timeout ?? 5
        var random = SeededRandom(seed: arguments.uint64("seed", 1))
        var tally = Tally(counters: counters)
        let deadline = Date().addingTimeInterval(seconds)
        // Opening reads the store, which can time out too (rollback journal, short timeout).
        var opened: BankStack?
        while opened == nil {
            let started = Date()
            do {
                opened = try BankStack(url: URL(fileURLWithPath: path), settings: settings)
            } catch let error as StrataError where error.code == StrataError.Code.persistentStoreTimeout && Date() < deadline {
                tally.record(timeoutAfter: Date().timeIntervalSince(started), limit: timeout, error)
            } catch {
                FileHandle.standardError.write(Data("counter-worker: cannot open: \(error)\n".utf8))
                return 3
            }
        }
        guard let stack = opened else { return 3 }
        var pending: Int?
        while Date() < deadline {
            let index = pending ?? Int(random.next() % UInt64(counters))
            pending = nil
            let context = stack.newContext(name: "worker")
            // When the failing call (the fetch or the save) started: a timeout must come at
            // least `timeout` seconds after it.
            var started = Date()
            do {
                try context.performAndWait {
                    let request = FetchRequest<ManagedObject>(entityName: "Counter")
                    request.predicate = ObjectPredicate(format: "name == %@", "c\(index)")
                    guard let counter = try context.fetch(request).first else { throw HarnessError("counter c\(index) is missing") }
                    counter.setValue(BankWorkload.int64(counter, "value") + 1, forKey: "value")
                    started = Date()
                    try context.save()
                }
                tally.increments[index] += 1
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge {
                tally.conflicts += 1
                pending = index  // read again and retry the same increment
            } catch let error as StrataError where error.code == StrataError.Code.persistentStoreTimeout {
                tally.record(timeoutAfter: Date().timeIntervalSince(started), limit: timeout, error)
            } catch let error as StrataError where error.sqliteCode == SQLITE_BUSY || error.sqliteCode == SQLITE_LOCKED {
                tally.busyNotTimeout += 1
                FileHandle.standardError.write(Data("counter-worker: busy surfaced as \(error.code): \(error)\n".utf8))
            } catch {
                tally.otherErrors += 1
                FileHandle.standardError.write(Data("counter-worker: \(error)\n".utf8))
            }
        }
        stack.close()
        StandardOutput.writeLine(tally.line)
        return 0
    }
}

/// Holds the write lock of a store for a while: `lock-holder --store PATH --seconds S`.
/// Prints `LOCKED` once it holds it.
public enum LockHolder {
    /// Runs the holder; returns the exit code.
    public static func run(_ arguments: Arguments) -> Int32 {
        guard let path = arguments.string("store") else { return 2 }
        do {
            let db = try RawSQLite(path: path, readWrite: true)
            try db.execute("BEGIN IMMEDIATE")
            StandardOutput.writeLine("LOCKED")
            usleep(UInt32(arguments.double("seconds", 1) * 1_000_000))
            try db.execute("COMMIT")
            return 0
        } catch {
            FileHandle.standardError.write(Data("lock-holder: \(error)\n".utf8))
            return 3
        }
    }
}
