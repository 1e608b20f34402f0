/// Formats ``EntityPlan``s as Swift: the user's class, the generated base class with its
/// property wrappers and fetch request, the typed to-many accessors and the key-path table.
/// Pure text; the same plan always gives the same text.
struct SourceRenderer {
    /// `public ` or `` (internal), put before each declaration.
    let access: String
    /// Where the model came from, for headers (`Model.xcdatamodeld`).
    let modelName: String

    /// The header every generated file starts with.
    func header(_ lines: [String]) -> String {
        lines.map { "// " + $0 }.joined(separator: "\n") + "\n\nimport Foundation\nimport Strata\n"
    }

    /// `final class Person: _Person {}` with its doc comment.
    func userClass(_ plan: EntityPlan) -> String {
        let final = plan.isLeaf ? "final " : ""
        return """

            /// An object of entity `\(plan.entityName)`. Its model properties are inherited from
            /// `\(plan.baseName)`; add your own methods, computed properties and overrides here.
            \(access)\(final)class \(plan.className): \(plan.baseName) {}

            """
    }

    /// The base class, the accessors of its to-many relationships and, for a leaf class, its
    /// key-path table.
    func properties(_ plan: EntityPlan) -> String {
        var out = "\n/// The generated model properties of entity `\(plan.entityName)`, inherited by `\(plan.className)`.\n"
        out += "/// Regenerated from the model: do not edit.\n"
        // A class others inherit from cannot be KeyPathKeyed; the topmost such base declares
        // InheritableKeyPathKeyed, and each class below overrides the table.
        let inheritsTable = plan.superclassName != "ManagedObject"
        let conformance = !plan.isLeaf && !inheritsTable ? ", InheritableKeyPathKeyed" : ""
        out += "\(access)class \(plan.baseName): \(plan.superclassName)\(conformance) {\n"
        for property in plan.properties {
            let wrapper = property.kind == .attribute ? "Attribute" : "Relationship"
            out += "    /// `\(property.key)`: \(property.summary).\n"
            out += "    @\(wrapper)(\"\(property.key)\") \(access)var \(property.swiftName): \(property.swiftType)\n"
        }
        for skipped in plan.skipped {
            out += "    // `\(skipped.name)`: no typed property (\(skipped.reason)).\n"
        }
        if !plan.properties.isEmpty || !plan.skipped.isEmpty { out += "\n" }
        out += "    /// A request for the objects of entity `\(plan.entityName)`, typed to `\(plan.className)`.\n"
        out += "    \(access)class func fetchRequest() -> FetchRequest<\(plan.className)> {\n"
        out += "        FetchRequest<\(plan.className)>(entityName: \"\(plan.entityName)\")\n"
        out += "    }\n"
        if !plan.isLeaf { out += inheritableTable(plan, override: inheritsTable) }
        out += "}\n"
        for property in plan.properties where property.kind == .toMany || property.kind == .orderedToMany {
            out += accessors(property, of: plan)
        }
        if plan.isLeaf { out += keyPathTable(plan) }
        return out
    }

    /// `addToX`, `removeFromX` (and for an ordered relationship `insertIntoX(_:at:)` and
    /// removal by position), each an edit of the live to-many proxy `$x`.
    private func accessors(_ property: PropertyPlan, of plan: EntityPlan) -> String {
        let name = SwiftNames.capitalized(property.key)
        let proxy = "$" + property.key
        let element = property.elementType
        let many = property.kind == .orderedToMany ? "[\(element)]" : "Set<\(element)>"
        var out = "\n// MARK: Generated accessors for \(property.key)\n\nextension \(plan.baseName) {\n"
        out += "    /// Adds `value` to `\(property.key)`; its inverse follows.\n"
        out += "    \(access)func addTo\(name)(_ value: \(element)) { \(proxy).add(value) }\n\n"
        out += "    /// Removes `value` from `\(property.key)`; its inverse follows.\n"
        out += "    \(access)func removeFrom\(name)(_ value: \(element)) { \(proxy).remove(value) }\n\n"
        out += "    /// Adds each of `values` to `\(property.key)`.\n"
        out += "    \(access)func addTo\(name)(_ values: \(many)) { \(proxy).addObjects(from: values) }\n\n"
        out += "    /// Removes each of `values` from `\(property.key)`.\n"
        if property.kind == .orderedToMany {
            out += "    \(access)func removeFrom\(name)(_ values: \(many)) { for value in values { \(proxy).remove(value) } }\n\n"
            out += "    /// Inserts `value` into `\(property.key)` at `index` (0…count); nothing happens if it is there already.\n"
            out += "    \(access)func insertInto\(name)(_ value: \(element), at index: Int) { \(proxy).insert(value, at: index) }\n\n"
            out += "    /// Inserts `values` into `\(property.key)` so that they end up at `indexes`.\n"
            out += "    \(access)func insertInto\(name)(_ values: [\(element)], at indexes: IndexSet) { \(proxy).insert(values, at: indexes) }\n\n"
            out += "    /// Removes the object at `index` from `\(property.key)`.\n"
            out += "    \(access)func removeFrom\(name)(at index: Int) { \(proxy).removeObject(at: index) }\n\n"
            out += "    /// Removes the objects at `indexes` from `\(property.key)`.\n"
            out += "    \(access)func removeFrom\(name)(at indexes: IndexSet) { \(proxy).removeObjects(at: indexes) }\n"
        } else {
            out += "    \(access)func removeFrom\(name)(_ values: \(many)) { \(proxy).removeObjects(in: values) }\n"
        }
        return out + "}\n"
    }

    /// The `class var inheritableKeyPathKeys` of a class others inherit from (in the base's
    /// body, so that subclasses can override it).
    private func inheritableTable(_ plan: EntityPlan, override: Bool) -> String {
        var out = "\n    /// The model key of each typed key path of `\(plan.className)`, for `#Predicate` and key-path sorts\n"
        out += "    /// (`\(plan.className)` has subclasses, so the table is `InheritableKeyPathKeyed`'s, not `KeyPathKeyed`'s).\n"
        out += "    \(access)\(override ? "override " : "")class var inheritableKeyPathKeys: [AnyKeyPath: String] {\n"
        out += entries(plan, indent: "        ")
        return out + "    }\n"
    }

    /// The table's literal: `[\Person.name: "name", …]`, one entry a line.
    private func entries(_ plan: EntityPlan, indent: String) -> String {
        guard !plan.keyPaths.isEmpty else { return indent + "[:]\n" }
        var out = indent + "[\n"
        for entry in plan.keyPaths { out += "\(indent)    \\\(plan.className)\(entry.path): \"\(entry.key)\",\n" }
        return out + indent + "]\n"
    }

    /// `extension Person: KeyPathKeyed` listing every typed key path (``KeyPathKeyed`` needs a
    /// final class, so only leaf classes get one).
    private func keyPathTable(_ plan: EntityPlan) -> String {
        var out = "\nextension \(plan.className): KeyPathKeyed {\n"
        out += "    /// The model key of each typed key path of `\(plan.className)`, for `#Predicate` and key-path sorts.\n"
        out += "    \(access)static var keyPathKeys: [PartialKeyPath<\(plan.className)>: String] {\n"
        out += entries(plan, indent: "        ")
        return out + "    }\n}\n"
    }
}
