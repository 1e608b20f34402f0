import Foundation
import Synchronization

/// A row of the trace, the format's `tid`: one per context queue (every block a context runs
/// lands on its track, whatever thread ran it), and one per thread for work done outside any
/// context's block.
struct TraceTrack: Sendable, Hashable {
    /// The track's number in the file.
    let id: Int

    private static let counter = Atomic<Int>(0)

    /// The first track number of threads' own tracks (context queues count up from 1).
    static let firstThreadTrack = 1_000_000

    /// A new track number for a context queue.
    static func next() -> TraceTrack { TraceTrack(id: counter.add(1, ordering: .relaxed).newValue) }
}

/// What the trace keeps per thread: the tracks of the blocks the thread runs (innermost last),
/// its number, its event buffer for the running recording and the tracks it knows are named.
/// Only its own thread touches it.
final class TraceThreadState {
    var tracks: [TraceTrack] = []
    let threadNumber = TraceThreadState.threadCounter.add(1, ordering: .relaxed).newValue
    /// The buffer this thread fills for the recording `bufferSession` identifies (recordings
    /// are never freed, so an identifier is never reused).
    var buffer: TraceThreadBuffer?
    var bufferSession: ObjectIdentifier?
    /// Tracks already named in the file of the recording `namedSession` identifies.
    var namedTracks: Set<Int> = []
    var namedSession: ObjectIdentifier?

    private static let threadCounter = Atomic<Int>(0)

    /// The track of the block running on this thread, or the thread's own track when it runs
    /// none; `isThread` tells which.
    var currentTrack: (track: TraceTrack, isThread: Bool) {
        if let last = tracks.last { return (last, false) }
        return (TraceTrack(id: TraceTrack.firstThreadTrack + threadNumber), true)
    }

    /// The calling thread's state.
    static var current: TraceThreadState { perThread.current }

    private static let perThread = ThreadLocal { TraceThreadState() }

    /// Runs `body` with `track` as this thread's current track.
    func with<T>(_ track: TraceTrack, _ body: () throws -> T) rethrows -> T {
        tracks.append(track)
        defer { tracks.removeLast() }
        return try body()
    }
}
