import Foundation

/// The K loop every I/O-fault sweep runs for one fault and mode (``FaultSweep``,
/// ``BatchFaultSweep``, ``MigrationFaultSweep``): K = 0, 1, 2… — `run(k)` arms the fault at
/// the Kth operation, runs once and says whether the fault fired — until a run where it did not
/// fire (the sequence is swept to its end), K passes `maximumK`, or `deadline` has passed
/// before a run.
struct FaultPointSequence {
    /// How a sequence ended.
    enum End: Equatable {
        /// A run where the fault did not fire: every fault point was swept.
        case swept
        /// The fault still fired at `lastK`, the bound.
        case kBound(lastK: Int)
        /// The deadline passed before the next run.
        case deadline
    }

    /// Runs made.
    var runs = 0
    /// Runs where the fault fired.
    var faultPoints = 0
    /// How the sequence ended.
    var end = End.swept

    /// Runs the sequence. `beforeRun(k, sequence)` is called before each run (progress display)
    /// with the counts so far.
    static func run(
        maximumK: Int, deadline: Date?, beforeRun: (Int, FaultPointSequence) -> Void = { _, _ in }, _ run: (Int) -> Bool
    ) -> FaultPointSequence {
        var sequence = FaultPointSequence()
        var k = 0
        while true {
            beforeRun(k, sequence)
            if let deadline, Date() > deadline {
                sequence.end = .deadline
                return sequence
            }
            let fired = run(k)
            sequence.runs += 1
            guard fired else { return sequence }
            sequence.faultPoints += 1
            if k >= maximumK {
                sequence.end = .kBound(lastK: k)
                return sequence
            }
            k += 1
        }
    }
}
