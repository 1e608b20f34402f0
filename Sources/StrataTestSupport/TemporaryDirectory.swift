import Foundation

/// A fresh folder under the system temp directory, removed when the value is released or when
/// ``remove()`` is called. Thread-safe.
public final class TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Creates a new, empty folder whose name starts with `prefix`.
    public init(prefix: String = "strata-test") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file URL inside the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Removes the folder and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }

    deinit { remove() }
}
