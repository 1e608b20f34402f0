import Foundation
import Strata
import StrataProgress

/// I/O-fault injection into batch requests: for each journal setting (with and without
/// persistent history, whose rows the request writes in its own transaction), kind of batch request,
/// fault kind and mode, the Kth write/sync/truncate/delete fails (K = 0, 1, 2… until no fault
/// fires) while the request runs. A failed request must throw a `StrataError` carrying the
/// SQLite code and leave the store exactly as it was — as the live file reads it, as a copy of
/// the files taken right then (a crash) recovers it, and as Strata reads it — and the same
/// request must succeed once the fault clears; a request that succeeds must leave exactly what
/// the same request leaves without faults. All or nothing, like a save.
public struct BatchFaultSweep {
    /// The batch requests swept, on the bank model of ``BankModel``.
    public enum Kind: String, Sendable, CaseIterable {
        /// A batch update of half the accounts' padding.
        case update
        /// A batch delete of one SaveRecord, cascading to its transfers.
        case delete
        /// A batch insert of 50 counters (each a new row).
        case insert

        /// Runs the request in `context` (on its queue); returns the rows it reports.
        func execute(in context: ManagedObjectContext) throws -> Int {
            try context.performAndWait {
                switch self {
                case .update:
                    let update = BatchUpdateRequest(entityName: "Account")
                    update.predicate = ObjectPredicate(format: "number <= %@", Int64(12))
                    update.propertiesToUpdate = ["padding": "batched"]
                    update.resultType = .updatedObjectIDsResultType
                    return ((try context.execute(update) as? BatchUpdateResult)?.result as? [ManagedObjectID])?.count ?? -1
                case .delete:
                    let request = FetchRequest<ManagedObject>(entityName: "SaveRecord")
                    request.predicate = ObjectPredicate(format: "number == %@", Int64(2))
                    let delete = BatchDeleteRequest(fetchRequest: request)
                    delete.resultType = .resultTypeCount
                    return (try context.execute(delete) as? BatchDeleteResult)?.result as? Int ?? -1
                case .insert:
                    let insert = BatchInsertRequest(entityName: "Counter", objects: (0..<50).map { ["name": "batch-\($0)", "value": Int64($0)] })
                    insert.resultType = .count
                    return (try context.execute(insert) as? BatchInsertResult)?.result as? Int ?? -1
                }
            }
        }
    }

    /// What to sweep.
    public struct Configuration: Sendable {
        /// A folder for the stores.
        public var directory: URL
        /// The seed of the saves in the store before the request.
        public var seed: UInt64
        /// The registered fault VFS.
        public var vfs: FaultVFS
        /// Journal settings.
        public var settings: [StoreSettings] = {
            var tracked = StoreSettings(journal: .wal)
            tracked.historyTracking = true
            return [StoreSettings(journal: .wal), StoreSettings(journal: .delete, synchronous: "FULL"), tracked]
        }()
        /// Requests.
        public var kinds: [Kind] = Kind.allCases
        /// Faults.
        public var faults: [FaultSweep.Fault] = FaultSweep.Fault.all
        /// Modes.
        public var modes: [FaultVFS.Mode] = [.once, .persistent]
        /// Accounts.
        public var accounts = 24
        /// A bound on K (a sweep that reaches it is reported as incomplete).
        public var maximumK = 600
        /// Stop early after this moment.
        public var deadline: Date?

        /// Creates a configuration.
        public init(directory: URL, seed: UInt64, vfs: FaultVFS) {
            self.directory = directory
            self.seed = seed
            self.vfs = vfs
        }
    }

    /// The counts of a sweep.
    struct Figures {
        var faultPoints = 0
        var runs = 0
        var sequences = 0
        var incompleteSequences = 0
        var failedRequests = 0
        var wrongErrors = 0
        var partialStores = 0
        var failedButCommitted = 0
        var failedButCommittedAfterCrash = 0
        var ambiguousCommitsAfterCrash = 0
        var strataDisagrees = 0
        var retryFailures = 0
        var leakedConnections = 0
        var unexpectedFailures = 0
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates a sweep.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// Runs the sweep and returns its report.
    public func run() -> PartReport {
        let started = Date()
        var figures = Figures()
        var details = DetailLog()
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        // A status line on a terminal only; off one the part prints its report at the end.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        let sequenceCount = configuration.settings.count * configuration.kinds.count * configuration.faults.count * configuration.modes.count
        let progress = SweepProgress(meter: meter, label: "batch fault sweep", sequenceCount: sequenceCount, started: started, deadline: configuration.deadline)
        var sequenceIndex = 0
        sequences: for settings in configuration.settings {
            for kind in configuration.kinds {
                let baseline: Baseline
                do {
                    baseline = try makeBaseline(settings: settings, kind: kind)
                } catch {
                    details.add("cannot make the baseline store for \(settings) \(kind): \(error)")
                    figures.unexpectedFailures += 1
                    continue
                }
                defer { removeStore(baseline.url) }
                for fault in configuration.faults {
                    for mode in configuration.modes {
                        sequenceIndex += 1
                        let label = { (k: Int) in "\(settings) batch \(kind.rawValue) \(fault) \(mode.rawValue) K=\(k)" }
                        let sequence = FaultPointSequence.run(
                            maximumK: configuration.maximumK, deadline: configuration.deadline,
                            beforeRun: progress.beforeRun(sequence: sequenceIndex, runs: figures.runs, faultPoints: figures.faultPoints, name: label),
                            { k in runOnce(baseline, fault: fault, mode: mode, k: k, label: label(k), figures: &figures, details: &details) })
                        figures.runs += sequence.runs
                        figures.faultPoints += sequence.faultPoints
                        switch sequence.end {
                        case .swept:
                            figures.sequences += 1
                        case .kBound(let k):
                            figures.incompleteSequences += 1
                            details.add("\(label(k)): still firing at the K bound")
                        case .deadline:
                            figures.incompleteSequences += 1
                            break sequences
                        }
                    }
                }
            }
        }
        let list = [
            Figure("fault points swept in batch requests", figures.faultPoints, atLeast: 1),
            Figure("runs", figures.runs, atLeast: 1),
            Figure("sequences swept to the end", figures.sequences),
            Figure("batch requests failed by a fault", figures.failedRequests, atLeast: 1),
            Figure("stores not exactly before or after the request", figures.partialStores, mustBeZero: true),
            Figure("failed requests found committed", figures.failedButCommitted, mustBeZero: true),
            Figure("failed requests committed after a crash", figures.failedButCommittedAfterCrash, mustBeZero: true),
            Figure("  WAL fsync failed after the commit frame (SQLite)", figures.ambiguousCommitsAfterCrash),
            Figure("errors without a StrataError + SQLite code", figures.wrongErrors, mustBeZero: true),
            Figure("Strata's reads disagreeing with the file", figures.strataDisagrees, mustBeZero: true),
            Figure("requests that failed again after the fault", figures.retryFailures, mustBeZero: true),
            Figure("leaked connections", figures.leakedConnections, mustBeZero: true),
            Figure("unexpected failures (no fault)", figures.unexpectedFailures, mustBeZero: true),
            Figure("incomplete sequences (K bound, deadline)", figures.incompleteSequences, mustBeZero: configuration.deadline == nil),
        ]
        return PartReport(name: "I/O-fault injection into batch requests", figures: list, details: details.items, seconds: Date().timeIntervalSince(started))
    }

    // MARK: One run

    struct Baseline {
        var url: URL
        var settings: StoreSettings
        var kind: Kind
        /// The store's fingerprint before and after the request (run without faults).
        var before: [String]
        var after: [String]
    }

    /// A bank store with three saves, and the fingerprints the request goes between.
    private func makeBaseline(settings: StoreSettings, kind: Kind) throws -> Baseline {
        let url = configuration.directory.appendingPathComponent("batch-baseline-\(settings.journal)-\(kind.rawValue).sqlite")
        removeStore(url)
        let book = RecipeBook(seed: configuration.seed, accounts: configuration.accounts, route: .plain)
        try BankWorkload.createStore(at: url, settings: settings.withoutVFS, accounts: configuration.accounts)
        try withExtendedLifetime(try BankStack(url: url, settings: settings.withoutVFS)) { stack in
            let root = stack.newContext()
            for number in 1...Int64(3) { try BankWorkload.save(book.recipe(number), root: root) }
            stack.close()
        }
        let before = try Self.fingerprint(url)
        let copy = configuration.directory.appendingPathComponent("batch-expected.sqlite")
        try Self.copyStore(url, to: copy)
        defer { removeStore(copy) }
        let after: [String] = try withExtendedLifetime(try BankStack(url: copy, settings: settings.withoutVFS)) { stack in
            defer { stack.close() }
            guard try kind.execute(in: stack.newContext()) > 0 else { throw HarnessError("the batch \(kind.rawValue) changed no row") }
            return try Self.fingerprint(copy)
        }
        guard after != before else { throw HarnessError("the batch \(kind.rawValue) left the store as it was") }
        return Baseline(url: url, settings: settings, kind: kind, before: before, after: after)
    }

    /// Runs the request once with the fault armed at K; returns whether the fault fired.
    private func runOnce(_ baseline: Baseline, fault: FaultSweep.Fault, mode: FaultVFS.Mode, k: Int, label: String, figures: inout Figures, details: inout DetailLog) -> Bool {
        let vfs = configuration.vfs
        let url = configuration.directory.appendingPathComponent("batch-run.sqlite")
        defer { removeStore(url) }
        do {
            try Self.copyStore(baseline.url, to: url)
        } catch {
            figures.unexpectedFailures += 1
            details.add("\(label): cannot copy the baseline: \(error)")
            return false
        }
        vfs.disarm()
        var settings = baseline.settings
        settings.vfsName = vfs.name
        let fired: Bool
        do {
            let stack = try BankStack(url: url, settings: settings)
            defer { stack.close() }
            let context = stack.newContext()
            vfs.arm(fault.kind, at: k, mode: mode, errorCode: fault.errorCode)
            do {
                _ = try baseline.kind.execute(in: context)
                fired = vfs.fired > 0
                vfs.disarm()
                expect(.after, url, baseline, "after the request", label: label, figures: &figures, details: &details)
            } catch {
                fired = vfs.fired > 0
                if mode == .persistent { vfs.disarm() }
                guard fired else {
                    figures.unexpectedFailures += 1
                    details.add("\(label): the request failed with no fault injected: \(error)")
                    return false
                }
                figures.failedRequests += 1
                if let problem = FaultSweep.errorProblem(error, injected: fault.errorCode) {
                    figures.wrongErrors += 1
                    details.add("\(label): \(problem)")
                }
                vfs.disarm()
                checkCrashImage(url, baseline: baseline, walSyncAmbiguity: fault.kind == .sync && baseline.settings.journal == .wal, label: label, figures: &figures, details: &details)
                expect(.before, url, baseline, "right after the failed request", label: label, figures: &figures, details: &details)
                let strata = Self.strataFingerprint(stack)
                if strata != Self.strataPart(of: baseline.before) {
                    figures.strataDisagrees += 1
                    details.add("\(label): Strata reads \(strata.prefix(3)) after the failed request")
                }
                // The fault has cleared: the same request runs again.
                do {
                    _ = try baseline.kind.execute(in: context)
                    expect(.after, url, baseline, "after running the request again", label: label, figures: &figures, details: &details)
                } catch {
                    figures.retryFailures += 1
                    details.add("\(label): running the request again after the fault cleared failed: \(error)")
                }
            }
        } catch {
            vfs.disarm()
            figures.unexpectedFailures += 1
            details.add("\(label): cannot open the store (no fault armed yet): \(error)")
            return false
        }
        vfs.disarm()
        if vfs.openFiles != 0 {
            figures.leakedConnections += 1
            details.add("\(label): \(vfs.openFiles) file(s) still open through the VFS after the store was closed")
        }
        return fired
    }

    enum State: Equatable {
        case before, after
        case other(String)
    }

    /// Which of the baseline's two states the store at `url` is in.
    private func state(of url: URL, _ baseline: Baseline) -> State {
        do {
            let found = try Self.fingerprint(url)
            if found == baseline.before { return .before }
            if found == baseline.after { return .after }
            return .other(Self.difference(found, baseline.after))
        } catch {
            return .other("the store cannot be read: \(error)")
        }
    }

    /// Counts a store not in `expected` state: partial when it is in neither.
    private func expect(_ expected: State, _ url: URL, _ baseline: Baseline, _ when: String, label: String, figures: inout Figures, details: inout DetailLog) {
        let found = state(of: url, baseline)
        guard found != expected else { return }
        switch found {
        case .after:
            figures.failedButCommitted += 1
            details.add("\(label): \(when), the store holds the request's changes")
        case .before:
            figures.partialStores += 1
            details.add("\(label): \(when), the store does not hold the request's changes")
        case .other(let difference):
            figures.partialStores += 1
            details.add("\(label): \(when), the store is neither before nor after the request: \(difference)")
        }
    }

    /// Copies the files as they are now (a crash right after the failure) and checks what
    /// recovery makes of them: the store as it was before the request.
    private func checkCrashImage(_ url: URL, baseline: Baseline, walSyncAmbiguity: Bool, label: String, figures: inout Figures, details: inout DetailLog) {
        let image = configuration.directory.appendingPathComponent("batch-image.sqlite")
        defer { removeStore(image) }
        removeStore(image)
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try? FileManager.default.copyItem(atPath: url.path + suffix, toPath: image.path + suffix)
        }
        do {
            let found = try Self.fingerprint(image)
            if found == baseline.before { return }
            if found == baseline.after {
                if walSyncAmbiguity {
                    figures.ambiguousCommitsAfterCrash += 1
                } else {
                    figures.failedButCommittedAfterCrash += 1
                    details.add("\(label): the request failed, but a copy of the files taken right after the failure holds it")
                }
                return
            }
            figures.partialStores += 1
            details.add("\(label): a copy of the files taken right after the failure: \(Self.difference(found, baseline.before))")
        } catch {
            figures.partialStores += 1
            details.add("\(label): a copy of the files taken right after the failure cannot be read: \(error)")
        }
    }

    // MARK: Fingerprints

    /// Every account (number, balance, padding), save record and transfer, the integrity check
    /// and, when the store records history, the number of history transactions and changes,
    /// read with plain SQL (rolling back a hot journal).
    static func fingerprint(_ url: URL) throws -> [String] {
        let db = try RawSQLite(path: url.path, readWrite: true)
        var lines = ["integrity " + (try db.rows("PRAGMA integrity_check").compactMap { $0.first?.text }.joined(separator: "; "))]
        if try !db.rows("SELECT name FROM sqlite_master WHERE name = 'Z_HISTORY_TRANSACTION'").isEmpty {
            let transactions = try db.rows("SELECT count(*) FROM Z_HISTORY_TRANSACTION").first?.first?.int64 ?? -1
            let changes = try db.rows("SELECT count(*) FROM Z_HISTORY_CHANGE").first?.first?.int64 ?? -1
            lines.append("history \(transactions) transactions, \(changes) changes")
        }
        for row in try db.rows("SELECT ZNUMBER, ZBALANCE, ZPADDING FROM ZACCOUNT ORDER BY ZNUMBER") {
            lines.append("account \(row[0].int64) \(row[1].int64) \(row[2].text ?? "-")")
        }
        for row in try db.rows("SELECT ZNUMBER, ZTRANSFERCOUNT FROM ZSAVERECORD ORDER BY ZNUMBER") {
            lines.append("record \(row[0].int64) \(row[1].int64)")
        }
        for row in try db.rows("SELECT ZSAVENUMBER, ZSOURCE, ZTARGET, ZAMOUNT FROM ZTRANSFER ORDER BY ZSAVENUMBER, ZSOURCE, ZTARGET, ZAMOUNT") {
            lines.append("transfer \(row[0].int64) \(row[1].int64)→\(row[2].int64) \(row[3].int64)")
        }
        for row in try db.rows("SELECT ZNAME, ZVALUE FROM ZCOUNTER ORDER BY ZNAME, ZVALUE") {
            lines.append("counter \(row[0].text ?? "-") \(row[1].int64)")
        }
        return lines
    }

    /// The fingerprint lines Strata can be compared on (all but the integrity check and the
    /// history counts).
    static func strataPart(of fingerprint: [String]) -> [String] {
        fingerprint.filter { !$0.hasPrefix("integrity ") && !$0.hasPrefix("history ") }
    }

    /// The same lines as a fresh context of `stack` reads them.
    static func strataFingerprint(_ stack: BankStack) -> [String] {
        let context = stack.newContext(name: "checker")
        do {
            return try context.performAndWait {
                var lines: [String] = []
                let accounts = FetchRequest<ManagedObject>(entityName: "Account")
                accounts.sortDescriptors = [ObjectSortDescriptor(key: "number", ascending: true)]
                for account in try context.fetch(accounts) {
                    lines.append("account \(BankWorkload.int64(account, "number")) \(BankWorkload.int64(account, "balance")) \(account.value(forKey: "padding") as? String ?? "-")")
                }
                let records = FetchRequest<ManagedObject>(entityName: "SaveRecord")
                records.sortDescriptors = [ObjectSortDescriptor(key: "number", ascending: true)]
                for record in try context.fetch(records) {
                    lines.append("record \(BankWorkload.int64(record, "number")) \(BankWorkload.int64(record, "transferCount"))")
                }
                var transfers: [(Int64, Int64, Int64, Int64)] = []
                for transfer in try context.fetch(FetchRequest<ManagedObject>(entityName: "Transfer")) {
                    transfers.append(
                        (
                            BankWorkload.int64(transfer, "saveNumber"), BankWorkload.int64(transfer, "source"), BankWorkload.int64(transfer, "target"),
                            BankWorkload.int64(transfer, "amount")
                        ))
                }
                transfers.sort { $0 < $1 }
                lines += transfers.map { "transfer \($0.0) \($0.1)→\($0.2) \($0.3)" }
                let counters = FetchRequest<ManagedObject>(entityName: "Counter")
                counters.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true), ObjectSortDescriptor(key: "value", ascending: true)]
                for counter in try context.fetch(counters) {
                    lines.append("counter \(counter.value(forKey: "name") as? String ?? "-") \(BankWorkload.int64(counter, "value"))")
                }
                return lines
            }
        } catch {
            return ["Strata cannot read the store: \(error)"]
        }
    }

    /// The first line where two fingerprints differ.
    static func difference(_ found: [String], _ expected: [String]) -> String {
        for (index, line) in expected.enumerated() where index >= found.count || found[index] != line {
            return "expected '\(line)', found '\(index < found.count ? found[index] : "nothing")'"
        }
        return "\(found.count - expected.count) more line(s) than expected: '\(found.dropFirst(expected.count).first ?? "")'"
    }

    static func copyStore(_ source: URL, to target: URL) throws {
        removeStore(target)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
    }
}
