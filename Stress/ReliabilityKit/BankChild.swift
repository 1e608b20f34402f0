import Foundation
import Strata

#if canImport(Glibc)
import Glibc
#endif

/// The writer process the crash loop kills: saves numbered SaveRecords forever, writing
/// `ACK n` on standard output after each `save()` returns.
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

    /// The highest `ACK n` in `lines` (0 when none).
    public static func lastAcknowledged(_ lines: [String]) -> Int64 {
        lines.compactMap { $0.hasPrefix("ACK ") ? Int64($0.dropFirst(4)) : nil }.max() ?? 0
    }
}
