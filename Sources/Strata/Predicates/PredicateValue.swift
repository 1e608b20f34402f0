import Foundation

/// A constant in a predicate or expression: the values a format string or a format argument
/// can carry. `Sendable`, so predicates can be shared between queues.
public enum PredicateValue: Hashable, Sendable {
    /// `nil` / `NULL`.
    case null
    /// `YES` / `NO` / `TRUE` / `FALSE`, or a `Bool` argument.
    case bool(Bool)
    /// An integer literal or argument.
    case integer(Int64)
    /// A floating-point literal or argument.
    case double(Double)
    /// A `Decimal` argument.
    case decimal(Decimal)
    /// A quoted string or `String` argument.
    case string(String)
    /// A `Date` argument (or `CAST(…, "NSDate")`).
    case date(Date)
    /// A `Data` argument.
    case data(Data)
    /// A `UUID` argument.
    case uuid(UUID)
    /// A `URL` argument.
    case url(URL)
    /// A managed object or object ID argument.
    case objectID(ManagedObjectID)
    /// An object ID known only by its URI (a parsed `CAST("x-coredata://…", "NSManagedObjectID")`).
    case objectURI(URL)
    /// A collection argument.
    case array([PredicateValue])

    /// Converts a Swift value (a format argument or a substitution variable) to a constant.
    /// Managed objects become their IDs. Returns `nil` for values of an unsupported type.
    init?(any value: Any?) {
        guard let value = AttributeCodec.unwrapOptional(value) else {
            self = .null
            return
        }
        switch value {
        case is NSNull: self = .null
        case let v as PredicateValue: self = v
        case let v as Bool: self = .bool(v)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Decimal: self = .decimal(v)
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .url(v)
        case let v as ManagedObjectID: self = .objectID(v)
        case let v as any KeyValueReadable: self = .objectID(v.objectID)
        case let v as [Any]:
            var items: [PredicateValue] = []
            for item in v {
                guard let converted = PredicateValue(any: item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let v as any Collection:
            var items: [PredicateValue] = []
            for item in v {
                guard let converted = PredicateValue(any: item) else { return nil }
                items.append(converted)
            }
            // Sets have no order: sort for a stable description.
            if !(value is [Any]) { items.sort { $0.sortKey < $1.sortKey } }
            self = .array(items)
        default:
            if case .some(.exact(let int)) = AttributeCodec.integerValue(value) {
                self = .integer(int)
            } else if let double = AttributeCodec.doubleValue(value) {
                self = .double(double)
            } else {
                return nil
            }
        }
    }

    /// The value as a plain Swift value (for `ObjectExpression.constantValue`).
    var anyValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let v): return v
        case .integer(let v): return v
        case .double(let v): return v
        case .decimal(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .url(let v): return v
        case .objectID(let v): return v
        case .objectURI(let v): return v
        case .array(let v): return v.map(\.anyValue)
        }
    }

    private var sortKey: String { PredicateFormatter.literal(self) }

    /// Equality as predicates compare constants: strings by their UTF-8 bytes, NaN equal to
    /// NaN, an object ID equal to its URI.
    public static func == (lhs: PredicateValue, rhs: PredicateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.objectID(let a), .objectID(let b)): return a == b
        case (.objectURI(let a), .objectURI(let b)): return a == b
        case (.objectID(let a), .objectURI(let b)), (.objectURI(let b), .objectID(let a)): return a.uriRepresentation() == b
        case (.array(let a), .array(let b)): return a == b
        default: return false
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(v)
        case .integer(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v.isNaN ? 0 : v)
        case .decimal(let v): hasher.combine(v)
        case .string(let v): hasher.combine(Array(v.utf8))
        case .date(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .url(let v): hasher.combine(v)
        case .objectID(let v): hasher.combine(v.uriRepresentation())
        case .objectURI(let v): hasher.combine(v)
        case .array(let v): hasher.combine(v)
        }
    }
}
