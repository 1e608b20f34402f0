import Foundation

/// The process's resident memory, read from `/proc/self/statm` (Linux). Returns 0 where it
/// cannot be read.
public enum ProcessMemory {
    /// Resident set size in bytes.
    public static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
