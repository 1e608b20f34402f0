import CSQLite
import Foundation
import ReliabilityKit
import Strata
import StrataTestSupport
import Testing

@Suite("I/O-fault sweeps")
struct FaultSweepTests {
    @Test("Every write, sync, truncate and delete of a plain save and of a child-to-root save fails once without damage", arguments: JournalMode.allCases)
    func sweep(journal: JournalMode) throws {
        let vfs = try #require(FaultVFS.register(name: "test-fault-sweep-\(journal)"))
        let directory = TemporaryDirectory(prefix: "strata-sweep")
        var configuration = FaultSweep.Configuration(directory: directory.url, seed: 11, vfs: vfs)
        configuration.settings = [StoreSettings(journal: journal)]
        configuration.routes = [.plain, .chain]
        configuration.modes = [.once]
        configuration.accounts = 8
        configuration.savesBefore = 1
        let report = FaultSweep(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect((report.figures.first?.value ?? 0) > 10)
    }

    @Test("A persistent write fault on the root save keeps the context's changes and temporary IDs; the same save succeeds once it clears")
    func persistentFaultKeepsChanges() throws {
        let vfs = try #require(FaultVFS.register(name: "test-fault-persistent"))
        let directory = TemporaryDirectory(prefix: "strata-sweep")
        let url = directory.file("bank.sqlite")
        let book = RecipeBook(seed: 12, accounts: 8, route: .chain)
        try BankWorkload.createStore(at: url, settings: StoreSettings(journal: .wal), accounts: 8)
        try withExtendedLifetime(try BankStack(url: url, settings: StoreSettings(journal: .wal, vfsName: vfs.name))) { stack in
            let prepared = try BankWorkload.prepare(book.recipe(1), root: stack.newContext())
            vfs.arm(.write, at: 0, mode: .persistent)
            #expect {
                try prepared.commit()
            } throws: { error in
                (error as? StrataError)?.sqliteCode == SQLITE_IOERR
            }
            #expect(vfs.fired >= 1)
            vfs.disarm()
            prepared.root.performAndWait {
                #expect(prepared.root.hasChanges)
                #expect(prepared.record.objectID.isTemporaryID)
            }
            try prepared.commit()
            prepared.root.performAndWait {
                #expect(!prepared.root.hasChanges)
                #expect(!prepared.record.objectID.isTemporaryID)
            }
            stack.close()
        }
        let check = BankChecker.check(url, settings: StoreSettings(journal: .wal), book: book, acknowledged: 1)
        #expect(check.isConsistent, "\(check)")
    }
}
