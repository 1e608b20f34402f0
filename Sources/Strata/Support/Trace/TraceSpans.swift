import Foundation
import Synchronization

/// What the traced code records: spans on the current track, the tracks of context queues and
/// flow arrows between tracks. Every entry point does nothing but one atomic load when no
/// recording runs.
extension StrataTrace {
    /// The kinds of span, the format's `cat` field (Perfetto can filter by it).
    enum Category: String {
        case perform, save, fetch, sql, fault, merge, batch, migration
    }

    /// Runs `body` inside a span named `name` on the current track; `arguments` is evaluated
    /// only when recording. A thrown error is recorded in the span's `error` argument and
    /// rethrown.
    @inline(__always) @discardableResult
    static func span<T>(_ name: @autoclosure () -> String, _ category: Category, arguments: @autoclosure () -> [String: TraceValue] = [:], _ body: () throws -> T)
        rethrows -> T
    {
        guard let session = active else { return try body() }
        return try recordSpan(session, name(), category, arguments(), { _ in [:] }, body)
    }

    /// ``span(_:_:arguments:_:)`` where `outcome` adds arguments from the result (a row count).
    @inline(__always) @discardableResult
    static func span<T>(
        _ name: @autoclosure () -> String, _ category: Category, arguments: @autoclosure () -> [String: TraceValue] = [:],
        outcome: (T) -> [String: TraceValue], body: () throws -> T
    ) rethrows -> T {
        guard let session = active else { return try body() }
        return try recordSpan(session, name(), category, arguments(), outcome, body)
    }

    private static func recordSpan<T>(
        _ session: TraceSession, _ name: String, _ category: Category, _ arguments: [String: TraceValue], _ outcome: (T) -> [String: TraceValue],
        _ body: () throws -> T
    ) rethrows -> T {
        let (track, isThread) = TraceTrack.current
        let start = session.now()
        var arguments = arguments
        func emit() {
            let event = TraceEvent(
                name: name, category: category.rawValue, phase: .complete, time: start, duration: session.now() &- start, pid: session.pid, track: track.id,
                arguments: arguments.isEmpty ? nil : arguments)
            session.record([event], naming: isThread ? track : nil) { threadTrackName(track) }
        }
        do {
            let result = try body()
            arguments.merge(outcome(result)) { $1 }
            emit()
            return result
        } catch {
            arguments["error"] = .text("\(error)")
            emit()
            throw error
        }
    }

    /// Runs `body` with `track` (a context queue's) as this thread's current track, inside a
    /// span `name`; the track is named by `trackName` the first time it is used.
    @inline(__always)
    static func onTrack<T>(_ track: TraceTrack, named trackName: () -> String, span name: String, _ body: () throws -> T) rethrows -> T {
        guard let session = active else { return try body() }
        session.record([], naming: track, trackName)
        return try TraceTrack.with(track) {
            try recordSpan(session, name, .perform, [:], { _ in [:] }, body)
        }
    }

    /// Marks a point inside the current span where something starts that another track will
    /// pick up (a child's save, a did-save); `nil` when not recording.
    static func flowOrigin() -> TraceFlowOrigin? {
        guard let session = active else { return nil }
        return TraceFlowOrigin(track: TraceTrack.current.track, time: session.now())
    }

    /// Draws an arrow named `name` from `origin` to the span running now on the current track.
    static func flowArrives(from origin: TraceFlowOrigin?, _ name: String) {
        guard let origin, let session = active else { return }
        let id = flowCounter.add(1, ordering: .relaxed).newValue
        let (track, isThread) = TraceTrack.current
        let now = session.now()
        session.record(
            [
                TraceEvent(name: name, category: "flow", phase: .flowStart, time: origin.time, pid: session.pid, track: origin.track.id, id: id),
                TraceEvent(
                    name: name, category: "flow", phase: .flowFinish, time: max(now, origin.time), pid: session.pid, track: track.id, id: id,
                    bindsToEnclosingSpan: true),
            ], naming: isThread ? track : nil
        ) { threadTrackName(track) }
    }

    /// The name of a thread's own track.
    private static func threadTrackName(_ track: TraceTrack) -> String { "thread \(track.id - TraceTrack.firstThreadTrack)" }

    private static let flowCounter = Atomic<UInt64>(0)
}

/// Where a flow arrow starts: a track and a time inside the span running there.
struct TraceFlowOrigin: Sendable {
    let track: TraceTrack
    /// Nanoseconds since the recording started.
    let time: UInt64
}
