import Foundation

@testable import BenchmarkHarness

/// Builders for synthetic results and a captured console.
enum Fixtures {
    static let environment = BenchmarkEnvironment(
        jemallocStatistics: "active", jemallocThreadCache: true,
        peakResidentReset: "per measurement", hostName: "test-host", processorCount: 2
    )

    /// Results whose every percentile of each metric equals the given value.
    static func results(_ name: String, _ values: [BenchmarkMetric: Double], pairSide: PairSide? = nil) -> BenchmarkResults {
        BenchmarkResults(
            name: name,
            pairSide: pairSide,
            iterations: 5,
            warmupIterations: 1,
            statistics: values.mapValues { MetricStatistics(constant: $0, count: 5) }
        )
    }

    static func report(_ benchmarks: [BenchmarkResults], quick: Bool = false) -> BenchmarkRunReport {
        BenchmarkRunReport(
            suite: "Fixture",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            quick: quick,
            environment: environment,
            benchmarks: benchmarks
        )
    }

    /// Runs `body` with the path of a fresh empty directory under the temporary directory, and
    /// removes the directory and everything in it when `body` returns or throws.
    static func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("harness-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }
}

/// Collects what a suite run writes.
final class CapturedConsole {
    var standardOutput = ""
    var standardError: [String] = []

    var output: ConsoleOutput {
        ConsoleOutput(
            standardOutput: { [self] text in standardOutput += text },
            standardError: { [self] line in standardError.append(line) }
        )
    }

    var errorText: String { standardError.joined(separator: "\n") }
}

/// A configuration that keeps real benchmark loops to a few iterations.
let tinyConfiguration = BenchmarkConfiguration(
    warmupIterations: 0, minIterations: 1, maxIterations: 3, maxDuration: .milliseconds(200),
    quickMaxIterations: 2, quickWarmupIterations: 0
)
