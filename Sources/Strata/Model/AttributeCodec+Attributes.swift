import Foundation

/// Converting an attribute's Swift values to and from their stored form (the attribute-specific
/// part of ``AttributeCodec``: types, value transformers).
extension AttributeCodec {
    /// The stored form of `value` for `attribute`, or why it cannot be stored.
    /// Integer range checks for `integer16`/`integer32` happen at save, not here: the value is
    /// kept as is so the save can report it, never wrapped.
    static func encode(_ value: Any?, for attribute: AttributeDescription) -> Result<StoredValue, ValueProblem> {
        guard let value else { return .success(.null) }
        switch attribute.type {
        case .transformable, .undefined, .objectID:
            // A transformer gets the value itself, never an Optional around it.
            guard let unwrapped = unwrapOptional(value) else { return .success(.null) }
            return encode(unwrapped: unwrapped, for: attribute)
        default:
            // The casts below see through an Optional around the value, so the value is tried
            // as given: looking for an Optional first is a protocol cast, the most expensive
            // step of a batch insert's conversion. Only a value that does not convert is
            // unwrapped and tried again (nil inside an Optional is stored as nil; a wrong
            // type's message names the type inside).
            let result = encode(unwrapped: value, for: attribute)
            if case .failure = result, let optional = value as? OptionalUnwrapping {
                guard let unwrapped = optional.unwrappedValue else { return .success(.null) }
                return encode(unwrapped: unwrapped, for: attribute)
            }
            return result
        }
    }

    /// ``encode(_:for:)`` of a value that is not nil.
    private static func encode(unwrapped value: Any, for attribute: AttributeDescription) -> Result<StoredValue, ValueProblem> {
        let type = attribute.type
        func wrongType() -> Result<StoredValue, ValueProblem> {
            .failure(
                ValueProblem(
                    code: StrataError.Code.managedObjectValidation,
                    message: "A value of type \(Swift.type(of: value)) cannot be stored in \(entityName(attribute)).\(attribute.name), an attribute of type \(type.rawValue)"))
        }
        switch type {
        case .integer16, .integer32, .integer64:
            switch integerValue(value) {
            case .some(.exact(let int)): return .success(.integer(int))
            case .some(.tooLarge):
                return .failure(ValueProblem(code: StrataError.Code.validationNumberTooLarge, message: "\(value) is too large for \(entityName(attribute)).\(attribute.name) (\(type.rawValue))"))
            case .some(.tooSmall):
                return .failure(ValueProblem(code: StrataError.Code.validationNumberTooSmall, message: "\(value) is too small for \(entityName(attribute)).\(attribute.name) (\(type.rawValue))"))
            case .some(.fractional):
                return .failure(
                    ValueProblem(
                        code: StrataError.Code.managedObjectValidation, message: "\(value) has a fractional part and cannot be stored in \(entityName(attribute)).\(attribute.name) (\(type.rawValue))")
                )
            case .none: return wrongType()
            }
        case .double, .float:
            guard var double = doubleValue(value) else { return wrongType() }
            if type == .float { double = Double(Float(double)) }
            return .success(storedDouble(double))
        case .decimal:
            guard let decimal = decimalValue(value) else { return wrongType() }
            return .success(.text(DecimalText.canonical(decimal)))
        case .string:
            if let string = value as? String { return .success(.text(string)) }
            if let substring = value as? Substring { return .success(.text(String(substring))) }
            if let string = value as? NSString { return .success(.text(string as String)) }
            return wrongType()
        case .boolean:
            if let bool = value as? Bool { return .success(.integer(bool ? 1 : 0)) }
            if case .some(.exact(let int)) = integerValue(value), int == 0 || int == 1 { return .success(.integer(int)) }
            return wrongType()
        case .date:
            if let date = value as? Date { return .success(.real(date.timeIntervalSinceReferenceDate)) }
            if let date = value as? NSDate { return .success(.real(date.timeIntervalSinceReferenceDate)) }
            return wrongType()
        case .binaryData:
            if let data = value as? Data { return .success(.blob(data)) }
            if let bytes = value as? [UInt8] { return .success(.blob(Data(bytes))) }
            if let data = value as? NSData { return .success(.blob(data as Data)) }
            return wrongType()
        case .uuid:
            if let uuid = value as? UUID { return .success(.blob(uuidData(uuid))) }
            if let uuid = value as? NSUUID { return .success(.blob(uuidData(uuid as UUID))) }
            return wrongType()
        case .uri:
            if let url = value as? URL { return .success(.text(url.absoluteString)) }
            return wrongType()
        case .transformable:
            let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            guard let transformer = AttributeValueTransformers.transformer(forName: name) else {
                return .failure(
                    ValueProblem(
                        code: StrataError.Code.managedObjectValidation, message: "No value transformer is registered under the name '\(name)' used by \(entityName(attribute)).\(attribute.name)"))
            }
            do {
                return .success(.blob(try transformer.transformedValue(value)))
            } catch let error as StrataError {
                return .failure(ValueProblem(code: error.code, message: "\(entityName(attribute)).\(attribute.name): \(error.message)"))
            } catch {
                return .failure(ValueProblem(code: StrataError.Code.managedObjectValidation, message: "\(entityName(attribute)).\(attribute.name): the transformer '\(name)' failed: \(error)"))
            }
        case .undefined, .objectID:
            return wrongType()
        }
    }

    /// The Swift value of a stored value. Values that do not decode (a damaged row written by
    /// another program) come back as `nil` rather than trapping.
    static func decode(_ stored: StoredValue, for attribute: AttributeDescription) -> Any? {
        if attribute.type == .transformable { return decodeTransformable(stored, for: attribute) }
        return decode(stored, type: attribute.type)
    }

    /// ``decode(_:for:)`` of an attribute of `type`, which is not `.transformable` (only a
    /// transformable attribute needs its description: for its transformer). Key-value coding
    /// reads the type from the entity's layout, so a read does not retain the description.
    static func decode(_ stored: StoredValue, type: AttributeType) -> Any? {
        switch (type, stored) {
        case (_, .null): return nil
        case (.integer16, .integer(let v)): return Int16(truncatingIfNeeded: v)
        case (.integer32, .integer(let v)): return Int32(truncatingIfNeeded: v)
        case (.integer64, .integer(let v)): return v
        case (.integer16, .real(let v)): return Int16(exactly: v.rounded(.towardZero)) ?? 0
        case (.integer32, .real(let v)): return Int32(exactly: v.rounded(.towardZero)) ?? 0
        case (.integer64, .real(let v)): return Int64(exactly: v.rounded(.towardZero)) ?? 0
        case (.double, _): return doubleFromStored(stored)
        case (.float, _): return doubleFromStored(stored).map { Float($0) }
        // `Decimal(string:)` does not read "NaN", the text a NaN is stored as (DecimalText).
        case (.decimal, .text(let text)): return text == "NaN" ? Decimal.nan : Decimal(string: text, locale: DecimalText.posix)
        case (.decimal, .integer(let v)): return Decimal(v)
        // Not `Decimal(v)`: it traps on an infinity (a REAL column holding 9e999).
        case (.decimal, .real(let v)): return decimalValue(v)
        case (.string, .text(let text)): return text
        case (.string, .integer(let v)): return String(v)
        case (.string, .real(let v)): return String(v)
        case (.boolean, .integer(let v)): return v != 0
        case (.date, .real(let v)): return Date(timeIntervalSinceReferenceDate: v)
        case (.date, .integer(let v)): return Date(timeIntervalSinceReferenceDate: Double(v))
        case (.binaryData, .blob(let data)): return data
        case (.binaryData, .text(let text)): return Data(text.utf8)
        case (.uuid, .blob(let data)) where data.count == 16: return uuid(from: data)
        case (.uuid, .text(let text)): return UUID(uuidString: text)
        case (.uri, .text(let text)): return URL(string: text)
        default: return nil
        }
    }

    /// The value a transformable attribute's transformer makes of its stored data.
    private static func decodeTransformable(_ stored: StoredValue, for attribute: AttributeDescription) -> Any? {
        guard case .blob(let data) = stored else { return nil }
        let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
        return try? AttributeValueTransformers.transformer(forName: name)?.reverseTransformedValue(data)
    }

    private static func entityName(_ attribute: AttributeDescription) -> String {
        attribute.entity?.name ?? "?"
    }
}
