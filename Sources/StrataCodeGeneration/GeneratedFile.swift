/// A Swift source file the generator produces: its name and its text.
public struct GeneratedFile: Equatable, Sendable {
    /// What the file holds, which decides how it is written.
    public enum Kind: Equatable, Sendable {
        /// `Entity+Class.swift`: the user's class. Written once, never overwritten.
        case userClass
        /// `Entity+Properties.swift`: the generated base class, accessors, fetch request and
        /// key-path table. Rewritten on every generation (only when its text changed).
        case properties
        /// One file with everything for a whole model (what the build-tool plugin writes).
        case combined
    }

    /// The file name, without a directory (`Person+Properties.swift`).
    public let name: String
    /// The Swift source.
    public let contents: String
    /// What the file holds.
    public let kind: Kind

    /// A file named `name` with `contents`.
    public init(name: String, contents: String, kind: Kind) {
        self.name = name
        self.contents = contents
        self.kind = kind
    }
}
