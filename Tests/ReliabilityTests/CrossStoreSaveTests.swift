import CSQLite
import Foundation
import ReliabilityKit
import Strata
import StrataTestSupport
import Testing

/// A save whose objects live in two stores (configurations "Bank" and "Audit"): before the fix
/// each store was its own transaction, so a failure in one left the other committed and a retry
/// wrote that part twice (or hit a version conflict against itself).
@Suite("Saves spanning two stores")
struct CrossStoreSaveTests {
    @Test("A version conflict in one store rolls back the other store's part too")
    func conflictRollsBackBothStores() throws {
        let directory = TemporaryDirectory(prefix: "strata-two-stores")
        let url = directory.file("bank.sqlite")
        let auditURL = directory.file("audit.sqlite")
        try BankWorkload.createStore(at: url, auditURL: auditURL, settings: StoreSettings(journal: .wal), accounts: 4)
        let stack = try BankStack(url: url, auditURL: auditURL, settings: StoreSettings(journal: .wal))
        defer { stack.close() }
        let first = stack.newContext(name: "first")
        let second = stack.newContext(name: "second")
        let request = FetchRequest<ManagedObject>(entityName: "Account")
        request.predicate = ObjectPredicate(format: "number == 1")
        // `first` reads account 1, `second` changes it in the store meanwhile.
        let account = try first.performAndWait { try first.fetch(request)[0] }
        try second.performAndWait {
            let same = try second.fetch(request)[0]
            same.setValue(Int64(5), forKey: "balance")
            try second.save()
        }
        #expect(throws: StrataError.self) {
            try first.performAndWait {
                account.setValue(Int64(7), forKey: "balance")
                let audit = ManagedObject(entity: try #require(stack.model.entitiesByName["AuditEntry"]), insertInto: first)
                audit.setValue(Int64(1), forKey: "saveNumber")
                try first.save()
            }
        }
        #expect(try StoreContents.read(auditURL).audits.isEmpty, "the audit store committed its part of a failed save")
        #expect(try StoreContents.read(url).balances[1] == 5)
    }

    @Test("I/O faults on either store's writes: the save lands in both stores or in neither, or reports 134040", arguments: JournalMode.allCases)
    func faultSweepAcrossStores(journal: JournalMode) throws {
        let vfs = try #require(FaultVFS.register(name: "test-fault-two-stores-\(journal)"))
        let directory = TemporaryDirectory(prefix: "strata-two-stores")
        var configuration = FaultSweep.Configuration(directory: directory.url, seed: 13, vfs: vfs)
        configuration.settings = [StoreSettings(journal: journal)]
        configuration.routes = [.audited]
        configuration.faults = FaultSweep.Fault.all.filter { $0.kind == .write && $0.errorCode != SQLITE_FULL }
        configuration.modes = [.once]
        configuration.accounts = 8
        configuration.savesBefore = 1
        let report = FaultSweep(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
    }
}
