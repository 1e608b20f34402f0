import Foundation
import ReliabilityKit
import StrataTestSupport
import Testing

/// The "postgresql processes" part, short: child processes on the test server
/// (STRATA_TEST_POSTGRESQL_URL; skipped with STRATA_SKIP_POSTGRESQL=1, failing with the how-to
/// without a server). The server restart runs on a server of the test's own: restarting the
/// shared one would end the sessions of the PostgreSQL tests running beside it.
@Suite(
    "PostgreSQL processes (child processes on one database)",
    .enabled(if: harnessExecutable != nil, "StrataReliability is not built next to the test runner"),
    .enabled(if: !PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1")
)
struct PostgreSQLProcessTests {
    @Test("Two processes transfer on one namespace, merge each other's changes within 2 s, and survive being killed mid-save")
    func bankAndKills() throws {
        let executable = try #require(harnessExecutable)
        let database = try PostgreSQLTestDatabase()
        let directory = TemporaryDirectory(prefix: "strata-pg-processes")
        var configuration = PostgreSQLProcesses.Configuration(executable: executable, url: database.url.absoluteString, directory: directory.url, seed: 31)
        configuration.processes = 2
        configuration.accounts = 4
        configuration.bankSeconds = 1.5
        configuration.kills = 4
        configuration.restarts = 0
        configuration.exits = 0
        let report = PostgreSQLProcesses(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect((report.figures.first { $0.name == "transfers acknowledged" }?.value ?? 0) > 0)
        #expect(report.figures.first { $0.name == "kills" }?.value == 4)
        #expect(report.figures.first { $0.name == "checks of the stored accounts" }?.value == 2)
    }

    @Test("Children see errors, not a hang, while the server restarts, and go on once it is back")
    func serverRestart() throws {
        let executable = try #require(harnessExecutable)
        _ = try PostgreSQLTestDatabase.serverURL()  // the how-to message when no server is configured
        let script = try #require(PostgreSQLProcesses.serverRestartCommand(executable: executable)?.first, "scripts/postgres-test-server.sh not found")
        let directory = TemporaryDirectory(prefix: "strata-pg-restart")
        // A server of the test's own, recorded in a state file of its own.
        let state = ["/usr/bin/env", "STRATA_POSTGRESQL_STATE_FILE=\(directory.url.appendingPathComponent("server.env").path)", script]
        let starter = try ChildProcess(executable: state[0], arguments: Array(state.dropFirst()) + ["start"], stderrPath: directory.url.appendingPathComponent("start.stderr").path)
        let started = starter.wait(timeout: 120)
        defer {
            let stopper = try? ChildProcess(executable: state[0], arguments: Array(state.dropFirst()) + ["stop"], stderrPath: directory.url.appendingPathComponent("stop.stderr").path)
            _ = stopper?.wait(timeout: 60)
        }
        let url = try #require(starter.outputLines.last { $0.hasPrefix("postgresql://") }, "the test server did not start (\(String(describing: started))): \(starter.errorOutput)")
        var configuration = PostgreSQLProcesses.Configuration(executable: executable, url: url, directory: directory.url, seed: 32)
        configuration.processes = 2
        configuration.accounts = 4
        configuration.bankSeconds = 1
        configuration.kills = 0
        configuration.restarts = 1
        configuration.downSeconds = 0.5
        configuration.exits = 0
        configuration.restartCommand = Array(state) + ["restart"]
        let report = PostgreSQLProcesses(configuration).run()
        #expect(report.passes, "\(report.lines.joined(separator: "\n"))")
        #expect(report.figures.first { $0.name == "server restarts" }?.value == 1)
        #expect((report.figures.first { $0.name == "errors thrown while the server restarted" }?.value ?? 0) > 0)
    }

    /// A process may end with `exit()` while other threads of it are inside libpq: the C
    /// library then runs OpenSSL's exit handler and the libraries' finalizers (Kerberos' among
    /// them) under those threads. Before Strata kept its connection set-up out of their way
    /// (`PostgreSQLExitGate`, OpenSSL started without its exit handler), about one child in
    /// four of this series ended with a segmentation fault in OpenSSL or an assertion in
    /// Kerberos' `k5_mutex_lock`.
    @Test("A process exits with code 0 while two of its threads are opening connections")
    func exitWhileConnecting() throws {
        let executable = try #require(harnessExecutable)
        let url = try PostgreSQLTestDatabase.serverURL()
        let directory = TemporaryDirectory(prefix: "strata-pg-exits")
        let series = PostgreSQLExitChild.series(executable: executable, url: url, count: 25, seed: 33, directory: directory.url)
        #expect(series.failures.isEmpty, "\(series.failures.joined(separator: "\n"))")
        #expect(series.cleanExits == 25)
    }
}
