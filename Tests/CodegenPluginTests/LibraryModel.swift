import Foundation
import Strata
import StrataTestSupport

/// The model of this target (`Library.xcdatamodeld`, beside this file), whose classes the
/// StrataModelCodegen plugin generates at build time.
enum LibraryModel {
    /// The model bundle, read in place from the target's folder.
    static let url: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Library.xcdatamodeld")

    /// Every generated class and the target's own `Tag`.
    static let classes: [ManagedObject.Type] = [Author.self, Book.self, Chapter.self, EBook.self, Tag.self]

    /// The model with the generated classes mapped by `representedClassName`.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: url, managedObjectClasses: classes)
    }

    /// A stack of `kind` on the model.
    static func stack(_ kind: TestStack.Kind) throws -> TestStack {
        try TestStack(model: try model(), kind: kind)
    }
}
