import Foundation
import Testing

@testable import BenchmarkHarness

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

@Suite("Suite runs")
struct SuiteRunTests {
    private func makeSuite(slowRaw: Bool = false, log: Counter? = nil) -> BenchmarkSuite {
        let suite = BenchmarkSuite(name: "Tiny")
        suite.benchmark("noop", configuration: tinyConfiguration) { context in
            log?.bodies += 1
            context.blackHole(context.iteration)
        }
        suite.pair("sum", configuration: tinyConfiguration, targets: [.ratioAtMost(1_000), .ratioAtMost(0.000_001, metric: .cpuTotal)]) { context in
            let total = (0..<1_000).reduce(0, +)
            context.blackHole(total)
            return RowDigest(count: 1_000, checksum: UInt64(total))
        } raw: { context in
            var total = 0
            for _ in 0..<(slowRaw ? 2 : 1) { total = (0..<1_000).reduce(0, +) }
            context.blackHole(total)
            return RowDigest(count: 1_000, checksum: UInt64(total))
        }
        suite.relation("sum sides", numerator: "sum [strata]", denominator: "sum [raw]", target: .ratioAtMost(1_000))
        suite.relation("noop vs sum", numerator: "noop", denominator: "sum [raw]", target: .ratioAtMost(1_000))
        return suite
    }

    @Test func plainRunPrintsReportAndExitsZero() {
        let console = CapturedConsole()
        let code = makeSuite().run(arguments: ["bench"], output: console.output)
        #expect(code == 0)
        #expect(console.standardOutput.contains("== noop =="))
        #expect(console.standardOutput.contains("== Pair: sum =="))
        #expect(console.standardOutput.contains("== Relation: sum sides =="))
        #expect(console.standardOutput.contains("target met: [sum] wall clock ratio ≤ 1000×"))
        #expect(console.standardOutput.contains("target MISSED: [sum] cpu total ratio"))
        #expect(console.standardOutput.contains("rows checked: both sides saw 1000 rows"))
        #expect(console.errorText.contains("[1/3] noop"))
        #expect(console.errorText.contains("[2-3/3] sum: strata and raw interleaved"))
        #expect(console.standardOutput.contains("== Relation: noop vs sum =="))
    }

    @Test func missedTargetsFailOnlyWhenAsked() {
        let console = CapturedConsole()
        #expect(makeSuite().run(arguments: ["bench", "--fail-on-missed-targets", "--filter", "sum"], output: console.output) == 2)
    }

    @Test func quickRunUsesQuickIterations() throws {
        let console = CapturedConsole()
        let counter = Counter()
        let code = makeSuite(log: counter).run(arguments: ["bench", "--quick", "--filter", "^noop$", "--format", "json"], output: console.output)
        #expect(code == 0)
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        #expect(report.quick)
        #expect(report.benchmarks.map(\.name) == ["noop"])
        #expect(report.benchmarks.first?.iterations == 2)
        #expect(counter.bodies == 2)
        // One side of "noop vs sum" was filtered out: skipped with a note; "sum sides" is left out entirely.
        #expect(report.relations.map(\.name) == ["noop vs sum"])
        #expect(report.relations.first?.note?.contains("\"sum [raw]\" was filtered out") == true)
        #expect(report.targets.map(\.status) == [.skipped])
    }

    @Test func filterOnRelationRunsBothSides() throws {
        let console = CapturedConsole()
        _ = makeSuite().run(arguments: ["bench", "--filter", "sum sides", "--format", "json"], output: console.output)
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        #expect(report.benchmarks.map(\.name) == ["sum [strata]", "sum [raw]"])
        #expect(report.relations.first { $0.name == "sum sides" }?.ratios[.wallClock] != nil)
    }

    @Test func throwingBenchmarkContinuesAndExitsOne() {
        let suite = BenchmarkSuite(name: "Errors")
        let tornDown = Counter()
        suite.benchmark(
            "throws", configuration: tinyConfiguration, tearDown: { _ in tornDown.bodies += 1 },
            body: { context in
                if context.iteration == 1 { throw Boom() }
            })
        suite.benchmark("fine", configuration: tinyConfiguration) { _ in }
        suite.benchmark("bad setup", configuration: tinyConfiguration, setUp: { _ in throw Boom() }, body: { _ in })
        let console = CapturedConsole()
        let code = suite.run(arguments: ["bench"], output: console.output)
        #expect(code == 1)
        #expect(tornDown.bodies == 1)
        #expect(console.errorText.contains("throws: body threw in measured iteration 1: boom"))
        #expect(console.errorText.contains("bad setup: set-up threw: boom"))
        #expect(console.standardOutput.contains("== fine =="))
        #expect(console.standardOutput.contains("== Failures =="))
    }

    @Test func usageErrorsExitOne() {
        let console = CapturedConsole()
        #expect(makeSuite().run(arguments: ["bench", "--nope"], output: console.output) == 1)
        #expect(console.errorText.contains("unknown option --nope"))
        #expect(console.errorText.contains("USAGE: bench"))
        #expect(makeSuite().run(arguments: ["bench", "--filter", "zzz"], output: CapturedConsole().output) == 1)
    }

    @Test func listAndHelp() {
        let console = CapturedConsole()
        #expect(makeSuite().run(arguments: ["bench", "--list"], output: console.output) == 0)
        #expect(console.standardOutput.contains("benchmark  noop"))
        #expect(console.standardOutput.contains("pair       sum"))
        #expect(console.standardOutput.contains("sum [raw]"))
        #expect(console.standardOutput.contains("relation   sum sides"))
        let help = CapturedConsole()
        #expect(makeSuite().run(arguments: ["bench", "--help"], output: help.output) == 0)
        #expect(help.standardOutput.contains("baseline compare NAME"))
    }

    @Test func baselineUpdateThenCompare() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let update = CapturedConsole()
            #expect(makeSuite().run(arguments: ["bench", "baseline", "update", "main", "--baseline-dir", directory, "--filter", "noop"], output: update.output) == 0)
            #expect(FileManager.default.fileExists(atPath: directory + "/main.json"))

            let missing = CapturedConsole()
            #expect(makeSuite().run(arguments: ["bench", "baseline", "compare", "other", "--baseline-dir", directory], output: missing.output) == 1)
            #expect(missing.errorText.contains("no baseline named \"other\""))

            // Rewrite the stored baseline so that this run must be a regression, then an improvement.
            let store = BaselineStore(directory: directory)
            var stored = try store.load("main")
            stored.benchmarks = stored.benchmarks.map { results in
                var copy = results
                copy.statistics = [.mallocCountTotal: MetricStatistics(constant: -100)]
                return copy
            }
            try store.save(stored, as: "main")
            let compare = CapturedConsole()
            #expect(makeSuite().run(arguments: ["bench", "baseline", "compare", "main", "--baseline-dir", directory, "--filter", "noop"], output: compare.output) == 2)
            #expect(compare.standardOutput.contains("REGRESSION"))

            stored.benchmarks = stored.benchmarks.map { results in
                var copy = results
                copy.statistics = [.mallocCountTotal: MetricStatistics(constant: 1_000_000)]
                return copy
            }
            try store.save(stored, as: "main")
            #expect(makeSuite().run(arguments: ["bench", "baseline", "compare", "main", "--baseline-dir", directory, "--filter", "noop"], output: CapturedConsole().output) == 4)

            try "{oops".write(toFile: directory + "/main.json", atomically: true, encoding: .utf8)
            let corrupted = CapturedConsole()
            #expect(makeSuite().run(arguments: ["bench", "baseline", "compare", "main", "--baseline-dir", directory], output: corrupted.output) == 1)
            #expect(corrupted.errorText.contains("corrupted"))
        }
    }

    @Test func outputFileReceivesTheReport() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let path = directory + "/report.md"
            let console = CapturedConsole()
            #expect(makeSuite().run(arguments: ["bench", "--filter", "noop", "--format", "markdown", "--output", path], output: console.output) == 0)
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written == console.standardOutput)
        }
    }

    @Test func registrationErrorsExitOne() {
        let suite = BenchmarkSuite(name: "Dupes")
        suite.benchmark("a", configuration: tinyConfiguration) { _ in }
        suite.benchmark("a", configuration: tinyConfiguration) { _ in }
        suite.relation("r", numerator: "a", denominator: "missing", target: .ratioAtMost(2))
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench"], output: console.output) == 1)
        #expect(console.errorText.contains("already registered"))
        #expect(console.errorText.contains("unknown benchmark \"missing\""))
    }
}

/// A mutable counter shared with benchmark closures.
final class Counter {
    var bodies = 0
}
