#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits with `poll(2)` until a libpq socket can be read or written, or a deadline passes.
/// Blocks the calling thread; usable from any thread.
enum PostgreSQLSocketWait {
    /// What to wait for.
    enum Direction {
        case read, write
    }

    /// Returns true when `socket` is ready (or in an error or hang-up state, which the next libpq
    /// call reports), false when `deadline` passed first. A negative socket counts as ready, so
    /// libpq reports the missing connection itself. Interrupted waits (`EINTR`) resume.
    static func wait(for direction: Direction, on socket: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        guard socket >= 0 else { return true }
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return false }
            let descriptor = pollfd(fd: socket, events: Int16(direction == .read ? POLLIN : POLLOUT), revents: 0)
            var descriptors = [descriptor]
            let result = poll(&descriptors, 1, milliseconds(remaining))
            if result > 0 { return true }
            if result < 0 && errno != EINTR { return true }
        }
    }

    /// Whether `socket` can be read (or is at end of file or in error) right now, without waiting.
    static func isReadable(_ socket: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&descriptors, 1, 0)
            if result >= 0 { return result > 0 }
            if errno != EINTR { return false }
        }
    }

    /// A duration as poll's timeout: whole milliseconds, rounded up, at most a minute per call
    /// (the loop above polls again until the deadline).
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds >= 60 { return 60_000 }
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(max(1, milliseconds))
    }
}
