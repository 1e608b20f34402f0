import Foundation
import Strata
import StrataLocks

#if canImport(Glibc)
import Glibc
#endif

/// Measures what a ``StrataTrace`` recording costs the running workload: a thread turns the
/// recording on and off in alternate windows of equal length and counts the operations finished
/// and the process's CPU time in each. Alternating within one run, a few hundred milliseconds
/// apart, compares the two under the same machine load; runs with and without `STRATA_TRACE`
/// moved by ±15 % from one run to the next on the machine this was written for.
final class TraceOverheadSampler: Sendable {
    /// One window: whether it recorded, the operations finished in it, its wall-clock and CPU
    /// seconds.
    struct Window: Sendable {
        var recording: Bool
        var operations: Int
        var seconds: Double
        var cpuSeconds: Double
    }

    private let interval: TimeInterval
    private let file: URL
    private let operations: @Sendable () -> Int
    private let windows = StrataLock<[Window]>([])
    private let done = DispatchSemaphore(value: 0)

    /// A sampler switching every `interval` seconds, recording into `file` (replaced each time),
    /// counting `operations()`.
    init(interval: TimeInterval, file: URL, operations: @escaping @Sendable () -> Int) {
        self.interval = interval
        self.file = file
        self.operations = operations
    }

    /// Starts alternating (first window without a recording) until `deadline`.
    func start(until deadline: DispatchTime) {
        let thread = Thread { [self] in
            run(until: deadline)
            done.signal()
        }
        thread.start()
    }

    /// Waits for the sampler to end (it ends at the deadline) and returns its windows.
    func finish() -> [Window] {
        done.wait()
        return windows.withLock { $0 }
    }

    private func run(until deadline: DispatchTime) {
        var recording = false
        var start = DispatchTime.now()
        var startOperations = operations()
        var startCPU = Self.processCPUSeconds()
        while true {
            let end = min(start + interval, deadline)
            Thread.sleep(forTimeInterval: Double(end.uptimeNanoseconds &- DispatchTime.now().uptimeNanoseconds) / 1e9)
            let now = DispatchTime.now()
            let nowOperations = operations()
            let nowCPU = Self.processCPUSeconds()
            // The window ends when it is counted; switching the recording is the next one's cost.
            let window = Window(
                recording: recording, operations: nowOperations - startOperations, seconds: Double(now.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9,
                cpuSeconds: nowCPU - startCPU)
            windows.withLock { $0.append(window) }
            if now >= deadline { break }
            recording.toggle()
            do {
                if recording { try StrataTrace.start(writingTo: file) } else { try StrataTrace.stop() }
            } catch {
                break
            }
            start = now
            startOperations = nowOperations
            startCPU = nowCPU
        }
        _ = try? StrataTrace.stop()
    }

    /// CPU seconds used by the whole process so far.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// What the windows of a ``TraceOverheadSampler`` show.
struct TraceOverheadSummary: Sendable {
    /// Windows skipped at the start (the workload warming up).
    static let warmUpWindows = 2

    /// Windows counted with and without a recording.
    var recordedWindows = 0
    var plainWindows = 0
    /// Operations a second, and CPU microseconds an operation, over the counted windows.
    var recordedRate = 0.0
    var plainRate = 0.0
    var recordedCPUPerOperation = 0.0
    var plainCPUPerOperation = 0.0
    /// The median, over recorded windows, of the window's rate against the mean of the two
    /// plain windows around it, minus one (a drift in the machine's speed cancels out).
    var medianRateChange = 0.0

    init(_ all: [TraceOverheadSampler.Window]) {
        let windows = Array(all.dropFirst(Self.warmUpWindows).dropLast())  // the last may be short
        func totals(_ recording: Bool) -> (count: Int, rate: Double, cpu: Double) {
            let chosen = windows.filter { $0.recording == recording }
            let operations = chosen.reduce(0) { $0 + $1.operations }
            let seconds = chosen.reduce(0) { $0 + $1.seconds }
            let cpu = chosen.reduce(0) { $0 + $1.cpuSeconds }
            return (chosen.count, seconds > 0 ? Double(operations) / seconds : 0, operations > 0 ? cpu * 1e6 / Double(operations) : 0)
        }
        (recordedWindows, recordedRate, recordedCPUPerOperation) = totals(true)
        (plainWindows, plainRate, plainCPUPerOperation) = totals(false)
        let rate = { (window: TraceOverheadSampler.Window) in Double(window.operations) / max(window.seconds, 1e-9) }
        var changes: [Double] = []
        for index in windows.indices.dropFirst().dropLast() where windows[index].recording {
            let around = (rate(windows[index - 1]) + rate(windows[index + 1])) / 2
            if around > 0 { changes.append(rate(windows[index]) / around - 1) }
        }
        changes.sort()
        if !changes.isEmpty {
            medianRateChange = changes.count % 2 == 1 ? changes[changes.count / 2] : (changes[changes.count / 2 - 1] + changes[changes.count / 2]) / 2
        }
    }

    /// The report's figure line.
    var figure: String {
        String(
            format: "trace overhead: %.0f ops/s recording against %.0f without (%+.1f %%; median of each recorded window against the windows around it %+.1f %%), "
                + "CPU %.1f µs an operation against %.1f (%+.1f %%), %d windows each",
            recordedRate, plainRate, (recordedRate / max(plainRate, 1e-9) - 1) * 100, medianRateChange * 100, recordedCPUPerOperation, plainCPUPerOperation,
            (recordedCPUPerOperation / max(plainCPUPerOperation, 1e-9) - 1) * 100, min(recordedWindows, plainWindows))
    }
}
