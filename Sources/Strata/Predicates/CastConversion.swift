import Foundation

/// Conversions of `CAST(constant, 'Type')`.
enum CastConversion {
    static func convert(_ value: PredicateValue, to type: String) -> PredicateValue? {
        switch (type, value) {
        case ("NSDate", .integer(let v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case ("NSDate", .double(let v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case ("NSDate", .date): return value
        case ("NSNumber", .string(let text)):
            if let int = Int64(text) { return .integer(int) }
            switch text.lowercased() {
            case "nan": return .double(.nan)
            case "inf", "+inf", "infinity": return .double(.infinity)
            case "-inf", "-infinity": return .double(-.infinity)
            default: return Double(text).map { .double($0) }
            }
        case ("NSNumber", .integer), ("NSNumber", .double): return value
        case ("NSDecimalNumber", .string(let text)): return Decimal(string: text, locale: DecimalText.posix).map { .decimal($0) }
        case ("NSDecimalNumber", .integer(let v)): return .decimal(Decimal(v))
        case ("NSDecimalNumber", .double(let v)): return Decimal(string: String(v), locale: DecimalText.posix).map { .decimal($0) }
        case ("NSString", .string): return value
        case ("NSString", .integer(let v)): return .string(String(v))
        case ("NSData", .string(let text)): return Data(base64Encoded: text).map { .data($0) }
        case ("NSUUID", .string(let text)), ("UUID", .string(let text)): return UUID(uuidString: text).map { .uuid($0) }
        case ("NSURL", .string(let text)), ("URL", .string(let text)): return URL(string: text).map { .url($0) }
        case ("NSManagedObjectID", .string(let text)): return URL(string: text).map { .objectURI($0) }
        default: return nil
        }
    }
}
