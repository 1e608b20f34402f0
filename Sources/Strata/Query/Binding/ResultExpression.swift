import Foundation

/// A column of a dictionary fetch, resolved: a value per object, a group-by key, an aggregate
/// over the objects of a group, or arithmetic over those. Both engines compute it from this one
/// form (`DictionarySQLCompiler` as SQL, `DictionaryEvaluator` in memory).
indirect enum ResultExpression {
    /// A value of each object (a non-aggregate fetch).
    case row(BoundExpression)
    /// The value of the group's key at an index of the plan's group keys.
    case groupKey(Int, ValueKind)
    /// An aggregate over the values of the group's objects (NULLs skipped).
    case aggregate(BoundAggregate, BoundExpression)
    /// A function of other columns.
    case function(BoundFunction, [ResultExpression])

    /// The kind of values the column holds.
    var kind: ValueKind {
        switch self {
        case .row(let expression): return expression.kind
        case .groupKey(_, let kind): return kind
        case .aggregate(let aggregate, let argument): return Self.kind(of: aggregate, over: argument.kind)
        case .function(let function, let args):
            switch function {
            case .lowercase, .uppercase: return .string
            case .length: return .integer
            case .divide, .sqrt, .exp, .ln, .log, .power: return .double
            default:
                let kinds = args.map(\.kind)
                if kinds.contains(.double) { return .double }
                if kinds.contains(.decimal) { return .decimal }
                return .integer
            }
        }
    }

    /// The kind of an aggregate's value over values of `argument`'s kind.
    static func kind(of aggregate: BoundAggregate, over argument: ValueKind) -> ValueKind {
        switch aggregate {
        case .count: return .integer
        case .sum: return argument == .decimal || argument == .double ? argument : .integer
        case .avg: return argument == .decimal ? .decimal : .double
        case .min, .max: return argument
        }
    }

    /// Whether the column aggregates over objects (directly or through a function).
    var isAggregate: Bool {
        switch self {
        case .row: return false
        case .groupKey: return true
        case .aggregate: return true
        case .function(_, let args): return args.contains(where: \.isAggregate)
        }
    }

    /// The collation values of `kind` are grouped, deduplicated and ordered with.
    static func collation(for kind: ValueKind) -> ValueCollation {
        kind == .decimal ? .decimal : .binary
    }
}

/// One key of a dictionary fetch's `propertiesToGroupBy`.
struct GroupKey {
    /// How the key was named (a key path, a property name, an expression's format), to match
    /// the properties to fetch that name it.
    var names: Set<String>
    var expression: BoundExpression
    var collation: ValueCollation
}

/// One column of a dictionary fetch's result rows.
struct ResultColumn {
    /// The key in the result dictionaries (for hidden columns, a name for messages only).
    var name: String
    var expression: ResultExpression
    /// How a stored value becomes the dictionary's value: decoded as this attribute.
    var decoding: AttributeDescription?
    /// Whether the column is a key of the result dictionaries (hidden columns serve
    /// `havingPredicate` and sorting).
    var isVisible: Bool

    var kind: ValueKind { expression.kind }
}

/// One `ORDER BY` term of a dictionary fetch.
struct ResultOrder {
    var expression: ResultExpression
    var collation: ValueCollation
    var ascending: Bool
}
