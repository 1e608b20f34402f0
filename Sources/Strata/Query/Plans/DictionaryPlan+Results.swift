import Foundation

/// Turning result rows into the `NSDictionary`s a dictionary fetch returns.
extension DictionaryPlan {
    /// One result as a dictionary of its visible columns; a nil value leaves its key out (as
    /// in Core Data, an `NSDictionary` holds no nil).
    func dictionary(from values: [RowEvaluator.Operand]) -> NSDictionary {
        var result: [String: Any] = [:]
        for (index, column) in columns.enumerated() where column.isVisible && index < values.count {
            if let value = column.swiftValue(values[index]) { result[column.name] = value }
        }
        return NSDictionary(dictionary: result)
    }
}

extension ResultColumn {
    /// The dictionary value of a stored result: numbers as `NSNumber` (`NSDecimalNumber` for
    /// decimals), strings, dates, data, UUIDs and URLs as themselves, objects as their
    /// `ManagedObjectID`; nil for NULL.
    func swiftValue(_ value: RowEvaluator.Operand) -> Any? {
        switch value {
        case .object(let id): return id
        case .list: return nil
        case .value(let stored):
            if stored.isNull { return nil }
            if let decoding { return Self.bridged(AttributeCodec.decode(stored, for: decoding)) }
            return Self.bridged(Self.natural(stored, kind: kind))
        }
    }

    /// A stored value as the Swift value of its kind.
    private static func natural(_ stored: StoredValue, kind: ValueKind) -> Any? {
        switch (kind, stored) {
        case (.boolean, .integer(let v)): return v != 0
        case (.decimal, .text(let text)): return Decimal(string: text, locale: DecimalText.posix)
        case (.decimal, .integer(let v)): return Decimal(v)
        case (.double, .text(let text)): return AttributeCodec.doubleFromStored(.text(text))
        case (.date, .real(let v)): return Date(timeIntervalSinceReferenceDate: v)
        case (.date, .integer(let v)): return Date(timeIntervalSinceReferenceDate: Double(v))
        case (.uuid, .blob(let data)) where data.count == 16: return AttributeCodec.uuid(from: data)
        case (.uri, .text(let text)): return URL(string: text)
        case (_, .integer(let v)): return v
        case (_, .real(let v)): return v
        case (_, .text(let v)): return v
        case (_, .blob(let v)): return v
        case (_, .null): return nil
        }
    }

    /// Numbers as `NSNumber` / `NSDecimalNumber`, as Core Data's dictionaries hold them.
    private static func bridged(_ value: Any?) -> Any? {
        switch value {
        case let v as Int16: return NSNumber(value: v)
        case let v as Int32: return NSNumber(value: v)
        case let v as Int64: return NSNumber(value: v)
        case let v as Bool: return NSNumber(value: v)
        case let v as Double: return NSNumber(value: v)
        case let v as Float: return NSNumber(value: v)
        case let v as Decimal: return NSDecimalNumber(decimal: v)
        default: return value
        }
    }
}
