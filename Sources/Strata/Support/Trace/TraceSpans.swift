import Foundation
import Synchronization

/// What the traced code records: spans on the current track, the tracks of context queues and
/// flow arrows between tracks. Every entry point does nothing but one atomic load when no
/// recording runs.
extension StrataTrace {
    /// The kinds of span, the format's `cat` field (Perfetto can filter by it).
    enum Category {
        case perform, save, fetch, sql, fault, merge, batch, migration

        var name: StaticString {
            switch self {
            case .perform: "perform"
            case .save: "save"
            case .fetch: "fetch"
            case .sql: "sql"
            case .fault: "fault"
            case .merge: "merge"
            case .batch: "batch"
            case .migration: "migration"
            }
        }
    }

    /// Runs `body` inside a span named `name` (followed by `detail`, an entity's name, when
    /// given) on the current track; `detail` and `arguments` are evaluated only when recording.
    /// A thrown error is recorded in the span's `error` argument and rethrown.
    @inline(__always) @discardableResult
    static func span<T>(
        _ name: StaticString, _ category: Category, detail: @autoclosure () -> String? = nil, arguments: @autoclosure () -> TraceArguments = TraceArguments(),
        _ body: () throws -> T
    ) rethrows -> T {
        guard let session = active else { return try body() }
        return try recordSpan(session, name, detail(), category, arguments(), { _, _ in }, body)
    }

    /// ``span(_:_:detail:arguments:_:)`` where `outcome` adds arguments from the result (a row
    /// count) to the span's.
    @inline(__always) @discardableResult
    static func span<T>(
        _ name: StaticString, _ category: Category, detail: @autoclosure () -> String? = nil, arguments: @autoclosure () -> TraceArguments = TraceArguments(),
        outcome: (T, inout TraceArguments) -> Void, body: () throws -> T
    ) rethrows -> T {
        guard let session = active else { return try body() }
        return try recordSpan(session, name, detail(), category, arguments(), outcome, body)
    }

    private static func recordSpan<T>(
        _ session: TraceSession, _ name: StaticString, _ detail: String?, _ category: Category, _ arguments: TraceArguments,
        _ outcome: (T, inout TraceArguments) -> Void, _ body: () throws -> T
    ) rethrows -> T {
        let state = TraceThreadState.current
        let (track, isThread) = state.currentTrack
        if isThread { session.name(track, from: state) { "thread \(track.id - TraceTrack.firstThreadTrack)" } }
        let start = session.now()
        var arguments = arguments
        func record() {
            let event = TraceEvent(
                name: name, detail: detail.map { session.number(of: $0, from: state) }, category: category.name, phase: .complete, time: start,
                duration: session.now() &- start, track: track.id, arguments: session.recorded(arguments, from: state))
            session.record(event, from: state)
        }
        do {
            let result = try body()
            outcome(result, &arguments)
            record()
            return result
        } catch {
            arguments.append(.message("error", "\(error)"))
            record()
            throw error
        }
    }

    /// Runs `body` with `track` (a context queue's) as this thread's current track, inside a
    /// span `name`; the track is named by `trackName` the first time it is used.
    @inline(__always)
    static func onTrack<T>(_ track: TraceTrack, named trackName: () -> String, span name: StaticString, _ body: () throws -> T) rethrows -> T {
        guard let session = active else { return try body() }
        let state = TraceThreadState.current
        session.name(track, from: state, trackName)
        return try state.with(track) {
            try recordSpan(session, name, nil, .perform, TraceArguments(), { _, _ in }, body)
        }
    }

    /// Marks a point inside the current span where something starts that another track will
    /// pick up (a child's save, a did-save); `nil` when not recording.
    static func flowOrigin() -> TraceFlowOrigin? {
        guard let session = active else { return nil }
        return TraceFlowOrigin(track: TraceThreadState.current.currentTrack.track, time: session.now())
    }

    /// Draws an arrow named `name` from `origin` to the span running now on the current track.
    static func flowArrives(from origin: TraceFlowOrigin?, _ name: StaticString) {
        guard let origin, let session = active else { return }
        let id = flowCounter.add(1, ordering: .relaxed).newValue
        let state = TraceThreadState.current
        let (track, isThread) = state.currentTrack
        if isThread { session.name(track, from: state) { "thread \(track.id - TraceTrack.firstThreadTrack)" } }
        let now = session.now()
        session.record(TraceEvent(name: name, category: "flow", phase: .flowStart, time: origin.time, track: origin.track.id, id: id), from: state)
        session.record(TraceEvent(name: name, category: "flow", phase: .flowFinish, time: max(now, origin.time), track: track.id, id: id), from: state)
    }

    private static let flowCounter = Atomic<UInt64>(0)
}

/// Where a flow arrow starts: a track and a time inside the span running there.
struct TraceFlowOrigin: Sendable {
    let track: TraceTrack
    /// Nanoseconds since the recording started.
    let time: UInt64
}
