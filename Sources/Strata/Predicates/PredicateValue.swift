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
        // A value of a common type is no optional: it needs no unwrapping (a protocol check).
        if let value, let common = Self.common(value) {
            self = common
            return
        }
        guard let value = AttributeCodec.unwrapOptional(value) else {
            self = .null
            return
        }
        guard let converted = Self.common(value) ?? Self.general(value) else { return nil }
        self = converted
    }

    /// The conversion of any supported (non-optional) value, by a chain of casts.
    static func general(_ value: Any) -> PredicateValue? {
        switch value {
        case is NSNull: return .null
        case let v as PredicateValue: return v
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Decimal: return .decimal(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as UUID: return .uuid(v)
        case let v as URL: return .url(v)
        case let v as ManagedObjectID: return .objectID(v)
        case let v as any KeyValueReadable: return .objectID(v.objectID)
        case let v as [Any]:
            var items: [PredicateValue] = []
            for item in v {
                guard let converted = PredicateValue(any: item) else { return nil }
                items.append(converted)
            }
            return .array(items)
        case let v as any Collection:
            var items: [PredicateValue] = []
            for item in v {
                guard let converted = PredicateValue(any: item) else { return nil }
                items.append(converted)
            }
            // Sets have no order: sort for a stable description.
            if !(value is [Any]) { items.sort { $0.sortKey < $1.sortKey } }
            return .array(items)
        default:
            if case .some(.exact(let int)) = AttributeCodec.integerValue(value) { return .integer(int) }
            return AttributeCodec.doubleValue(value).map { .double($0) }
        }
    }

    /// The conversion of the commonest argument types (`String`, `Int`, `Int64`, `Int32`,
    /// `Double`, `Bool`, `NSNumber`), chosen by exact type: the result the general `switch` of
    /// ``init(any:)`` gives them, without its chain of failing bridging casts, which cost more
    /// than the rest of a one-row fetch's parse. An `NSNumber` keeps Foundation's bridging (a
    /// 0 or 1 is a `Bool`, an exactly representable value a `Double`, else an integer);
    /// `NSDecimalNumber` and every other type take the general path. `nil` when the type is
    /// not one of these.
    static func common(_ value: Any) -> PredicateValue? {
        let type = type(of: value)
        if type == String.self, let v = value as? String { return .string(v) }
        if type == Int.self, let v = value as? Int { return .integer(Int64(v)) }
        if type == Int64.self, let v = value as? Int64 { return .integer(v) }
        if type == Int32.self, let v = value as? Int32 { return .integer(Int64(v)) }
        if type == Double.self, let v = value as? Double { return .double(v) }
        if type == Bool.self, let v = value as? Bool { return .bool(v) }
        guard type is NSNumber.Type, !(type is NSDecimalNumber.Type), let number = value as? NSNumber else { return nil }
        // Foundation bridges an NSNumber to `Bool` when it equals 0 or 1, by comparing it with
        // new NSNumbers; a number whose value is neither cannot bridge, so it skips the test.
        let double = number.doubleValue
        if double == 0 || double == 1, let v = number as? Bool { return .bool(v) }
        if let v = number as? Double { return .double(v) }
        if let v = number as? Float { return .double(Double(v)) }
        // No cast of the general chain between `Float` and its default takes an NSNumber.
        if case .some(.exact(let int)) = AttributeCodec.integerValue(number) { return .integer(int) }
        return AttributeCodec.doubleValue(number).map { .double($0) }
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
