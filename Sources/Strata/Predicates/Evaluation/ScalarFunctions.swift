import Foundation

/// The scalar functions of bound expressions, on stored values, with SQLite's arithmetic rules.
/// The SQLite store registers the same code as SQL functions, so both engines compute the same.
enum ScalarFunctions {
    /// Numeric view of a stored value, as SQLite converts operands of arithmetic: text becomes
    /// the number its prefix spells (or 0), NULL stays NULL.
    /// The text `NaN` (how a NaN double is stored) is NaN.
    static func numeric(_ value: StoredValue) -> StoredValue {
        switch value {
        case .integer, .real, .null: return value
        case .text(let text): return text == "NaN" ? .real(.nan) : numericPrefix(text)
        case .blob(let data): return numericPrefix(String(decoding: data, as: UTF8.self))
        }
    }

    static func numericPrefix(_ text: String) -> StoredValue {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count && scalars[index].properties.isWhitespace { index += 1 }
        var literal = ""
        if index < scalars.count && (scalars[index] == "+" || scalars[index] == "-") {
            literal.unicodeScalars.append(scalars[index])
            index += 1
        }
        var digits = 0
        var isReal = false
        while index < scalars.count && scalars[index].isASCIIDigit {
            literal.unicodeScalars.append(scalars[index])
            index += 1
            digits += 1
        }
        if index < scalars.count && scalars[index] == "." {
            isReal = true
            literal.unicodeScalars.append(".")
            index += 1
            while index < scalars.count && scalars[index].isASCIIDigit {
                literal.unicodeScalars.append(scalars[index])
                index += 1
                digits += 1
            }
        }
        guard digits > 0 else { return .integer(0) }
        if index < scalars.count && (scalars[index] == "e" || scalars[index] == "E") {
            var exponent = "e"
            var cursor = index + 1
            if cursor < scalars.count && (scalars[cursor] == "+" || scalars[cursor] == "-") {
                exponent.unicodeScalars.append(scalars[cursor])
                cursor += 1
            }
            var exponentDigits = 0
            while cursor < scalars.count && scalars[cursor].isASCIIDigit {
                exponent.unicodeScalars.append(scalars[cursor])
                cursor += 1
                exponentDigits += 1
            }
            if exponentDigits > 0 {
                isReal = true
                literal += exponent
            }
        }
        if !isReal, let int = Int64(literal) { return .integer(int) }
        return .real(Double(literal) ?? 0)
    }

    /// A numeric stored value as a double (0 for anything else).
    private static func real(_ value: StoredValue) -> Double {
        switch value {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return 0
        }
    }

    static func double(_ value: StoredValue) -> Double? {
        switch numeric(value) {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return nil
        }
    }

    /// Applies a function with SQLite's rules: NULL in, NULL out; integer + - * stay integers
    /// unless they overflow (then real); `/` is real division; division by zero is NULL. A NaN
    /// result is returned in stored form (the text `NaN`): SQLite would turn a NaN real into
    /// NULL, and both engines must see the same value.
    static func apply(_ function: BoundFunction, _ args: [StoredValue]) -> StoredValue {
        let result = compute(function, args)
        if case .real(let v) = result, v.isNaN { return AttributeCodec.storedDouble(v) }
        return result
    }

    private static func compute(_ function: BoundFunction, _ args: [StoredValue]) -> StoredValue {
        switch function {
        case .lowercase, .uppercase, .length:
            guard let first = args.first, case .text(let text) = first else {
                if let value = args.first, !value.isNull, function == .length { return .integer(Int64(String(describing: value).unicodeScalars.count)) }
                return .null
            }
            switch function {
            case .lowercase: return .text(text.lowercased())
            case .uppercase: return .text(text.uppercased())
            default: return .integer(Int64(text.unicodeScalars.count))
            }
        default:
            break
        }
        // Numeric functions: one or two numeric operands (checked: the binder fixes the arity).
        guard let first = args.first else { return .null }
        let x = numeric(first)
        let y = args.count > 1 ? numeric(args[1]) : .null
        if x.isNull || (args.count > 1 && y.isNull) { return .null }
        let a = real(x)
        let b = real(y)
        switch function {
        case .add, .subtract, .multiply:
            guard args.count == 2 else { return .null }
            if case .integer(let i) = x, case .integer(let j) = y {
                let (result, overflow): (Int64, Bool)
                switch function {
                case .add: (result, overflow) = i.addingReportingOverflow(j)
                case .subtract: (result, overflow) = i.subtractingReportingOverflow(j)
                default: (result, overflow) = i.multipliedReportingOverflow(by: j)
                }
                if !overflow { return .integer(result) }
            }
            switch function {
            case .add: return .real(a + b)
            case .subtract: return .real(a - b)
            default: return .real(a * b)
            }
        case .divide:
            guard args.count == 2, b != 0 else { return .null }
            return .real(a / b)
        case .modulus:
            guard args.count == 2 else { return .null }
            if case .integer(let i) = x, case .integer(let j) = y {
                if j == 0 { return .null }
                return .integer(j == -1 ? 0 : i % j)
            }
            return b == 0 ? .null : .real(fmod(a, b))
        case .power: return args.count == 2 ? .real(pow(a, b)) : .null
        case .abs:
            if case .integer(let v) = x { return v == Int64.min ? .real(-Double(v)) : .integer(Swift.abs(v)) }
            return .real(Swift.abs(a))
        case .floor:
            if case .integer = x { return x }
            return .real(Foundation.floor(a))
        case .ceiling:
            if case .integer = x { return x }
            return .real(Foundation.ceil(a))
        case .trunc:
            if case .integer = x { return x }
            return .real(Foundation.trunc(a))
        case .sqrt: return a < 0 ? .null : .real(Foundation.sqrt(a))
        case .exp: return .real(Foundation.exp(a))
        case .ln: return a <= 0 ? .null : .real(Foundation.log(a))
        case .log: return a <= 0 ? .null : .real(Foundation.log10(a))
        case .lowercase, .uppercase, .length:
            return .null
        }
    }

    /// The string operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`).
    static func match(_ op: ComparisonOperator, _ text: String, _ pattern: String, _ options: ComparisonOptions) throws -> Bool {
        switch op {
        case .beginsWith: return StringMatching.beginsWith(text, pattern, options)
        case .endsWith: return StringMatching.endsWith(text, pattern, options)
        case .contains, .in: return StringMatching.contains(text, pattern, options)
        case .like: return StringMatching.like(text, pattern, options)
        case .matches: return try StringMatching.matches(text, pattern, options)
        default: return false
        }
    }
}
