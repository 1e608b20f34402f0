import Foundation

/// The process's resident memory as Linux reports it in `/proc/self/status`: `VmRSS` (now) and
/// `VmHWM` (the peak since the process started). Both nil where the file does not exist.
public enum MemoryProbe {
    /// Resident memory now, in bytes.
    public static var resident: Int? { field("VmRSS") }

    /// Peak resident memory since the process started, in bytes.
    public static var peakResident: Int? { field("VmHWM") }

    /// Bytes as mebibytes, one decimal ("n/a" for nil).
    public static func mebibytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "n/a"
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return number.map { $0 * 1_024 }  // the file reports kB
        }
        return nil
    }
}
