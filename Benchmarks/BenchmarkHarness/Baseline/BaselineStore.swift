import Foundation

/// Why a baseline could not be stored or loaded.
public enum BaselineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name is empty or contains a path separator or `..`.
    case invalidName(String)
    /// No baseline file exists at the path.
    case notFound(name: String, path: String)
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a valid baseline.
    case corrupted(path: String, reason: String)
    /// The file or its directory cannot be written.
    case unwritable(path: String, reason: String)

    /// A message suitable for the terminal.
    public var description: String {
        switch self {
        case .invalidName(let name):
            "invalid baseline name \"\(name)\": use letters, digits, '.', '-' or '_' only"
        case .notFound(let name, let path):
            "no baseline named \"\(name)\" (expected \(path)); create it with `baseline update \(name)`"
        case .unreadable(let path, let reason):
            "cannot read baseline \(path): \(reason)"
        case .corrupted(let path, let reason):
            "baseline \(path) is corrupted or not a baseline file: \(reason); re-create it with `baseline update`"
        case .unwritable(let path, let reason):
            "cannot write baseline \(path): \(reason)"
        }
    }
}

/// Stores run reports as JSON files named `<name>.json` in a directory (`.bench/baselines` by default,
/// relative to the current directory).
public struct BaselineStore: Sendable {
    /// The default directory, relative to the current directory.
    public static let defaultDirectory = ".bench/baselines"

    /// The directory holding the baseline files.
    public var directory: String

    /// Creates a store over `directory`.
    public init(directory: String = BaselineStore.defaultDirectory) {
        self.directory = directory
    }

    /// Whether `name` can be used as a baseline file name.
    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 200, name != ".", name != "..", !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        }
    }

    /// The file path of the baseline called `name`.
    public func path(for name: String) throws(BaselineError) -> String {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        return URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("\(name).json").path
    }

    /// Writes `report` as the baseline called `name`, creating the directory if needed.
    /// The stored copy has no baseline comparison attached.
    public func save(_ report: BenchmarkRunReport, as name: String) throws(BaselineError) {
        let path = try path(for: name)
        var stored = report
        stored.comparison = nil
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let data = try JSONReport.encode(stored)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .unwritable(path: path, reason: error.localizedDescription)
        }
    }

    /// Loads the baseline called `name`.
    public func load(_ name: String) throws(BaselineError) -> BenchmarkRunReport {
        let path = try path(for: name)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound(name: name, path: path)
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "it is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        do {
            return try JSONReport.decode(data)
        } catch {
            throw .corrupted(path: path, reason: JSONReport.describe(error))
        }
    }
}
