import Foundation
import Strata

/// Where the shared model corpus is (the model-file, migration and code-generation tests read it).
///
/// Pure functions: use them on any thread.
public enum ModelFileCorpus {
    /// `../shared/testdata/xcdatamodels` from the package root (this file is
    /// `Sources/StrataTestSupport/…`, three levels below it). The corpus is read in place, never copied.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/testdata/xcdatamodels").standardizedFileURL
    }()

    /// A bundle or version of the corpus, by its path under the corpus root.
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// Every model of the corpus: the `.xcdatamodeld` bundles and the standalone `.xcdatamodel`s.
    public static func allModels() -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if ["xcdatamodeld", "xcdatamodel"].contains(url.pathExtension) {
                found.append(url)
                enumerator?.skipDescendants()
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The `.xcdatamodel` versions of a bundle.
    public static func versions(of bundle: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted().map { bundle.appendingPathComponent($0) }
    }

    /// The transformers the corpus names, registered as property-list transformers (their apps
    /// register their own; these tests store no transformable values).
    public static func registerTransformers() {
        for name in ["AuthorTransformer", "ColorTransformer", "ColorsTransformer", "ImageTransformer"] {
            AttributeValueTransformers.register(PropertyListValueTransformer(), forName: name)
        }
    }
}
