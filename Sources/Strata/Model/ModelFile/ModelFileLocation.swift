import Foundation

/// Finds the `contents` file of a model: in a `.xcdatamodeld` bundle, the current version's
/// (named by `.xccurrentversion`), in a `.xcdatamodel` directory its own. Runs on the calling
/// thread.
enum ModelFileLocation {
    /// The XML file to read for the model at `url`: a `.xcdatamodeld` bundle, a `.xcdatamodel`
    /// directory, or a `contents` file itself.
    static func contentsFile(for url: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError.make("There is no model file or bundle here", file: url, line: 0, element: "bundle")
        }
        guard isDirectory.boolValue else { return url }
        if url.pathExtension == "xcdatamodel" || !isBundle(url) {
            let contents = url.appendingPathComponent("contents")
            guard FileManager.default.fileExists(atPath: contents.path) else {
                throw ModelFileError.make("The model version has no 'contents' file", file: contents, line: 0, element: "contents")
            }
            return contents
        }
        return try contentsFile(for: currentVersion(ofBundle: url))
    }

    /// Whether `url` is a versioned bundle: a `.xcdatamodeld` or a folder of `.xcdatamodel`s.
    private static func isBundle(_ url: URL) -> Bool {
        url.pathExtension == "xcdatamodeld" || !versions(inBundle: url).isEmpty
    }

    /// The `.xcdatamodel` directories of a bundle, sorted by name.
    static func versions(inBundle url: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted().map { url.appendingPathComponent($0) }
    }

    /// The current version of a bundle: the one `.xccurrentversion` names, else the only one.
    static func currentVersion(ofBundle url: URL) throws -> URL {
        let marker = url.appendingPathComponent(".xccurrentversion")
        let versions = versions(inBundle: url)
        guard let data = FileManager.default.contents(atPath: marker.path) else {
            // Xcode writes `.xccurrentversion` only once a model has a second version.
            if versions.count == 1 { return versions[0] }
            if versions.isEmpty {
                throw ModelFileError.make("The bundle holds no .xcdatamodel version", file: url, line: 0, element: "bundle")
            }
            throw ModelFileError.make(
                "The bundle holds \(versions.count) versions but no .xccurrentversion saying which is current", file: url, line: 0, element: "bundle")
        }
        let plist = try? PropertyListReader.value(from: data)
        guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !name.isEmpty else {
            throw ModelFileError.make("It is not a property list with a _XCCurrentVersionName string", file: marker, line: 1, element: "plist")
        }
        let version = url.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: version.path) else {
            let text = String(decoding: data, as: UTF8.self)
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(name) }.map { $0 + 1 } ?? 0
            throw ModelFileError.make("The current version '\(name)' is not in the bundle", file: marker, line: line, element: "string")
        }
        return version
    }
}
