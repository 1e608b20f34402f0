import Foundation
import StrataProgress
import Synchronization

/// The large mode's progress while its workers run: operations done and per second and the
/// seconds left, from a thread of its own (the workers only bump ``StressCounters/operations``).
/// A status line on a terminal; off one, a plain line through `log` every 10 s.
final class LargeProgress: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Starts reporting until ``stop()``.
    init(counters: StressCounters, seconds: Double, log: @escaping @Sendable (String) -> Void) {
        let meter = ProgressMeter(lineInterval: 10, printLine: log)
        let start = DispatchTime.now()
        let thread = Thread { [self] in
            while !self.stopped.load(ordering: .relaxed) {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
                meter.update(ProgressStatus(label: "  stress --large", done: counters.operations.current, unit: "ops", elapsed: elapsed, secondsLeft: seconds - elapsed))
                Thread.sleep(forTimeInterval: 0.25)
            }
            meter.finish()
            self.done.signal()
        }
        thread.start()
    }

    /// Stops reporting and removes the status line.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        _ = done.wait(timeout: .now() + 5)
    }
}
