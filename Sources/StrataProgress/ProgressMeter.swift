import Foundation
import StrataLocks

/// What a long run has done so far, as one line: work done and its rate, invariants checked,
/// and what remains.
public struct ProgressStatus: Sendable, Equatable {
    /// What runs, e.g. `stress` or `crash loop`.
    public var label: String
    /// Units of work done.
    public var done: Int
    /// Units of work in all, if known.
    public var total: Int?
    /// The unit's name in the plural, e.g. `ops` or `kills`.
    public var unit: String
    /// Invariant checks that ran, if the run checks any.
    public var checks: Int?
    /// Anything else worth a glance (the current item, other counters).
    public var detail: String
    /// Seconds since the run started.
    public var elapsed: Double
    /// Seconds left when the run is bounded by time; nil otherwise.
    public var secondsLeft: Double?

    /// Creates a status.
    public init(
        label: String, done: Int, total: Int? = nil, unit: String, checks: Int? = nil, detail: String = "", elapsed: Double,
        secondsLeft: Double? = nil
    ) {
        self.label = label
        self.done = done
        self.total = total
        self.unit = unit
        self.checks = checks
        self.detail = detail
        self.elapsed = elapsed
        self.secondsLeft = secondsLeft
    }

    /// The line, e.g. `stress t=12s: 48210 ops (4018/s), 310 invariant checks, 48 s left; 1200 transfers`.
    public var text: String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "\(label) t=\(Int(elapsed.rounded()))s: "
        if let total {
            line += "\(done)/\(total) \(unit)"
        } else {
            line += "\(done) \(unit)"
        }
        line += " (" + Self.rate(rate) + "/s)"
        if let checks { line += ", \(checks) invariant checks" }
        if let remaining = remainingSeconds(rate: rate) { line += ", " + Self.duration(remaining) + " left" }
        if !detail.isEmpty { line += "; " + detail }
        return line
    }

    /// Seconds left: the time bound if there is one, else the estimate from the rate and the total.
    func remainingSeconds(rate: Double) -> Double? {
        if let secondsLeft { return max(secondsLeft, 0) }
        guard let total, rate > 0, done > 0 else { return nil }
        return Double(max(total - done, 0)) / rate
    }

    static func rate(_ value: Double) -> String {
        value >= 10 || value == 0 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole / 60 % 60) min"
    }
}

/// Shows the progress of a long run: on a terminal a status line rewritten at most every
/// `refreshInterval` (see ``ProgressConsole``); otherwise a plain line every `lineInterval`
/// (nil: none, when the run already prints its own lines). Call ``update(_:)`` as often as
/// convenient; it decides when to print. Safe to call from any thread.
public final class ProgressMeter: Sendable {
    private let terminal: Bool
    private let lineInterval: Double?
    private let refreshInterval: Double
    private let printLine: @Sendable (String) -> Void
    private let lastPrinted = StrataLock<(line: Double, status: Double)>((-.infinity, -.infinity))

    /// Creates a meter. `printLine` receives the plain lines (standard error by default).
    public init(
        lineInterval: Double? = 10, refreshInterval: Double = 0.25, terminal: Bool = ProgressConsole.isTerminal,
        printLine: @escaping @Sendable (String) -> Void = { ProgressConsole.printLine($0) }
    ) {
        self.terminal = terminal
        self.lineInterval = lineInterval
        self.refreshInterval = refreshInterval
        self.printLine = printLine
    }

    /// Whether the meter draws a status line (rather than plain lines).
    public var isTerminal: Bool { terminal }

    /// Reports `status`; prints it if its interval has passed since the last print. Returns
    /// whether it printed.
    @discardableResult
    public func update(_ status: ProgressStatus) -> Bool {
        if terminal {
            let due = lastPrinted.withLock { last in
                guard status.elapsed - last.status >= refreshInterval else { return false }
                last.status = status.elapsed
                return true
            }
            if due { ProgressConsole.showStatus(status.text) }
            return due
        }
        guard let lineInterval else { return false }
        let due = lastPrinted.withLock { last in
            // The first line waits one interval, so short runs stay quiet.
            if last.line == -.infinity { last.line = 0 }
            guard status.elapsed - last.line >= lineInterval else { return false }
            last.line = status.elapsed
            return true
        }
        if due { printLine(status.text) }
        return due
    }

    /// Ends the run's progress: removes the status line on a terminal.
    public func finish() {
        if terminal { ProgressConsole.clearStatus() }
    }
}
