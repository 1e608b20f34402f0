import Foundation
import StrataProgress

/// Where the runner writes: the report to standard output, progress and errors to standard error.
struct ConsoleOutput {
    /// Receives report text.
    var standardOutput: (String) -> Void
    /// Receives progress, notes and errors (one line per call, without the newline).
    var standardError: (String) -> Void

    /// The process's real standard output and error; on a terminal, both go around the
    /// progress line (see Sources/StrataProgress/ProgressConsole.swift).
    static var process: ConsoleOutput {
        ConsoleOutput(
            standardOutput: { text in
                ProgressConsole.clearStatus()
                try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
            },
            standardError: { line in ProgressConsole.printLine(line, to: .standardError) }
        )
    }
}
