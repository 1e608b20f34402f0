import StrataLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one status line of a process on a terminal, and the whole lines printed around it.
///
/// On a terminal (standard error is a TTY), ``showStatus(_:)`` rewrites a single line in place
/// with `\r`; ``printLine(_:to:)`` clears that line first, prints, and redraws it, so reports and
/// notes never run into the status. Off a terminal (CI logs, pipes, files) there is no status
/// line: only whole lines are printed, exactly as given.
public enum ProgressConsole {
    /// Where a whole line goes.
    public enum Stream: Sendable {
        /// Standard output (reports).
        case standardOutput
        /// Standard error (progress and notes).
        case standardError

        var descriptor: Int32 { self == .standardOutput ? STDOUT_FILENO : STDERR_FILENO }
    }

    /// Whether standard error is a terminal. `STRATA_PROGRESS=lines` forces plain lines and
    /// `STRATA_PROGRESS=terminal` forces the status line.
    public static let isTerminal: Bool = {
        switch getenv("STRATA_PROGRESS").map({ String(cString: $0) }) {
        case "lines": false
        case "terminal": true
        default: isatty(STDERR_FILENO) != 0
        }
    }()

    private static let state = StrataLock<String>("")

    /// Prints `line` (a newline is added) on `stream`, around the status line if one is shown.
    public static func printLine(_ line: String, to stream: Stream = .standardError) {
        state.withLock { status in
            if isTerminal, !status.isEmpty { write(STDERR_FILENO, "\r\u{1B}[K") }
            write(stream.descriptor, line + "\n")
            if isTerminal, !status.isEmpty { write(STDERR_FILENO, status) }
        }
    }

    /// Shows `text` as the status line (terminal only; does nothing otherwise).
    public static func showStatus(_ text: String) {
        guard isTerminal else { return }
        state.withLock { status in
            status = text
            write(STDERR_FILENO, "\r\u{1B}[K" + text)
        }
    }

    /// Removes the status line (terminal only).
    public static func clearStatus() {
        guard isTerminal else { return }
        state.withLock { status in
            if !status.isEmpty { write(STDERR_FILENO, "\r\u{1B}[K") }
            status = ""
        }
    }

    /// Writes all of `text` to `descriptor`, retrying short writes; gives up on an error.
    private static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written <= 0 { return }
            offset += written
        }
    }
}
