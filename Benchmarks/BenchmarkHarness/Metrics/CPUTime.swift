#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the CPU time consumed by the whole process.
enum CPUTime {
    /// Nanoseconds of CPU time used by all threads of the process (`CLOCK_PROCESS_CPUTIME_ID`).
    static func processNanoseconds() -> UInt64 {
        var spec = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec) == 0 else { return 0 }
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
