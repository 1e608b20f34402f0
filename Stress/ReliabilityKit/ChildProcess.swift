import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard output on a pipe the parent
/// drains, its standard error in a file. Used from one thread.
public final class ChildProcess {
    /// How a child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exit \(code)"
            case .signaled(let signal): return "signal \(signal)"
            }
        }
    }

    /// The child's process ID.
    public let pid: pid_t
    /// Where the child's standard error goes.
    public let stderrPath: String
    private let outputFD: Int32
    private var output = [UInt8]()
    private var termination: Termination?

    /// Starts `executable` with `arguments`. Standard error goes to `stderrPath`.
    public init(executable: String, arguments: [String], stderrPath: String) throws {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw HarnessError("pipe() failed: errno \(errno)") }
        let readEnd = pipeFDs[0]
        let writeEnd = pipeFDs[1]
        let errorFD = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard errorFD >= 0 else {
            close(readEnd)
            close(writeEnd)
            throw HarnessError("cannot create \(stderrPath): errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, errorFD, 2)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(writeEnd)
        close(errorFD)
        guard rc == 0 else {
            close(readEnd)
            throw HarnessError("posix_spawn \(executable) failed: \(rc)")
        }
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        pid = child
        outputFD = readEnd
        self.stderrPath = stderrPath
    }

    deinit {
        if termination == nil {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
        close(outputFD)
    }

    /// Reads whatever the child wrote to standard output so far.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            output.append(contentsOf: buffer[0..<count])
        }
    }

    /// Everything read from standard output so far, as lines.
    public var outputLines: [String] {
        String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Sends `signal` to the child (no effect once it was reaped).
    public func send(_ signal: Int32) {
        if termination == nil { kill(pid, signal) }
    }

    private func reap(blocking: Bool) -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == -1 && errno == EINTR { continue }
            if result != pid { return nil }
            break
        }
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        return termination
    }

    /// Waits until the child ends, draining its output meanwhile; after `timeout` seconds it is
    /// killed (SIGKILL) and nil is returned.
    public func wait(timeout: TimeInterval) -> Termination? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            drain()
            if let ended = reap(blocking: false) {
                drain()
                return ended
            }
            usleep(2_000)
        }
        kill(pid, SIGKILL)
        _ = reap(blocking: true)
        drain()
        return nil
    }

    /// Drains output and returns how the child ended, or nil while it runs (never waits).
    public func ended() -> Termination? {
        drain()
        guard let ended = reap(blocking: false) else { return nil }
        drain()
        return ended
    }

    /// How many bytes the child wrote to standard output so far (drained ones).
    public var outputByteCount: Int { output.count }

    /// Sleeps up to `seconds`, draining output; returns early (true) if the child ended.
    public func sleep(_ seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            drain()
            if reap(blocking: false) != nil { return true }
            let left = deadline.timeIntervalSinceNow
            usleep(UInt32(max(200, min(2_000, left * 1_000_000))))
        }
        return false
    }

    /// SIGKILLs the child and reaps it; returns how it ended (it may have ended before).
    @discardableResult
    public func killAndReap() -> Termination {
        if termination == nil { kill(pid, SIGKILL) }
        let ended = reap(blocking: true) ?? .signaled(SIGKILL)
        drain()
        return ended
    }

    /// The child's standard error so far (at most the last 4 KB).
    public var errorOutput: String {
        guard let data = FileManager.default.contents(atPath: stderrPath) else { return "" }
        return String(decoding: data.suffix(4_096), as: UTF8.self)
    }
}

/// Where the harness finds its own executable, to start children.
public enum HarnessExecutable {
    /// The running executable (`/proc/self/exe`).
    public static var current: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `StrataReliability` next to the running executable (the test runner's case), if built.
    public static func sibling(named name: String = "StrataReliability") -> String? {
        var directory = URL(fileURLWithPath: current).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
