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
///
/// A `Sendable` value: use it on any thread.
public enum AttributeType: String, Sendable, Codable, CaseIterable, Hashable {
    /// Any value, unchecked; allowed for transient attributes only.
    case undefined
    /// An `Int16`, stored as an INTEGER and range-checked at save.
    case integer16
    /// An `Int32`, stored as an INTEGER and range-checked at save.
    case integer32
    /// An `Int64`, stored as an INTEGER.
    case integer64
    /// A `Decimal`, stored losslessly as TEXT and compared numerically.
    case decimal
    /// A `Double`, stored as a REAL (NaN and −0.0 kept).
    case double
    /// A `Float`, stored as a REAL.
    case float
    /// A `String`, stored as TEXT.
    case string
    /// A `Bool`, stored as the INTEGER 0 or 1.
    case boolean
    /// A `Date`, stored as a REAL: seconds since 2001-01-01, as Core Data stores it.
    case date
    /// A `Data`, stored as a BLOB (or in a file beside the store with external binary storage).
    case binaryData
    /// A `UUID`, stored as a BLOB of 16 bytes.
    case uuid
    /// A `URL`, stored as TEXT (its absolute string).
    case uri
    /// Any value its named ``AttributeValueTransformer`` handles, stored as the BLOB it makes.
    case transformable
    /// A ``ManagedObjectID``; for expressions and fetched properties only, never stored.
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

    /// The name of the Swift type of this type's values (`"Int16"`, `"Decimal"`, `"URL"`,
    /// `"ManagedObjectID"` …), as in the table above; `nil` for `transformable` (the
    /// transformer's type) and `undefined` (any value).
    public var valueTypeName: String? {
        switch self {
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .binaryData: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .objectID: return "ManagedObjectID"
        case .transformable, .undefined: return nil
        }
    }
}
