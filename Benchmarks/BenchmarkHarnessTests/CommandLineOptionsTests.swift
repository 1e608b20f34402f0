import Testing

@testable import BenchmarkHarness

@Suite("Command line")
struct CommandLineOptionsTests {
    @Test func defaults() throws {
        let options = try CommandLineOptions.parse([])
        #expect(options == CommandLineOptions())
        #expect(options.command == .run)
        #expect(options.format == .text)
        #expect(options.baselineDirectory == ".bench/baselines")
        #expect(!options.quick && !options.failOnMissedTargets)
    }

    @Test func allFlags() throws {
        let options = try CommandLineOptions.parse([
            "--filter", "insert", "--filter=fetch.*", "--quick", "--format", "markdown",
            "--output", "out.md", "--baseline-dir", "/tmp/b", "--fail-on-missed-targets",
        ])
        #expect(options.filters == ["insert", "fetch.*"])
        #expect(options.quick)
        #expect(options.format == .markdown)
        #expect(options.outputPath == "out.md")
        #expect(options.baselineDirectory == "/tmp/b")
        #expect(options.failOnMissedTargets)
    }

    @Test func baselineCommands() throws {
        #expect(try CommandLineOptions.parse(["baseline", "update", "main"]).command == .baselineUpdate("main"))
        #expect(try CommandLineOptions.parse(["--quick", "baseline", "compare", "v1.2", "--format=json"]).command == .baselineCompare("v1.2"))
        #expect(try CommandLineOptions.parse(["--list"]).command == .list)
        #expect(try CommandLineOptions.parse(["--quick", "-h"]).command == .help)
    }

    @Test(arguments: [
        ["--bogus"],
        ["--filter"],
        ["--filter", "("],
        ["--format", "yaml"],
        ["--quick=yes"],
        ["baseline"],
        ["baseline", "update"],
        ["baseline", "remove", "x"],
        ["baseline", "update", "../escape"],
        ["baseline", "update", "a", "extra"],
        ["stray"],
        ["--list", "baseline", "update", "x"],
        ["--output", ""],
    ])
    func rejectsBadInput(_ arguments: [String]) {
        #expect(throws: CommandLineError.self) {
            try CommandLineOptions.parse(arguments)
        }
    }

    @Test func filterValueMayStartWithDash() throws {
        #expect(try CommandLineOptions.parse(["--filter", "-x"]).filters == ["-x"])
    }

    @Test func filterMatchesPartially() throws {
        let filter = try BenchmarkFilter(patterns: ["^fetch", "limit$"])
        #expect(filter.matches("fetch all"))
        #expect(filter.matches("fetch with limit"))
        #expect(filter.matches("big limit"))
        #expect(!filter.matches("insert"))
        #expect(try BenchmarkFilter(patterns: []).matches("anything"))
    }
}
