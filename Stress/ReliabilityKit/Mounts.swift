import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Small tmpfs mounts for the disk-full and read-only tests (root only).
public enum Mounts {
    /// Why mounting is impossible here, or nil when it should work.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "not running as root (mounting a small tmpfs needs root)" }
        return nil
    }

    /// Mounts a tmpfs of `size` (e.g. "2m") on `directory` (created if needed).
    public static func mountTmpfs(at directory: URL, size: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(size),mode=0755") == 0 else {
            throw HarnessError("mount -t tmpfs -o size=\(size) on \(directory.path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Remounts the tmpfs on `directory` with `options` ("ro", "rw", "size=8m"…).
    public static func remount(_ directory: URL, readOnly: Bool, size: String? = nil) throws {
        var flags = UInt(MS_REMOUNT)
        if readOnly { flags |= UInt(MS_RDONLY) }
        let data = size.map { "size=\($0)" }
        let rc = data.map { mount("tmpfs", directory.path, "tmpfs", flags, $0) } ?? mount("tmpfs", directory.path, "tmpfs", flags, nil)
        guard rc == 0 else {
            throw HarnessError("remount \(readOnly ? "ro" : "rw")\(size.map { ",size=\($0)" } ?? "") of \(directory.path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Unmounts `directory` (lazily if it is busy) and removes it.
    public static func unmount(_ directory: URL) {
        if umount2(directory.path, 0) != 0 {
            _ = umount2(directory.path, Int32(MNT_DETACH))
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
