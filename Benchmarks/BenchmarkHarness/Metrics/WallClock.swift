#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the monotonic wall clock.
enum WallClock {
    /// Nanoseconds on `CLOCK_MONOTONIC`; only differences are meaningful.
    static func nowNanoseconds() -> UInt64 {
        var spec = timespec()
        guard clock_gettime(CLOCK_MONOTONIC, &spec) == 0 else { return 0 }
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
