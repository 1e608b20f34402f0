import Foundation

/// Arithmetic with SQLite's rules, so constant folding, in-memory evaluation and SQL agree:
/// integer + - * stay integers and turn into doubles on overflow; `/` always gives a double
/// (Core Data's `divide:by:`); division by zero gives nil.
enum NumericFunctions {
    typealias Number = DynamicEvaluator.Number

    static func double(_ number: Number) -> Double {
        switch number {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        }
    }

    static func apply(_ name: String, _ args: [Number]) throws -> PredicateValue? {
        func integerOp(_ op: (Int64, Int64) -> (Int64, Bool), _ doubleOp: (Double, Double) -> Double) -> PredicateValue {
            if case .integer(let a) = args[0], case .integer(let b) = args[1] {
                let (result, overflow) = op(a, b)
                if !overflow { return .integer(result) }
            }
            if case .decimal = args[0] { return .decimal(decimalOp(doubleOp)) }
            if case .decimal = args[1] { return .decimal(decimalOp(doubleOp)) }
            return .double(doubleOp(double(args[0]), double(args[1])))
        }
        func decimalOp(_ doubleOp: (Double, Double) -> Double) -> Decimal {
            let a = DynamicEvaluator.decimal(args[0])
            let b = DynamicEvaluator.decimal(args[1])
            switch name {
            case "add:to:": return a + b
            case "from:subtract:": return a - b
            case "multiply:by:": return a * b
            default: return AttributeCodec.decimalValue(doubleOp(double(args[0]), double(args[1]))) ?? 0
            }
        }
        switch (name, args.count) {
        case ("add:to:", 2): return integerOp({ $0.addingReportingOverflow($1) }, +)
        case ("from:subtract:", 2): return integerOp({ $0.subtractingReportingOverflow($1) }, -)
        case ("multiply:by:", 2): return integerOp({ $0.multipliedReportingOverflow(by: $1) }, *)
        case ("divide:by:", 2):
            let divisor = double(args[1])
            return divisor == 0 ? .null : .double(double(args[0]) / divisor)
        case ("modulus:by:", 2):
            if case .integer(let a) = args[0], case .integer(let b) = args[1] {
                return b == 0 ? .null : .integer(b == -1 ? 0 : a % b)
            }
            let divisor = double(args[1])
            return divisor == 0 ? .null : .double(fmod(double(args[0]), divisor))
        case ("raise:toPower:", 2): return .double(pow(double(args[0]), double(args[1])))
        case ("abs:", 1):
            if case .integer(let v) = args[0] { return v == Int64.min ? .double(-Double(v)) : .integer(abs(v)) }
            return .double(Swift.abs(double(args[0])))
        case ("floor:", 1):
            if case .integer = args[0] { return args[0].predicateValue }
            return .double(Foundation.floor(double(args[0])))
        case ("ceiling:", 1):
            if case .integer = args[0] { return args[0].predicateValue }
            return .double(Foundation.ceil(double(args[0])))
        case ("trunc:", 1):
            if case .integer = args[0] { return args[0].predicateValue }
            return .double(Foundation.trunc(double(args[0])))
        case ("sqrt:", 1):
            let v = double(args[0])
            return v < 0 ? .null : .double(Foundation.sqrt(v))
        case ("exp:", 1): return .double(Foundation.exp(double(args[0])))
        case ("ln:", 1):
            let v = double(args[0])
            return v <= 0 ? .null : .double(Foundation.log(v))
        case ("log:", 1):
            let v = double(args[0])
            return v <= 0 ? .null : .double(Foundation.log10(v))
        default:
            return nil
        }
    }
}

extension DynamicEvaluator.Number {
    var predicateValue: PredicateValue {
        switch self {
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        }
    }
}
