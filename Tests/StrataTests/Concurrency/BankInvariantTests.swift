import Foundation
import Strata
import StrataStressKit
import Testing

/// The bank stress workload (`make stress`), test-suite sized: a few seconds on the 16
/// contexts, then every invariant — money constant after root saves and at the end, no
/// negative balance, no lost update against the transfer log, pinned generations exact, all
/// contexts agreeing, SQLite's integrity check and the SQL oracle.
@Suite("Bank invariants under concurrent contexts")
struct BankInvariantTests {
    func run(seed: UInt64, seconds: Double, contexts: [Int]? = nil) {
        var configuration = StressRun.Configuration(seed: seed, seconds: seconds)
        configuration.threads = 6
        configuration.progressInterval = 0
        configuration.fullCheckInterval = 1
        configuration.contexts = contexts
        let report = StressRun(configuration: configuration).run { _ in }
        #expect(report.passed, "\(report.text)")
        #expect(report.operations > 0)
    }

    @Test("all 16 contexts, seeded", arguments: [UInt64(11), 2_024])
    func allContexts(seed: UInt64) {
        run(seed: seed, seconds: 3)
    }

    @Test("a child saving into its root while another root writes the same accounts (a lost update found by the stress)")
    func childAndOtherRoot() {
        // bank.teller2 pushes transfers into bank, branch writes the store directly.
        run(seed: 2, seconds: 3, contexts: [2, 5])
    }
}
