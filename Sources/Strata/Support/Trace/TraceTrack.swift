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
/// its number, its event buffer for the running recording, the tracks it knows are named and the
/// texts it numbered. Only its own thread touches it: release builds skip the runtime's
/// exclusivity checks on its fields (each check looks up the thread's access set).
final class TraceThreadState {
    @exclusivity(unchecked) var tracks: [TraceTrack] = []
    let threadNumber = TraceThreadState.threadCounter.add(1, ordering: .relaxed).newValue
    /// The buffer this thread fills for the recording `bufferSession` identifies (recordings
    /// are never freed, so an identifier is never reused).
    @exclusivity(unchecked) var buffer: TraceThreadBuffer?
    @exclusivity(unchecked) var bufferSession: ObjectIdentifier?
    /// Tracks this thread knows are named in the file of the recording `namedSession`
    /// identifies: context tracks (numbered from 1) as bits, threads' tracks in a set.
    @exclusivity(unchecked) private var namedContextTracks: [UInt64] = []
    @exclusivity(unchecked) private var namedOtherTracks: Set<Int> = []
    @exclusivity(unchecked) private var lastNamedOtherTrack = -1
    @exclusivity(unchecked) private var namedSession: ObjectIdentifier?

    /// The texts this thread numbered for the recording `textSession` identifies.
    @exclusivity(unchecked) var textCache = TraceTextCache()
    @exclusivity(unchecked) var textSession: ObjectIdentifier?

    /// Context tracks kept as bits (a bit each, up to this number).
    private static let bitTrackLimit = 1 << 16

    private static let threadCounter = Atomic<Int>(0)

    /// The track of the block running on this thread, or the thread's own track when it runs
    /// none; `isThread` tells which.
    var currentTrack: (track: TraceTrack, isThread: Bool) {
        if let last = tracks.last { return (last, false) }
        return (TraceTrack(id: TraceTrack.firstThreadTrack + threadNumber), true)
    }

    /// Notes that `track` is named in the recording `session`; `false` when this thread had
    /// noted it already (a bit test for context tracks: it runs for every block a context runs).
    func noteNamed(_ track: TraceTrack, in session: ObjectIdentifier) -> Bool {
        if namedSession != session {
            namedSession = session
            namedContextTracks = []
            namedOtherTracks = []
            lastNamedOtherTrack = -1
        }
        guard track.id >= 0, track.id < Self.bitTrackLimit else {
            // A thread's own track, nearly always this thread's: the last one is remembered.
            guard track.id != lastNamedOtherTrack else { return false }
            lastNamedOtherTrack = track.id
            return namedOtherTracks.insert(track.id).inserted
        }
        let (word, bit) = track.id.quotientAndRemainder(dividingBy: 64)
        if word >= namedContextTracks.count { namedContextTracks.append(contentsOf: repeatElement(0, count: word + 1 - namedContextTracks.count)) }
        let mask = UInt64(1) << UInt64(bit)
        guard namedContextTracks[word] & mask == 0 else { return false }
        namedContextTracks[word] |= mask
        return true
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
