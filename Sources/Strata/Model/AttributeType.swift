import Foundation

/// The type of an attribute's values (Core Data's `NSAttributeDescription.AttributeType`).
///
/// | type | Swift value | SQLite storage |
/// |---|---|---|
/// | `integer16/32/64` | `Int16` / `Int32` / `Int64` | INTEGER, range-checked at save |
/// | `decimal` | `Decimal` | TEXT, lossless, compared numerically (collation `STRATA_DECIMAL`) |
/// | `double` / `float` | `Double` / `Float` | REAL (NaN kept as the text `'NaN'`, −0.0 kept) |
/// | `string` | `String` | TEXT |
/// | `boolean` | `Bool` | INTEGER 0 / 1 |
/// | `date` | `Date` | REAL, seconds since 2001-01-01 (as Core Data) |
/// | `binaryData` | `Data` | BLOB |
/// | `uuid` | `UUID` | BLOB of 16 bytes |
/// | `uri` | `URL` | TEXT (absolute string) |
/// | `transformable` | any value its transformer handles | BLOB from the named ``AttributeValueTransformer`` |
/// | `undefined` | any value | transient attributes only |
/// | `objectID` | `ManagedObjectID` | expressions and fetched properties only |
public enum AttributeType: String, Sendable, Codable, CaseIterable, Hashable {
    case undefined
    case integer16
    case integer32
    case integer64
    case decimal
    case double
    case float
    case string
    case boolean
    case date
    case binaryData
    case uuid
    case uri
    case transformable
    case objectID

    /// Whether values are integers (`integer16`, `integer32`, `integer64`).
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// Whether values are numbers of any kind (integers, decimal, double, float).
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }

    /// The range of an integer type; `nil` for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Whether an attribute of this type can be stored.
    var isStorable: Bool { self != .undefined && self != .objectID }
}
