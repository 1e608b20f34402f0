import Foundation

/// Writes ``GeneratedFile``s into a folder: a user's class file only when it does not exist
/// yet, any other file only when its text changed (so an unchanged file keeps its timestamp and
/// the build does not recompile it).
public struct GeneratedFileWriter: Sendable {
    /// What happened to one file.
    public enum Outcome: Equatable, Sendable {
        /// The file did not exist and was written.
        case created
        /// The file existed with other text and was rewritten.
        case updated
        /// The file existed with the same text (or is the user's) and was left alone.
        case unchanged
    }

    /// The folder the files go into; created when missing.
    public let directory: URL

    /// A writer into `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// Writes `files`; returns each file's name and outcome, in the order given. Throws the
    /// file system's error for a folder or file that cannot be written.
    public func write(_ files: [GeneratedFile]) throws -> [(name: String, outcome: Outcome)] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try files.map { file in (file.name, try write(file)) }
    }

    private func write(_ file: GeneratedFile) throws -> Outcome {
        let url = directory.appendingPathComponent(file.name)
        let data = Data(file.contents.utf8)
        guard FileManager.default.fileExists(atPath: url.path) else {
            try data.write(to: url, options: .atomic)
            return .created
        }
        if file.kind == .userClass { return .unchanged }
        if let existing = try? Data(contentsOf: url), existing == data { return .unchanged }
        try data.write(to: url, options: .atomic)
        return .updated
    }
}
