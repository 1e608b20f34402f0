import Foundation
import Strata

/// A predicate constant converted to the form of the attribute it is compared with, by the
/// rules of Strata's binder (an integer or a bool meets a double as a number, a date becomes
/// seconds since 2001-01-01, a UUID may be given as a string…). A value type.
enum PostgreSQLConstant: Equatable {
    /// nil.
    case null
    /// An integer (for integer, boolean and floating-point attributes, and `@count`).
    case integer(Int64)
    /// A double (NaN included: Strata keeps NaN apart from every number).
    case real(Double)
    /// A decimal number's text, for `numeric`.
    case decimal(String)
    /// Text (string and URI attributes).
    case text(String)
    /// A date, as seconds since 2001-01-01 (the column's `double precision`).
    case date(Double)
    /// Bytes (`bytea`).
    case bytes(Data)
    /// A UUID.
    case uuid(UUID)

    /// The largest magnitude below which every integer is a double exactly (2⁵³).
    static let exactIntegerLimit: Int64 = 1 << 53

    /// `value` in the form of an attribute of `type`, or nil when the binder would refuse it or
    /// the conversion is one this compiler does not reproduce exactly (a double compared with
    /// a decimal attribute, a decimal beyond ±2⁵³ compared with an integer).
    static func coerce(_ value: PredicateValue, to type: AttributeType) -> PostgreSQLConstant? {
        if case .null = value { return .null }
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean:
            switch value {
            case .integer(let v): return .integer(v)
            case .double(let v): return .real(v)
            case .bool(let v): return .integer(v ? 1 : 0)
            case .decimal(let v):
                guard !v.isNaN else { return nil }
                var whole = Decimal()
                var copy = v
                NSDecimalRound(&whole, &copy, 0, .plain)
                if whole != v { return .real(NSDecimalNumber(decimal: v).doubleValue) }
                guard let int = Int64(exactly: NSDecimalNumber(decimal: v).doubleValue), int.magnitude <= exactIntegerLimit.magnitude else { return nil }
                return .integer(int)
            default: return nil
            }
        case .decimal:
            switch value {
            case .integer(let v): return .decimal(String(v))
            case .decimal(let v): return v.isNaN ? nil : .decimal("\(v)")
            case .bool(let v): return .decimal(v ? "1" : "0")
            default: return nil
            }
        case .string:
            if case .string(let v) = value { return .text(v) }
            return nil
        case .uri:
            switch value {
            case .url(let v): return .text(v.absoluteString)
            case .string(let v): return .text(v)
            default: return nil
            }
        case .date:
            if case .date(let v) = value { return .date(v.timeIntervalSinceReferenceDate) }
            return nil
        case .binaryData:
            if case .data(let v) = value { return .bytes(v) }
            return nil
        case .uuid:
            switch value {
            case .uuid(let v): return .uuid(v)
            case .string(let v): return UUID(uuidString: v).map { .uuid($0) }
            default: return nil
            }
        case .transformable, .objectID, .undefined:
            return nil
        }
    }
}

/// An integer compared with a double, rewritten as a comparison of integers (exact, where
/// PostgreSQL would round the integer to a double).
enum PostgreSQLIntegerBound: Equatable {
    /// True for every non-nil value.
    case everyValue
    /// False for every value.
    case noValue
    /// True for every value, nil included (`!=` a double that is no integer).
    case always
    /// `x op bound`.
    case compare(ObjectPredicate.Operator, Int64)

    /// `x op c` for integers x and a double `c` that is not NaN: `x < c` is `x < ⌈c⌉`,
    /// `x <= c` is `x <= ⌊c⌋`, `x > c` is `x > ⌊c⌋`, `x >= c` is `x >= ⌈c⌉`; bounds beyond
    /// the 64-bit range are true or false for every value.
    static func make(_ op: ObjectPredicate.Operator, _ c: Double) -> PostgreSQLIntegerBound? {
        switch op {
        case .equalTo: return Int64(exactly: c).map { .compare(.equalTo, $0) } ?? .noValue
        case .notEqualTo: return Int64(exactly: c).map { .compare(.notEqualTo, $0) } ?? .always
        case .lessThan, .greaterThanOrEqualTo, .lessThanOrEqualTo, .greaterThan:
            let isUpper = op == .lessThan || op == .lessThanOrEqualTo
            let bound = (op == .lessThan || op == .greaterThanOrEqualTo) ? c.rounded(.up) : c.rounded(.down)
            guard let int = Int64(exactly: bound) else {
                // Above every Int64: "x < bound" holds for all; below every Int64: for none.
                return (bound > 0) == isUpper ? .everyValue : .noValue
            }
            return .compare(op, int)
        default:
            return nil
        }
    }
}
