import Strata

/// The target's own class for entity `Tag`: a file named `Tag+Class.swift` makes the
/// StrataModelCodegen plugin leave `Tag` out of the generated file and generate only its base
/// class `_Tag` (Xcode's "Category/Extension" code generation: the class is yours, the
/// properties are generated).
public final class Tag: _Tag {
    /// A computed property of the user's own, beside the generated ones.
    var label: String { "#" + name }
}
