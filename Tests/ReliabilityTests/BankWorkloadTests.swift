import Foundation
import ReliabilityKit
import Strata
import StrataTestSupport
import Testing

@Suite("Bank workload and checker")
struct BankWorkloadTests {
    @Test("Every route stores its recipe exactly, as the raw checker and Strata both read it", arguments: SaveRecipe.Route.allCases)
    func routesRoundTrip(route: SaveRecipe.Route) throws {
        let directory = TemporaryDirectory(prefix: "strata-bank")
        let url = directory.file("bank.sqlite")
        let book = RecipeBook(seed: 7, accounts: 12, route: route)
        try BankWorkload.createStore(at: url, settings: StoreSettings(journal: .wal), accounts: 12)
        do {
            let stack = try BankStack(url: url, settings: StoreSettings(journal: .wal))
            defer { stack.close() }
            let root = stack.newContext()
            for number in 1...5 { try BankWorkload.save(book.recipe(Int64(number)), root: root) }
        }
        let check = BankChecker.check(url, settings: StoreSettings(journal: .wal), book: book, acknowledged: 5)
        #expect(check.isConsistent, "\(check)")
        #expect(check.lastSave == 5)
    }
}
