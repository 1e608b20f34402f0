import Foundation

/// How one destination property gets its value during a migration (Core Data's
/// `NSPropertyMapping`).
///
/// `valueExpression` is evaluated against the source instance: `$source.name` (or the key path
/// `name`) reads a source property; a constant sets a fixed value; `nil` leaves the destination
/// property at its default. Configure it before handing the mapping model to a migration; not
/// thread-safe while being changed.
public final class PropertyMapping: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a configuration object, set up before a migration and only read during it.
    /// The destination property's name.
    public var name: String?
    /// The expression that computes the destination value from the source instance.
    public var valueExpression: ObjectExpression?
    /// Application data kept with the mapping.
    public var userInfo: [String: any Sendable]

    /// Creates a property mapping for the destination property `name`.
    public init(name: String? = nil, valueExpression: ObjectExpression? = nil, userInfo: [String: any Sendable] = [:]) {
        self.name = name
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }

    /// The name of the source property this mapping copies, when `valueExpression` is a plain
    /// read of one (`$source.name`, `$source` key path, or the key path `name`); `nil` otherwise.
    public var sourcePropertyName: String? {
        switch valueExpression?.node {
        case .keyPathFrom(.variable("source"), let path)? where path.count == 1:
            return path[0]
        case .keyPath(let path)? where path.count == 1:
            return path[0]
        default:
            return nil
        }
    }

    /// A mapping that copies the source property `sourceName` into the destination property
    /// `name` (`$source.sourceName`, what an inferred mapping writes).
    public static func copying(_ sourceName: String, into name: String) -> PropertyMapping {
        PropertyMapping(name: name, valueExpression: ObjectExpression(node: .keyPathFrom(.variable("source"), [sourceName])))
    }

    public var description: String {
        "<PropertyMapping \(name ?? "?") = \(valueExpression?.description ?? "default")>"
    }
}
