import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A row of the trace, the format's `tid`: one per context queue (every block a context runs
/// lands on its track, whatever thread ran it), and one per thread for work done outside any
/// context's block.
struct TraceTrack: Sendable, Hashable {
    /// The track's number in the file.
    let id: Int

    private static let counter = Atomic<Int>(0)

    /// A new track number for a context queue (threads get numbers from 1,000,000 on).
    static func next() -> TraceTrack { TraceTrack(id: counter.add(1, ordering: .relaxed).newValue) }

    /// The first track number of threads' own tracks (context queues count up from 1).
    static let firstThreadTrack = 1_000_000

    /// The track of the block running on this thread, innermost first, or the thread's own
    /// track when it runs none; `isThread` tells which, so the thread's track gets its name.
    static var current: (track: TraceTrack, isThread: Bool) {
        let stack = currentStack
        if let last = stack.tracks.last { return (last, false) }
        return (TraceTrack(id: firstThreadTrack + stack.threadNumber), true)
    }

    /// Runs `body` with `track` as this thread's current track.
    static func with<T>(_ track: TraceTrack, _ body: () throws -> T) rethrows -> T {
        let stack = currentStack
        stack.tracks.append(track)
        defer { stack.tracks.removeLast() }
        return try body()
    }

    /// A thread's tracks, and its number among the threads that traced something.
    private final class Stack {
        var tracks: [TraceTrack] = []
        let threadNumber = threadCounter.add(1, ordering: .relaxed).newValue
    }

    private static let threadCounter = Atomic<Int>(0)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Stack>.fromOpaque(pointer).release()
        }
        return key
    }()

    private static var currentStack: Stack {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Stack>.fromOpaque(pointer).takeUnretainedValue() }
        let stack = Stack()
        pthread_setspecific(key, Unmanaged.passRetained(stack).toOpaque())
        return stack
    }
}
