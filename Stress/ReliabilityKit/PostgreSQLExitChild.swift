import Foundation
import StrataPostgreSQL
import StrataTestSupport

/// A process that exits while other threads of it are connecting to PostgreSQL: what a backend
/// does when it shuts down while a store's change listener reconnects after a server restart,
/// or while a private queue's fetch opens a connection.
///
/// It opens one connection (so the server is known to be there), starts `--threads` threads that
/// open and close connections until the process ends (each opening authenticates with SCRAM,
/// through OpenSSL's HMAC), waits `--after-ms` milliseconds, and returns 0 for `exit(0)`. A
/// process whose exit handlers free OpenSSL's state under those threads ends with a signal
/// instead (see `PostgreSQLConnection+Connect.swift` in Sources/StrataPostgreSQL).
///
/// `pg-exit-child --url URL [--threads N] [--after-ms M]`; exit code 3 when the server cannot
/// be reached, 2 for bad arguments.
public enum PostgreSQLExitChild {
    /// Runs the child; returns its exit code.
    public static func run(_ arguments: Arguments) -> Int32 {
        guard let url = arguments.string("url") else {
            FileHandle.standardError.write(Data("pg-exit-child: --url is required\n".utf8))
            return 2
        }
        do {
            _ = try PostgreSQLConnection(url: url)
        } catch {
            FileHandle.standardError.write(Data("pg-exit-child: cannot connect: \(error)\n".utf8))
            return 3
        }
        for index in 0..<max(1, arguments.int("threads", 2)) {
            let thread = Thread {
                while true { _ = try? PostgreSQLConnection(url: url) }
            }
            thread.name = "pg-exit-child \(index)"
            thread.start()
        }
        usleep(UInt32(max(0, arguments.int("after-ms", 100))) * 1_000)
        return 0
    }
}

extension PostgreSQLExitChild {
    /// What a series of exiting children did.
    public struct Series: Sendable {
        /// Children that exited while their threads were connecting (exit code 0).
        public var cleanExits = 0
        /// One line per child that ended otherwise: a signal, a non-zero code, or no end within 30 s.
        public var failures: [String] = []
    }

    /// Starts `count` children one after another, each exiting after 40 ms plus a seeded share
    /// of 200 ms (so the exit meets the connecting threads at different points of a
    /// connection's set-up), and reports how each ended. Standard error goes to `directory`.
    public static func series(executable: String, url: String, count: Int, seed: UInt64, directory: URL) -> Series {
        var series = Series()
        var random = SeededRandom(seed: seed &* 31 &+ 7)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for index in 0..<count {
            let errorPath = directory.appendingPathComponent("exit-child-\(index).stderr").path
            let after = 40 + random.below(200)
            do {
                let child = try ChildProcess(
                    executable: executable, arguments: ["pg-exit-child", "--url", url, "--threads", "2", "--after-ms", String(after)], stderrPath: errorPath)
                let ended = child.wait(timeout: 30)
                if ended == .exited(0) {
                    series.cleanExits += 1
                } else {
                    let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
                    series.failures.append("exit child \(index) (after \(after) ms) ended \(ended.map(String.init(describing:)) ?? "late"): \(text.suffix(300))")
                }
            } catch {
                series.failures.append("cannot start exit child \(index): \(error)")
            }
        }
        return series
    }
}
