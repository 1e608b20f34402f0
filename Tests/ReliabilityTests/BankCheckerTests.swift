import Foundation
import ReliabilityKit
import StrataTestSupport
import Testing

@Suite("Bank checker sees damage")
struct BankCheckerTests {
    /// A consistent store's contents after `saves` saves.
    func contents(saves: Int64, book: RecipeBook) throws -> (StoreContents, TemporaryDirectory) {
        let directory = TemporaryDirectory(prefix: "strata-checker")
        let url = directory.file("bank.sqlite")
        try BankWorkload.createStore(at: url, settings: StoreSettings(journal: .delete), accounts: book.accounts)
        try withExtendedLifetime(try BankStack(url: url, settings: StoreSettings(journal: .delete))) { stack in
            let root = stack.newContext()
            for number in 1...saves { try BankWorkload.save(book.recipe(number), root: root) }
            stack.close()
        }
        return (try StoreContents.read(url), directory)
    }

    @Test("A clean store passes; each kind of damage is reported")
    func damageIsReported() throws {
        let book = RecipeBook(seed: 31, accounts: 10, route: .plain)
        let (clean, directory) = try contents(saves: 4, book: book)
        #expect(BankChecker.verify(clean, book: book, acknowledged: 4).isConsistent)

        let lost = BankChecker.verify(clean, book: book, acknowledged: 6)
        #expect(lost.lostAcknowledged == 2)

        var moneyCreated = clean
        moneyCreated.balances[1, default: 0] += 5
        let created = BankChecker.verify(moneyCreated, book: book, acknowledged: 4)
        #expect(!created.invariantHolds && !created.isConsistent)

        var partial = clean
        partial.records.removeAll { $0.number == 4 }
        #expect(BankChecker.verify(partial, book: book, acknowledged: 3).problems.contains { $0.contains("partial save 4") })

        var gap = clean
        gap.records.removeAll { $0.number == 2 }
        gap.transfers.removeAll { $0.saveNumber == 2 }
        #expect(!BankChecker.verify(gap, book: book, acknowledged: 0).isConsistent)

        var torn = clean
        torn.records[0].payloadChecksum ^= 1
        #expect(BankChecker.verify(torn, book: book, acknowledged: 4).problems.contains { $0.contains("checksum") })

        var corrupt = clean
        corrupt.integrity = "*** in database main ***"
        #expect(BankChecker.verify(corrupt, book: book, acknowledged: 4).isCorrupt)
        _ = directory
    }
}
