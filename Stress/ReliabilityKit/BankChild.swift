import Foundation
import Strata

#if canImport(Glibc)
import Glibc
#endif

/// The writer process the crash loop kills: saves numbered SaveRecords forever, writing
/// `ACK n` on standard output after each `save()` returns. Batch requests run between saves,
/// each acknowledged once it returns: after save n with n % 4 == 0 a batch update
/// (``batchUpdate(_:number:accounts:)``, `BATCH n`), with n % 4 == 2 a batch insert of
/// ``countersPerBatch`` counters named `n<n>-<i>` (`INSERTED n`), with n % 4 == 3 a batch delete
/// of the counters inserted after save n − 1 (`DELETED n-1`).
///
/// `bank-child --store PATH --journal WAL|DELETE [--sync FULL] --seed S --accounts A
/// [--payload mixed|large|none] [--route plain|chain|permanentIDs] [--kill-at kind:file:K]
/// [--stop-after N]`
///
/// `--kill-at` arms the fault VFS to SIGKILL the process at the Kth write/sync/truncate/delete
/// (on `any`, `database`, `journal` or `wal` files); `--stop-after N` SIGKILLs it after N saves.
/// Exits 3 if a save fails (the parent counts that as a harness failure).
public enum BankChild {
    /// Runs the child; returns only on failure (exit code).
    public static func run(_ arguments: Arguments) -> Int32 {
        guard let path = arguments.string("store") else {
            FileHandle.standardError.write(Data("bank-child: --store is required\n".utf8))
            return 2
        }
        guard let vfs = FaultVFS.register() else {
            FileHandle.standardError.write(Data("bank-child: cannot register the fault VFS\n".utf8))
            return 2
        }
        if let killAt = arguments.string("kill-at"), !vfs.armKill(killAt) {
            FileHandle.standardError.write(Data("bank-child: bad --kill-at \(killAt)\n".utf8))
            return 2
        }
        let book = arguments.recipeBook()
        let stopAfter = arguments.int("stop-after", 0)
        do {
            let stack = try BankStack(url: URL(fileURLWithPath: path), settings: arguments.storeSettings(vfsName: vfs.name))
            let root = stack.newContext(name: "bank child")
            var number = try BankWorkload.lastSaveNumber(in: root) + 1
            var saved = 0
            while true {
                try BankWorkload.save(book.recipe(number), root: root)
                acknowledge(number)
                switch number % 4 {
                case 0:
                    try batchUpdate(root, number: number, accounts: book.accounts)
                    StandardOutput.writeLine("BATCH \(number)")
                case 2:
                    try root.performAndWait {
                        let rows: [[String: Any]] = (0..<countersPerBatch).map { ["name": "n\(number)-\($0)", "value": Int64($0)] }
                        _ = try root.execute(BatchInsertRequest(entityName: "Counter", objects: rows))
                    }
                    StandardOutput.writeLine("INSERTED \(number)")
                case 3:
                    try root.performAndWait {
                        let request = FetchRequest<ManagedObject>(entityName: "Counter")
                        request.predicate = ObjectPredicate(format: "name BEGINSWITH %@", "n\(number - 1)-")
                        _ = try root.execute(BatchDeleteRequest(fetchRequest: request))
                    }
                    StandardOutput.writeLine("DELETED \(number - 1)")
                default:
                    break
                }
                saved += 1
                if stopAfter > 0 && saved >= stopAfter { kill(getpid(), SIGKILL) }
                if saved % 10 == 0 { root.performAndWait { root.reset() } }
                number += 1
            }
        } catch {
            FileHandle.standardError.write(Data("bank-child: \(error)\n".utf8))
            return 3
        }
    }

    /// Writes `ACK n` straight to standard output (unbuffered: the line is in the pipe the
    /// moment this returns).
    static func acknowledge(_ number: Int64) {
        StandardOutput.writeLine("ACK \(number)")
    }

    /// The batch update of save `number`: the padding of the first half of the accounts becomes
    /// `batch-<number>` in one `BatchUpdateRequest` (all of them or none, whatever the kill).
    static func batchUpdate(_ context: ManagedObjectContext, number: Int64, accounts: Int) throws {
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Account")
            update.predicate = ObjectPredicate(format: "number <= %@", Int64(batchedAccounts(accounts)))
            update.propertiesToUpdate = ["padding": "batch-\(number)"]
            _ = try context.execute(update)
        }
    }

    /// How many counters each batch insert adds.
    public static let countersPerBatch = 10

    /// The numbers n of the `INSERTED n` and `DELETED n` lines in `lines`.
    public static func counterBatches(_ lines: [String]) -> (inserted: Set<Int64>, deleted: Set<Int64>) {
        var inserted = Set<Int64>()
        var deleted = Set<Int64>()
        for line in lines {
            if line.hasPrefix("INSERTED "), let number = Int64(line.dropFirst(9)) { inserted.insert(number) }
            if line.hasPrefix("DELETED "), let number = Int64(line.dropFirst(8)) { deleted.insert(number) }
        }
        return (inserted, deleted)
    }

    /// What the batch inserts and deletes left: every group of counters complete (a batch insert
    /// or delete lands on all its rows or none), every acknowledged insert present unless the
    /// delete after it may have run (the store holds save n + 1), every acknowledged delete
    /// done, no group ahead of its save.
    public static func checkCounterBatches(_ url: URL, lines: [String], lastSave: Int64) -> [String] {
        do {
            let db = try RawSQLite(path: url.path)
            var groups: [Int64: Int] = [:]
            for row in try db.rows("SELECT ZNAME FROM ZCOUNTER WHERE ZNAME LIKE 'n%'") {
                let name = row[0].text ?? ""
                guard let dash = name.firstIndex(of: "-"), let number = Int64(name.dropFirst().prefix(upTo: dash)) else { continue }
                groups[number, default: 0] += 1
            }
            var problems: [String] = []
            for (number, count) in groups.sorted(by: { $0.key < $1.key }) {
                if count != countersPerBatch { problems.append("batch insert \(number) left \(count) of its \(countersPerBatch) counters") }
                if number > lastSave { problems.append("batch insert \(number) is in the store but save \(number) is not") }
            }
            let (inserted, deleted) = counterBatches(lines)
            for number in inserted.sorted() where groups[number] == nil && lastSave < number + 1 {
                problems.append("the acknowledged batch insert \(number) is lost")
            }
            for number in deleted.sorted() where groups[number] != nil {
                problems.append("the acknowledged batch delete of \(number)'s counters is undone")
            }
            return problems
        } catch {
            return ["the counters cannot be read: \(error)"]
        }
    }

    /// How many accounts (numbers 1…n) the batch updates change.
    public static func batchedAccounts(_ accounts: Int) -> Int { max(1, accounts / 2) }

    /// The highest `BATCH n` in `lines` (0 when none).
    public static func lastBatch(_ lines: [String]) -> Int64 {
        lines.compactMap { $0.hasPrefix("BATCH ") ? Int64($0.dropFirst(6)) : nil }.max() ?? 0
    }

    /// What the batch updates left in the store at `url`: the problems (a batch applied to some
    /// accounts only, one never acknowledged being ahead of the saves, an acknowledged one
    /// lost) and the batch number found (0: none yet).
    public static func checkBatches(_ url: URL, accounts: Int, acknowledged: Int64, lastSave: Int64) -> (problems: [String], found: Int64) {
        do {
            let db = try RawSQLite(path: url.path)
            let paddings = try db.rows("SELECT ZPADDING FROM ZACCOUNT WHERE ZNUMBER <= \(batchedAccounts(accounts))").map { $0[0].text ?? "" }
            let batched = Set(paddings.filter { $0.hasPrefix("batch-") })
            guard !batched.isEmpty else {
                return (acknowledged > 0 ? ["the acknowledged batch update \(acknowledged) is lost: no account holds a batch padding"] : [], 0)
            }
            var problems: [String] = []
            if batched.count > 1 || batched.count != Set(paddings).count {
                problems.append("a batch update was applied to some accounts only: \(Set(paddings).sorted().prefix(4))")
            }
            let found = batched.compactMap { Int64($0.dropFirst(6)) }.max() ?? 0
            if found < acknowledged { problems.append("the acknowledged batch update \(acknowledged) is lost: the store holds batch \(found)") }
            if found > lastSave { problems.append("batch \(found) is in the store but save \(found) is not (the store holds saves up to \(lastSave))") }
            return (problems, found)
        } catch {
            return (["the batch paddings cannot be read: \(error)"], 0)
        }
    }

    /// The highest `ACK n` in `lines` (0 when none).
    public static func lastAcknowledged(_ lines: [String]) -> Int64 {
        lines.compactMap { $0.hasPrefix("ACK ") ? Int64($0.dropFirst(4)) : nil }.max() ?? 0
    }
}
