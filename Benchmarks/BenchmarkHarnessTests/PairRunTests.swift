import Foundation
import Testing

@testable import BenchmarkHarness

/// Records the order in which pair bodies ran.
private final class CallLog {
    var calls: [String] = []
}

/// A pair side's body that logs its calls and reports `rows` rows.
private func loggingBody(_ log: CallLog, rows: Int = 10) -> PairBody {
    { context in
        log.calls.append("\(context.pairSide?.rawValue ?? "?")\(context.isWarmup ? " warm-up" : "")")
        var digest = RowDigest()
        for value in 0..<rows { digest.add(Int64(value)) }
        return digest
    }
}

@Suite("Pairs: interleaving and row checks")
struct PairRunTests {
    @Test func sidesAreInterleavedWithAWarmUpAndAtLeastFiveSamples() throws {
        let log = CallLog()
        let suite = BenchmarkSuite(name: "Interleave")
        // The configuration asks for no warm-up and 2 samples: a pair still gets 1 and 5.
        let configuration = BenchmarkConfiguration(warmupIterations: 0, minIterations: 1, maxIterations: 2, maxDuration: .milliseconds(1), metrics: [.wallClock])
        suite.pair("p", configuration: configuration, strata: loggingBody(log), raw: loggingBody(log))
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench", "--format", "json"], output: console.output) == 0)
        let expected = ["strata warm-up", "raw warm-up"] + Array(repeating: ["strata", "raw"], count: PairRunner.minimumSamples).flatMap { $0 }
        #expect(log.calls == expected)
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        for name in ["p [strata]", "p [raw]"] {
            let results = try #require(report.results(named: name))
            #expect(results.iterations == PairRunner.minimumSamples)
            #expect(results.warmupIterations == PairRunner.minimumWarmups)
        }
        #expect(report.pairs.first?.rows?.count == 10)
    }

    @Test func differentRowsFailThePairAndPrintBothDigests() throws {
        let suite = BenchmarkSuite(name: "Mismatch")
        suite.pair(
            "p", configuration: tinyConfiguration, targets: [.ratioAtMost(1_000)],
            strata: { _ in RowDigest(count: 3, checksum: 7) },
            raw: { context in RowDigest(count: 3, checksum: context.iteration == 2 ? 8 : 7) })
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench", "--format", "json"], output: console.output) == 1)
        #expect(console.errorText.contains("the sides saw different rows in measured iteration 2"))
        #expect(console.errorText.contains("strata 3 rows, checksum 0x0000000000000007; raw 3 rows, checksum 0x0000000000000008"))
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        #expect(report.benchmarks.isEmpty)
        #expect(report.pairs.first?.ratios.isEmpty == true)
        #expect(report.pairs.first?.note?.contains("different rows") == true)
        #expect(report.targets.map(\.status) == [.skipped])
    }

    @Test func differentCountsFailInTheWarmUp() {
        let suite = BenchmarkSuite(name: "Counts")
        let log = CallLog()
        suite.pair("p", configuration: tinyConfiguration, strata: loggingBody(log, rows: 5), raw: loggingBody(log, rows: 4))
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench"], output: console.output) == 1)
        #expect(console.errorText.contains("different rows in warm-up iteration 0: strata 5 rows"))
        #expect(log.calls == ["strata warm-up", "raw warm-up"])
        #expect(console.standardOutput.contains("no ratios: the sides saw different rows"))
    }

    @Test func emptyBodiesFail() {
        let suite = BenchmarkSuite(name: "Empty")
        suite.pair("p", configuration: tinyConfiguration, strata: { _ in RowDigest() }, raw: { _ in RowDigest() })
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench"], output: console.output) == 1)
        #expect(console.errorText.contains("both sides saw no rows"))
    }

    @Test func aMismatchFailsEvenWithoutFailOnMissedTargets() {
        let suite = BenchmarkSuite(name: "Exit")
        suite.pair("p", configuration: tinyConfiguration, strata: { _ in RowDigest(count: 1, checksum: 1) }, raw: { _ in RowDigest(count: 1, checksum: 2) })
        #expect(suite.run(arguments: ["bench", "--quick"], output: CapturedConsole().output) == 1)
    }

    @Test func missingSetUpFailsThePair() throws {
        let suite = BenchmarkSuite(name: "SetUp")
        var bodies = 0
        suite.pair(
            "p", configuration: tinyConfiguration,
            setUp: { context in
                if context.pairSide == .strata { context.userInfo["url"] = "file" }
            },
            strata: { context in
                bodies += 1
                let url = try context.require("url", as: String.self)
                return RowDigest(count: url.count, checksum: 0)
            },
            raw: { context in
                bodies += 1
                let url = try context.require("url", as: String.self)
                return RowDigest(count: url.count, checksum: 0)
            })
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench", "--format", "json"], output: console.output) == 1)
        #expect(console.errorText.contains("p [raw]: body threw in warm-up iteration 0: missing set-up: userInfo[\"url\"] (String) was never set"))
        #expect(bodies == 2)
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        #expect(report.benchmarks.isEmpty)
        #expect(report.failures.count == 1)
    }

    @Test func requireRejectsAValueOfAnotherType() {
        let suite = BenchmarkSuite(name: "Type")
        suite.benchmark(
            "b", configuration: tinyConfiguration, setUp: { $0.userInfo["count"] = "three" },
            body: { context in context.blackHole(try context.require("count", as: Int.self)) })
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench"], output: console.output) == 1)
        #expect(console.errorText.contains("missing set-up: userInfo[\"count\"] (Int) holds another type"))
    }
}
