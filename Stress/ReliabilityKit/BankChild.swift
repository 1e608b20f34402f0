import Foundation
import Strata

#if canImport(Glibc)
import Glibc
#endif

/// The writer process the crash loop kills: saves numbered SaveRecords forever, writing
/// `ACK n` on standard output after each `save()` returns; after every fourth save it also runs
/// a batch update (``batchUpdate(_:number:accounts:)``) and writes `BATCH n` once it returns.
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
        if let killAt = arguments.string("kill-at") {
            let parts = killAt.split(separator: ":").map(String.init)
            guard parts.count == 3, let kind = FaultVFS.Kind(rawValue: parts[0]), let file = FaultVFS.File(rawValue: parts[1]), let k = Int(parts[2]) else {
                FileHandle.standardError.write(Data("bank-child: bad --kill-at \(killAt)\n".utf8))
                return 2
            }
            vfs.arm(kind, at: k, mode: .kill, file: file)
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
                if number % 4 == 0 {
                    try batchUpdate(root, number: number, accounts: book.accounts)
                    StandardOutput.writeLine("BATCH \(number)")
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
