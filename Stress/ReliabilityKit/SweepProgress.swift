import Foundation
import StrataProgress

/// The progress line of an I/O-fault sweep (``FaultSweep``, ``BatchFaultSweep``,
/// ``MigrationFaultSweep``): runs made, fault points swept, which sequence runs now and with
/// which K, the time left. Used on the sweep's own thread.
struct SweepProgress {
    let meter: ProgressMeter
    /// The sweep's name on the line ("fault sweep", "batch fault sweep" …).
    let label: String
    /// How many K sequences the sweep runs in all.
    let sequenceCount: Int
    let started: Date
    let deadline: Date?

    /// The `beforeRun` of ``FaultPointSequence/run(maximumK:deadline:beforeRun:_:)`` for the
    /// `index`-th sequence, started after `runs` runs and `faultPoints` fault points; `name(k)`
    /// says what the run with K = k does.
    func beforeRun(sequence index: Int, runs: Int, faultPoints: Int, name: @escaping (Int) -> String) -> (Int, FaultPointSequence) -> Void {
        { k, sofar in
            meter.update(
                ProgressStatus(
                    label: label, done: runs + sofar.runs, unit: "runs", checks: faultPoints + sofar.faultPoints,
                    detail: "sequence \(index)/\(sequenceCount): \(name(k))",
                    elapsed: Date().timeIntervalSince(started), secondsLeft: deadline.map { $0.timeIntervalSinceNow }))
        }
    }
}
