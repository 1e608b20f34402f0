import Foundation

/// A predicate resolved against an entity: keys are properties, constants are in the stored form
/// of the attribute they meet, and every comparison knows its collation. Both the SQL compiler
/// and the in-memory row evaluator work from this one form, which is what keeps them in step.
indirect enum BoundPredicate {
    case constant(Bool)
    case and([BoundPredicate])
    case or([BoundPredicate])
    case not(BoundPredicate)
    case comparison(BoundComparison)
    /// `ANY` / `ALL` / `NONE` over the objects of a to-many relationship, each bound to
    /// `variable` while `body` is evaluated.
    case quantified(Quantifier, BoundCollection, variable: String, body: BoundPredicate)

    enum Quantifier {
        case any
        case all
        case none
    }
}

/// The objects of a to-many relationship reached through a path.
struct BoundCollection {
    var path: BoundPath
    var relationship: RelationshipDescription
    /// For SUBQUERY: only the elements matching this predicate (with `filterVariable` bound).
    var filter: (variable: String, predicate: BoundPredicate)?
    /// The relationship's to-many slot in the layout of the entity at the end of `path`.
    let slot: Int

    init(path: BoundPath, relationship: RelationshipDescription) {
        self.path = path
        self.relationship = relationship
        self.slot = PropertySlot.index(of: relationship, in: path.entity)
    }

    var destination: EntityDescription { relationship.destinationEntity ?? relationship.entity ?? path.entity }
}

/// Where a key path starts, and the to-one relationships it walks.
struct BoundPath {
    enum Base: Hashable {
        /// The object being fetched or evaluated.
        case root
        /// A quantifier or SUBQUERY variable.
        case variable(String)
    }

    var base: Base
    /// The entity at the base.
    var baseEntity: EntityDescription
    /// To-one relationships walked from the base, in order.
    var steps: [RelationshipDescription] = []
    /// The to-one slot of each step in the layout of the entity it starts from.
    var stepSlots: [Int] = []

    /// The entity at the end of the path.
    var entity: EntityDescription {
        steps.last.flatMap { $0.destinationEntity } ?? baseEntity
    }

    func appending(_ relationship: RelationshipDescription) -> BoundPath {
        var copy = self
        copy.stepSlots.append(PropertySlot.index(of: relationship, in: entity))
        copy.steps.append(relationship)
        return copy
    }
}

extension PropertySlot {
    /// The slot index of `property` in `entity`'s layout (-1 when it has none). An inherited
    /// property has the same index in every descendant (layouts list ancestors' properties
    /// first), so the index holds for rows of sub-entities too.
    static func index(of property: PropertyDescription, in entity: EntityDescription) -> Int {
        switch entity.layout.slot(forKey: property.name) {
        case .attribute(let index)?, .toOne(let index)?, .toMany(let index)?, .transient(let index)?, .fetched(let index)?: return index
        default: return -1
        }
    }
}

/// An operand, resolved.
indirect enum BoundExpression {
    /// A constant in stored form, with the kind of value it stands for.
    case constant(StoredValue, ValueKind)
    /// A list of constants (IN, BETWEEN).
    case list([BoundExpression])
    /// An attribute at the end of a path, with its stored slot in the layout of the path's entity.
    case attribute(BoundPath, AttributeDescription, slot: Int)
    /// The object at the end of a path (`SELF`, `manager`), compared by ID.
    case object(BoundPath)
    /// An object-ID constant.
    case objectConstant(ManagedObjectID?)
    /// `@count`, `@sum.x`, … over a to-many collection.
    case aggregate(BoundAggregate, BoundCollection, AttributeDescription?)
    /// A function of other operands.
    case function(BoundFunction, [BoundExpression])
    /// `TERNARY(predicate, a, b)`.
    case conditional(BoundPredicate, BoundExpression, BoundExpression)
    /// A column of a dictionary fetch's result row (in its `havingPredicate`).
    case resultColumn(Int, ValueKind)

    /// The kind of values this operand yields.
    var kind: ValueKind {
        switch self {
        case .constant(_, let kind): return kind
        case .list(let items): return items.first?.kind ?? .null
        case .attribute(_, let attribute, _): return ValueKind(attribute.type)
        case .object, .objectConstant: return .object
        case .aggregate(let aggregate, _, let attribute):
            switch aggregate {
            case .count: return .integer
            case .avg: return attribute?.type == .decimal ? .decimal : .double
            case .sum: return attribute.map { ValueKind($0.type) } ?? .integer
            case .min, .max: return attribute.map { ValueKind($0.type) } ?? .null
            }
        case .function(let function, let args):
            switch function {
            case .lowercase, .uppercase: return .string
            case .length: return .integer
            case .divide, .sqrt, .exp, .ln, .log, .power: return .double
            case .add, .subtract, .multiply, .modulus, .abs, .floor, .ceiling, .trunc:
                let kinds = args.map(\.kind)
                if kinds.contains(.double) { return .double }
                if kinds.contains(.decimal) { return .decimal }
                return function == .floor || function == .ceiling || function == .trunc ? (kinds.first ?? .integer) : .integer
            }
        case .conditional(_, let a, let b):
            // `a`'s kind read once: reading it twice made a chain of TERNARYs nested in their
            // first value cost 2^depth.
            let kind = a.kind
            return kind == .null ? b.kind : kind
        case .resultColumn(_, let kind): return kind
        }
    }
}

/// The kinds of values predicates compare.
enum ValueKind: Equatable {
    case null
    case integer
    case double
    case decimal
    case boolean
    case string
    case date
    case data
    case uuid
    case uri
    case transformable
    case object

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .double, .float: self = .double
        case .decimal: self = .decimal
        case .boolean: self = .boolean
        case .string: self = .string
        case .date: self = .date
        case .binaryData: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .transformable, .undefined: self = .transformable
        case .objectID: self = .object
        }
    }

    var isNumeric: Bool { self == .integer || self == .double || self == .decimal || self == .boolean }

    var name: String {
        switch self {
        case .null: return "nil"
        case .integer: return "integer"
        case .double: return "floating-point number"
        case .decimal: return "decimal"
        case .boolean: return "boolean"
        case .string: return "string"
        case .date: return "date"
        case .data: return "binary data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .transformable: return "transformable value"
        case .object: return "object"
        }
    }
}

/// One resolved comparison.
struct BoundComparison {
    var lhs: BoundExpression
    var op: ComparisonOperator
    var options: ComparisonOptions
    var rhs: BoundExpression
    /// How text operands compare.
    var collation: ValueCollation
    /// For floating-point operands: NaN (stored as text) never satisfies an ordering.
    var numericOnly: Bool
}
