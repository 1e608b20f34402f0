import Foundation

/// Where the runner writes: the report to standard output, progress and errors to standard error.
struct ConsoleOutput {
    /// Receives report text.
    var standardOutput: (String) -> Void
    /// Receives progress, notes and errors (one line per call, without the newline).
    var standardError: (String) -> Void

    /// The process's real standard output and error.
    static var process: ConsoleOutput {
        ConsoleOutput(
            standardOutput: { text in try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) },
            standardError: { line in try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8)) }
        )
    }
}
