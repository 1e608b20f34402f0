import Foundation
import StrataLocks
import Synchronization

/// A Chrome trace-event recording of what the contexts did: one track per context queue, a span
/// for each `perform` / `performAndWait` block, save, fetch (with its SQL and row count), fault
/// firing, merge, batch request and migration step, and flow arrows from a child's save to the
/// parent it was pushed into and from a save to each context that merged it. The file opens in
/// Perfetto (ui.perfetto.dev) and chrome://tracing.
///
/// Set `STRATA_TRACE=path.json` to record a whole run (from the first context or coordinator
/// created to the process's normal exit), or call ``start(writingTo:maximumEvents:)`` and
/// ``stop()`` around the part to look at. When no recording runs, each traced point costs one
/// relaxed atomic load. All methods are callable from any thread.
public enum StrataTrace {
    /// The most events a recording keeps unless told otherwise (about 150 bytes each in the
    /// file); later ones are counted as dropped in the file's `otherData`. Threads hand events
    /// over in batches of a few hundred, so a recording may end up to one batch a thread short
    /// of the limit.
    public static let defaultMaximumEvents = 5_000_000

    /// The running recording, or `nil`. Recordings are retained for the life of the process
    /// (once finished, a few hundred bytes each and the table of their texts), so a thread that
    /// loaded one just before it stopped still holds a valid reference.
    private static let running = Atomic<Unmanaged<TraceSession>?>(nil)
    /// Serializes `start` and `stop`.
    private static let control = StrataLock<Void>(())

    /// Whether a recording is running.
    public static var isRecording: Bool { running.load(ordering: .relaxed) != nil }

    /// Starts recording into a new file at `url` (replacing one there), ending a recording
    /// already running first. Throws when the file cannot be created.
    public static func start(writingTo url: URL, maximumEvents: Int = defaultMaximumEvents) throws {
        try control.withLock { _ in
            _ = try stopRunning()
            let session = try TraceSession(url: url, maximumEvents: max(1, maximumEvents))
            running.store(Unmanaged.passRetained(session), ordering: .releasing)
        }
    }

    /// Ends the recording and completes its file; returns the file's URL, or `nil` when none
    /// was running. Spans still open are not written. Throws when writing the file failed.
    @discardableResult
    public static func stop() throws -> URL? {
        try control.withLock { _ in try stopRunning() }
    }

    private static func stopRunning() throws -> URL? {
        guard let ended = running.exchange(nil, ordering: .acquiringAndReleasing)?.takeUnretainedValue() else { return nil }
        try ended.finish()
        return ended.url
    }

    /// Starts the recording `STRATA_TRACE` asks for, once per process (called when a context or
    /// coordinator is created); the file is completed when the process exits normally.
    static func startFromEnvironment() { _ = environmentRecording }

    private static let environmentRecording: Void = {
        guard let path = ProcessInfo.processInfo.environment["STRATA_TRACE"], !path.isEmpty else { return }
        let limit = ProcessInfo.processInfo.environment["STRATA_TRACE_MAX_EVENTS"].flatMap { Int($0) } ?? defaultMaximumEvents
        do {
            try start(writingTo: URL(fileURLWithPath: path), maximumEvents: limit)
            atexit {
                do {
                    try StrataTrace.stop()
                } catch {
                    writeToStandardError("Strata: \(error)")
                }
            }
        } catch {
            writeToStandardError("Strata: STRATA_TRACE: \(error)")
        }
    }()

    /// The running recording, or `nil` (one atomic load when none runs).
    @inline(__always)
    static var active: TraceSession? { running.load(ordering: .acquiring)?.takeUnretainedValue() }
}
