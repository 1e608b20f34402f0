import Foundation
import StrataProgress

/// A line of the harness's report: a name, a number, and whether the number must be zero or
/// reach a minimum (a liveness figure: a part that did no work proves nothing, so it fails).
public struct Figure: Sendable, CustomStringConvertible {
    /// What is counted.
    public var name: String
    /// The count.
    public var value: Int
    /// The count must be zero for the run to pass.
    public var mustBeZero: Bool
    /// The least the count must reach for the run to pass (nil: no minimum).
    public var minimum: Int?

    /// Creates a figure.
    public init(_ name: String, _ value: Int, mustBeZero: Bool = false, atLeast minimum: Int? = nil) {
        self.name = name
        self.value = value
        self.mustBeZero = mustBeZero
        self.minimum = minimum
    }

    /// Whether this figure passes.
    public var passes: Bool { (!mustBeZero || value == 0) && value >= (minimum ?? Int.min) }

    public var description: String {
        let padded = name.padding(toLength: 52, withPad: " ", startingAt: 0)
        var line = "  \(padded) \(String(value).leftPadded(to: 9))"
        if mustBeZero { line += value == 0 ? "   (must be 0: ok)" : "   (must be 0: FAIL)" }
        if let minimum { line += value >= minimum ? "   (at least \(minimum): ok)" : "   (at least \(minimum): FAIL, too little work)" }
        return line
    }
}

/// The outcome of one part of the harness.
public struct PartReport: Sendable {
    /// The part's name ("crash loop", "fault injection"…).
    public var name: String
    /// Its figures.
    public var figures: [Figure]
    /// Why the part did not run, if it did not (a visible SKIP, not a failure).
    public var skipped: String?
    /// Details of failures (first few), for the log.
    public var details: [String]
    /// Observations worth printing that are not failures.
    public var notes: [String] = []
    /// How long it took.
    public var seconds: Double

    /// Creates a report.
    public init(name: String, figures: [Figure] = [], skipped: String? = nil, details: [String] = [], seconds: Double = 0) {
        self.name = name
        self.figures = figures
        self.skipped = skipped
        self.details = details
        self.seconds = seconds
    }

    /// Whether every must-be-zero figure is zero (a skipped part passes).
    public var passes: Bool { figures.allSatisfy(\.passes) }

    /// The report as printed lines.
    public var lines: [String] {
        if let skipped { return ["SKIP \(name): \(skipped)"] }
        var result = ["\(passes ? "PASS" : "FAIL") \(name) (\(String(format: "%.1f", seconds)) s)"]
        result += figures.map(\.description)
        result += notes.map { "    · " + $0 }
        result += details.prefix(ProcessInfo.processInfo.environment["STRATA_RELIABILITY_DETAILS"].flatMap { Int($0) } ?? 12).map { "    ! " + $0 }
        return result
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: " ", count: length - count) + self
    }
}

/// Collects details of failures, keeping the first few.
public struct DetailLog: Sendable {
    /// The kept details.
    public private(set) var items: [String] = []
    /// How many were reported in all.
    public private(set) var total = 0
    private let limit: Int

    /// Creates a log keeping `limit` items.
    public init(limit: Int = ProcessInfo.processInfo.environment["STRATA_RELIABILITY_DETAILS"].flatMap { Int($0) } ?? 20) { self.limit = limit }

    /// Records one detail.
    public mutating func add(_ text: String) {
        total += 1
        if items.count < limit { items.append(text) }
    }
}

/// Unbuffered writes to file descriptor 1, for lines a parent process waits for.
public enum StandardOutput {
    /// Writes `text` and a newline with `write(2)`, no buffering.
    public static func writeLine(_ text: String) {
        let line = Array((text + "\n").utf8)
        var offset = 0
        while offset < line.count {
            let written = line[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Progress lines on standard error (the report itself goes to standard output); on a
/// terminal they go around the status line (Sources/StrataProgress/ProgressConsole.swift).
public enum Progress {
    /// Prints a progress line on standard error.
    public static func note(_ text: String) {
        ProgressConsole.printLine(text, to: .standardError)
    }
}
