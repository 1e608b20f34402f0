import Foundation
import Strata
import StrataTestSupport

/// The shared model corpus (`../shared/testdata/xcdatamodels` beside the repository, read in
/// place, never copied) and scratch folders for the command's tests.
enum CodegenCorpus {
    /// The corpus root: this file is `Tests/StrataCodeGenerationTests/…`, three levels below the
    /// package root.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/testdata/xcdatamodels").standardizedFileURL
    }()

    /// A bundle or version of the corpus, by its path under the root.
    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The `.xcdatamodeld` bundles and standalone `.xcdatamodel`s of the corpus, sorted.
    static func allModels() -> [URL] {
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

    /// The value transformers the corpus names (models read without them are still valid; this
    /// keeps the reading identical to the model-file tests).
    static func registerTransformers() {
        for name in ["AuthorTransformer", "ColorTransformer", "ColorsTransformer", "ImageTransformer"] {
            AttributeValueTransformers.register(PropertyListValueTransformer(), forName: name)
        }
    }
}
