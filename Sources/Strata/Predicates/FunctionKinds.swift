/// The aggregates and scalar functions of the predicate language, by kind (what binding
/// resolves a function name to, and what both engines apply).

/// Aggregates over a to-many relationship.
enum BoundAggregate: String {
    case count
    case sum
    case avg
    case min
    case max
}

extension BoundAggregate {
    /// Aggregates by Core Data's function names.
    static let byFunctionName: [String: BoundAggregate] = ["count:": .count, "sum:": .sum, "average:": .avg, "min:": .min, "max:": .max]
}

/// Functions that keep their meaning in both engines.
enum BoundFunction: Equatable {
    case add, subtract, multiply, divide, modulus, power
    case abs, floor, ceiling, trunc, sqrt, exp, ln, log
    case lowercase, uppercase, length

    /// Functions by Core Data's names.
    static let byName: [String: BoundFunction] = [
        "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
        "modulus:by:": .modulus, "raise:toPower:": .power, "abs:": .abs, "floor:": .floor, "ceiling:": .ceiling,
        "trunc:": .trunc, "sqrt:": .sqrt, "exp:": .exp, "ln:": .ln, "log:": .log, "lowercase:": .lowercase,
        "uppercase:": .uppercase, "length:": .length,
    ]
}
