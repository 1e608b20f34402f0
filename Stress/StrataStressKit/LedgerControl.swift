import StrataTestSupport

/// The negative control of the ledger check: when enabled, every tenth transfer credits the
/// target without debiting the source, creating money. A run with the control on must FAIL its
/// money-conservation checks — if it passes, the checks cannot see a broken transfer and a clean
/// run proves nothing. Off in every normal run; `StrataStress --negative-control` turns it on.
/// Thread-safe.
public final class LedgerControl: Sendable {
    /// Whether transfers are deliberately broken.
    public let enabled: Bool
    /// Transfers told to skip their debit (some may then have been rolled back by a conflict).
    public let brokenTransfers = AtomicCounter()
    private let ticks = AtomicCounter()

    /// Creates the control, on or off.
    public init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Whether the transfer being made should debit its source (false one time in ten when the
    /// control is on). Call once per transfer, just before applying it.
    public func shouldDebit() -> Bool {
        guard enabled, ticks.add() % 10 == 1 else { return true }
        brokenTransfers.add()
        return false
    }
}
