import Foundation

/// Reading a model file with the app's `ManagedObject` subclasses (it lives beside the objects:
/// the model itself does not depend on them).
extension ManagedObjectModel {
    /// Reads the model at `url` as `init(contentsOf:)` does, then gives each entity whose
    /// `representedClassName` names one of `managedObjectClasses` that class. Names are compared
    /// unqualified: `MyApp.Note`, `.Note` and `Note` all match a class whose
    /// `String(describing:)` is `Note`. Entities naming no given class (or `NSManagedObject`)
    /// keep `ManagedObject`. Throws what `init(contentsOf:)` throws. Callable from any thread.
    public convenience init(contentsOf url: URL, managedObjectClasses: [ManagedObject.Type]) throws {
        try self.init(contentsOf: url)
        var classes: [String: ManagedObject.Type] = [:]
        for type in managedObjectClasses { classes[Self.unqualifiedClassName(String(describing: type))] = type }
        for entity in entities {
            guard let name = entity.representedClassName, let type = classes[Self.unqualifiedClassName(name)] else { continue }
            entity.managedObjectClass = type
        }
    }

    /// `MyApp.Note`, `.Note` → `Note`.
    static func unqualifiedClassName(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }
}
