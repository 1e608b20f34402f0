import Strata

/// What the generator writes for one entity: the user's class, the generated base class it
/// inherits from, and the typed properties the base declares. Built from a model, before any
/// text is written, so the text renderers only format.
struct EntityPlan {
    /// The model entity.
    let entityName: String
    /// The user's class (`representedClassName` without module prefix).
    let className: String
    /// The generated base class the user's class inherits from (`_` + class name).
    let baseName: String
    /// The class the base inherits from: the class of the nearest ancestor entity that has a
    /// class of its own, else `ManagedObject`.
    let superclassName: String
    /// Whether no generated class inherits from this one (the user's class can be `final`,
    /// which ``KeyPathKeyed`` needs).
    let isLeaf: Bool
    /// The typed properties the base declares: the entity's own, plus those of ancestors
    /// without a class of their own (their properties would otherwise have no typed accessor).
    let properties: [PropertyPlan]
    /// Properties that get no typed accessor, with the reason (transformable, undefined, object ID).
    let skipped: [(name: String, reason: String)]
    /// Every typed key path of the class, own and inherited, for the key-path table.
    let keyPaths: [KeyPathEntry]
}

/// One typed property of a generated base class.
struct PropertyPlan {
    /// How the property is declared.
    enum Kind {
        /// `@Attribute`.
        case attribute
        /// `@Relationship` to-one.
        case toOne
        /// `@Relationship` unordered to-many.
        case toMany
        /// `@Relationship` ordered to-many.
        case orderedToMany
    }

    /// The model key.
    let key: String
    /// The Swift property name (the key, escaped when it is a Swift keyword).
    let swiftName: String
    /// The property's Swift type (`String`, `Int64?`, `Set<Employee>`, `[Song]`).
    let swiftType: String
    /// The destination class for a relationship, the attribute's type name otherwise.
    let elementType: String
    /// How it is declared.
    let kind: Kind
    /// A one-line description for the doc comment (`String, optional, transient`).
    let summary: String
}

/// One entry of a generated key-path table: `\Person.department?.name` → `department.name`.
struct KeyPathEntry {
    /// The key path after the class name (`.name`, `.department?.name`).
    let path: String
    /// The dotted model key.
    let key: String
}
