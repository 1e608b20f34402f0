import Foundation
import ReliabilityKit
import StrataTestSupport
import Testing

/// The harness executable, built next to the test runner by `swift build --build-tests`.
let harnessExecutable = HarnessExecutable.sibling()

@Suite("Crash loop, negative controls and several processes (child processes)", .enabled(if: harnessExecutable != nil, "StrataReliability is not built next to the test runner"))
struct CrashAndProcessTests {
    @Test("Killing a writer (timer and exact I/O points) never corrupts a store nor loses an acknowledged save, in both journal modes")
    func crashLoop() throws {
        let executable = try #require(harnessExecutable)
        let directory = TemporaryDirectory(prefix: "strata-crash")
        var configuration = CrashLoop.Configuration(executable: executable, directory: directory.url, kills: 12, seed: 21)
        configuration.killsPerStore = 6
        configuration.maximumDelay = 0.8  // leave a loaded machine time to start the child and save
        let report = CrashLoop(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect(report.figures.first { $0.name == "kills" }?.value == 12)
        #expect((report.figures.first { $0.name == "acknowledged saves" }?.value ?? 0) > 0)
    }

    /// Strata's guarantee for external binary data (docs/models-and-migration.md, "External
    /// binary storage"; Core Data documents none and lost files in migrations, see the issue):
    /// a file is durable before the transaction that refers to it commits and removed only
    /// after the one that drops it, so a kill anywhere leaves orphans only, collected on reopen.
    @Test("Killing a process saving external binary data leaves every reference with its file (right SHA-256) and no orphan after reopening")
    func externalBlobCrashLoop() throws {
        let executable = try #require(harnessExecutable)
        let directory = TemporaryDirectory(prefix: "strata-external")
        var configuration = ExternalBlobCrash.Configuration(executable: executable, directory: directory.url, kills: 10, seed: 24)
        configuration.maximumDelay = 0.8
        let report = ExternalBlobCrash(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect(report.figures.first { $0.name == "kills" }?.value == 10)
        #expect((report.figures.first { $0.name == "acknowledged saves" }?.value ?? 0) > 0)
        #expect((report.figures.first { $0.name == "files checked" }?.value ?? 0) > 0)
    }

    @Test("The checker sees a deleted hot journal and a WAL store copied without its -wal file")
    func negativeControls() throws {
        let executable = try #require(harnessExecutable)
        let directory = TemporaryDirectory(prefix: "strata-controls")
        let report = NegativeControls(executable: executable, directory: directory.url, seed: 22).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect((report.figures.first { $0.name.hasPrefix("hot journals deleted") }?.value ?? 0) > 0)
        #expect(report.figures.first { $0.name.hasPrefix("WAL stores copied") }?.value == 1)
    }

    @Test("Four processes incrementing counters lose no update; busy only surfaces as 134090 after the timeout")
    func severalProcesses() throws {
        let executable = try #require(harnessExecutable)
        let directory = TemporaryDirectory(prefix: "strata-processes")
        var configuration = MultiProcess.Configuration(executable: executable, directory: directory.url, seed: 23)
        configuration.seconds = 1
        let report = MultiProcess(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect((report.figures.first { $0.name == "increments acknowledged" }?.value ?? 0) > 0)
    }
}
