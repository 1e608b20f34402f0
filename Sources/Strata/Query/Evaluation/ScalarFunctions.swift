import Foundation
import StrataSQLite

/// The scalar functions of bound expressions, on stored values, with SQLite's arithmetic rules.
/// The SQLite store registers the same code as SQL functions, so both engines compute the same.
enum ScalarFunctions {
    /// Numeric view of a stored value, as SQLite converts operands of arithmetic: text becomes
    /// the number its prefix spells (or 0), NULL stays NULL.
    static func numeric(_ value: SQLiteValue) -> SQLiteValue {
        switch value {
        case .integer, .real, .null: return value
        case .text(let text): return numericPrefix(text)
        case .blob(let data): return numericPrefix(String(decoding: data, as: UTF8.self))
        }
    }

    static func numericPrefix(_ text: String) -> SQLiteValue {
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

    static func double(_ value: SQLiteValue) -> Double? {
        switch numeric(value) {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return nil
        }
    }

    /// Applies a function with SQLite's rules: NULL in, NULL out; integer + - * stay integers
    /// unless they overflow (then real); `/` is real division; division by zero is NULL.
    static func apply(_ function: BoundFunction, _ args: [SQLiteValue]) -> SQLiteValue {
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
        let values = args.map(numeric)
        if values.contains(where: \.isNull) { return .null }
        func real(_ v: SQLiteValue) -> Double {
            switch v {
            case .integer(let i): return Double(i)
            case .real(let d): return d
            default: return 0
            }
        }
        func arithmetic(_ intOp: (Int64, Int64) -> (Int64, Bool), _ realOp: (Double, Double) -> Double) -> SQLiteValue {
            guard values.count == 2 else { return .null }
            if case .integer(let a) = values[0], case .integer(let b) = values[1] {
                let (result, overflow) = intOp(a, b)
                if !overflow { return .integer(result) }
            }
            return .real(realOp(real(values[0]), real(values[1])))
        }
        switch function {
        case .add: return arithmetic({ $0.addingReportingOverflow($1) }, +)
        case .subtract: return arithmetic({ $0.subtractingReportingOverflow($1) }, -)
        case .multiply: return arithmetic({ $0.multipliedReportingOverflow(by: $1) }, *)
        case .divide:
            guard values.count == 2, real(values[1]) != 0 else { return .null }
            return .real(real(values[0]) / real(values[1]))
        case .modulus:
            guard values.count == 2 else { return .null }
            if case .integer(let a) = values[0], case .integer(let b) = values[1] {
                if b == 0 { return .null }
                return .integer(b == -1 ? 0 : a % b)
            }
            let b = real(values[1])
            return b == 0 ? .null : .real(fmod(real(values[0]), b))
        case .power: return values.count == 2 ? .real(pow(real(values[0]), real(values[1]))) : .null
        case .abs:
            if case .integer(let v) = values[0] { return v == Int64.min ? .real(-Double(v)) : .integer(Swift.abs(v)) }
            return .real(Swift.abs(real(values[0])))
        case .floor:
            if case .integer = values[0] { return values[0] }
            return .real(Foundation.floor(real(values[0])))
        case .ceiling:
            if case .integer = values[0] { return values[0] }
            return .real(Foundation.ceil(real(values[0])))
        case .trunc:
            if case .integer = values[0] { return values[0] }
            return .real(Foundation.trunc(real(values[0])))
        case .sqrt:
            let v = real(values[0])
            return v < 0 ? .null : .real(Foundation.sqrt(v))
        case .exp: return .real(Foundation.exp(real(values[0])))
        case .ln:
            let v = real(values[0])
            return v <= 0 ? .null : .real(Foundation.log(v))
        case .log:
            let v = real(values[0])
            return v <= 0 ? .null : .real(Foundation.log10(v))
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

/// Aggregates over to-many relationships, with SQLite's rules (NULLs skipped; the sum of
/// nothing is 0; the average, minimum and maximum of nothing are NULL; integer sums that
/// overflow are an error, as in SQLite).
enum AggregateFunctions {
    static func apply(_ aggregate: BoundAggregate, _ values: [SQLiteValue], collation: ValueCollation) throws -> SQLiteValue {
        switch aggregate {
        case .count:
            return .integer(Int64(values.count))
        case .sum, .avg:
            var integerSum: Int64 = 0
            var realSum = 0.0
            var allIntegers = true
            for value in values {
                switch ScalarFunctions.numeric(value) {
                case .integer(let v):
                    if allIntegers {
                        let (sum, overflow) = integerSum.addingReportingOverflow(v)
                        if overflow {
                            if aggregate == .sum {
                                throw StrataError(code: StrataError.Code.coreData, message: "integer overflow in @sum")
                            }
                        } else {
                            integerSum = sum
                        }
                    }
                    realSum += Double(v)
                case .real(let v):
                    allIntegers = false
                    realSum += v
                default:
                    break
                }
            }
            if aggregate == .sum { return allIntegers ? .integer(integerSum) : .real(realSum) }
            guard !values.isEmpty else { return .null }
            return .real(realSum / Double(values.count))
        case .min, .max:
            var best: SQLiteValue?
            for value in values {
                guard let current = best else {
                    best = value
                    continue
                }
                let order = ValueOrdering.compare(value, current, collation: collation)
                if (aggregate == .min && order < 0) || (aggregate == .max && order > 0) { best = value }
            }
            return best ?? .null
        }
    }
}
