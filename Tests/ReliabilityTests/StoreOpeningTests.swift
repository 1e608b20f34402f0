import CSQLite
import Foundation
import ReliabilityKit
import Strata
import StrataTestSupport
import Testing

@Suite("Opening stores under another writer and on read-only media")
struct StoreOpeningTests {
    @Test("An existing store opens and reads while another connection holds the write lock; a save then times out (134090) after the timeout", arguments: JournalMode.allCases)
    func opensWhileAnotherWriterHoldsTheLock(journal: JournalMode) throws {
        let directory = TemporaryDirectory(prefix: "strata-open")
        let url = directory.file("bank.sqlite")
        let book = RecipeBook(seed: 3, accounts: 6, route: .plain)
        try BankWorkload.createStore(at: url, settings: StoreSettings(journal: journal), accounts: 6)
        let holder = try RawSQLite(path: url.path, readWrite: true)
        try holder.execute("BEGIN IMMEDIATE")
        defer { try? holder.execute("COMMIT") }
        // Before the fix, adding the store took the write lock and timed out here.
        let stack = try BankStack(url: url, settings: StoreSettings(journal: journal, timeout: 0.2))
        defer { stack.close() }
        let root = stack.newContext()
        #expect(try root.performAndWait { try root.count(for: FetchRequest<ManagedObject>(entityName: "Account")) } == 6)
        let started = Date()
        #expect {
            try BankWorkload.save(book.recipe(1), root: root)
        } throws: { error in
            let strata = error as? StrataError
            return strata?.code == StrataError.Code.persistentStoreTimeout && strata?.sqliteCode == SQLITE_BUSY
        }
        #expect(Date().timeIntervalSince(started) >= 0.19)
    }

    @Test("Stores on a read-only mount: rollback-journal stores open read-only, everything else is a clear 134080", .enabled(if: Mounts.unavailableReason == nil, "needs root to mount a tmpfs"))
    func readOnlyMedia() throws {
        let directory = TemporaryDirectory(prefix: "strata-ro")
        let report = ReadOnlyMedia(directory: directory.url, seed: 4).run()
        #expect(report.skipped == nil, "\(report.skipped ?? "")")
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect(report.figures.first { $0.name == "opened for reading" }?.value == 1)
    }

    @Test("Disk full: SQLITE_FULL as a StrataError, nothing half-written, the same context saves once space is freed", .enabled(if: Mounts.unavailableReason == nil, "needs root to mount a tmpfs"))
    func diskFull() throws {
        let directory = TemporaryDirectory(prefix: "strata-full")
        let report = DiskFull(directory: directory.url, seed: 5).run()
        #expect(report.skipped == nil, "\(report.skipped ?? "")")
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
    }
}
