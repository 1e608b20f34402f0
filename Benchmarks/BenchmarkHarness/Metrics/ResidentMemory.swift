#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resident-memory counters from `/proc/self/status`, and the peak reset of `/proc/self/clear_refs`.
enum ResidentMemory {
    /// One reading of the resident-set counters.
    struct Status: Equatable {
        /// Current resident set size (`VmRSS`) in bytes.
        var residentBytes: Int
        /// Peak resident set size (`VmHWM`) in bytes since start or since the last reset.
        var peakResidentBytes: Int
    }

    /// Reads `VmRSS` and `VmHWM`; nil when `/proc/self/status` is unavailable or unparsable.
    static func readStatus() -> Status? {
        guard let text = readFile("/proc/self/status") else { return nil }
        return parseStatus(text)
    }

    /// Parses the `VmRSS` and `VmHWM` lines (in kB) of a `/proc/<pid>/status` text.
    static func parseStatus(_ text: String) -> Status? {
        var resident: Int?
        var peak: Int?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") {
                resident = kilobytes(in: line.dropFirst(6))
            } else if line.hasPrefix("VmHWM:") {
                peak = kilobytes(in: line.dropFirst(6))
            }
        }
        guard let resident, let peak else { return nil }
        return Status(residentBytes: resident * 1_024, peakResidentBytes: peak * 1_024)
    }

    /// Resets the peak resident size to the current resident size by writing `5` to `/proc/self/clear_refs`.
    /// Returns false when the kernel or the sandbox refuses it.
    @discardableResult
    static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let command: [UInt8] = [UInt8(ascii: "5")]
        let written = command.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return written == 1
    }

    /// Checks once that resetting the peak works: the write succeeds and the peak then sits near the current size.
    static func probePeakReset() -> Bool {
        guard resetPeak(), let status = readStatus() else { return false }
        return status.peakResidentBytes <= status.residentBytes + 1_048_576
    }

    private static func kilobytes(in field: Substring) -> Int? {
        let digits = field.drop { $0 == " " || $0 == "\t" }.prefix { $0.isNumber }
        return Int(digits)
    }

    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while bytes.count < 1_048_576 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk.prefix(count))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
