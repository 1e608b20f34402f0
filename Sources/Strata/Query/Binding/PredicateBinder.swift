import Foundation

/// Resolves a parsed predicate against an entity: every key must name a property, every constant
/// must fit the value it meets, and to-many key paths become quantified sub-predicates. Errors
/// name the entity, the key and the offending value.
struct PredicateBinder {
    let rootEntity: EntityDescription
    private var variables: [String: EntityDescription] = [:]
    private var nextVariable = 0
    /// For a dictionary fetch's `havingPredicate`: the names of result columns, group keys and
    /// aggregates, which take precedence over the entity's keys.
    var resultNames: (any ResultNameResolver)?
    /// Whether binding met a property a fetch cannot read (a transient attribute or
    /// relationship, a fetched property): `evaluate(with:)` then evaluates by key-value coding
    /// instead of failing.
    private(set) var metUnstoredProperty = false

    init(entity: EntityDescription) {
        self.rootEntity = entity
    }

    /// What an expression resolves to before comparison.
    enum Resolved {
        case scalar(BoundExpression)
        /// A to-many collection and the key path still to apply to each element.
        case collection(BoundCollection, rest: [String])
        case constant(PredicateValue)
        case constantList([PredicateValue])
    }

    private func error(_ message: String, key: String? = nil, entity: EntityDescription? = nil) -> StrataError {
        StrataError(code: StrataError.Code.coreData, message: message, entityName: (entity ?? rootEntity).name, key: key)
    }

    private mutating func freshVariable() -> String {
        nextVariable += 1
        return "__q\(nextVariable)"
    }

    // MARK: Predicates

    mutating func bind(_ node: PredicateNode) throws -> BoundPredicate {
        switch node {
        case .constant(let value): return .constant(value)
        case .and(let terms): return .and(try terms.map { try bind($0) })
        case .or(let terms): return .or(try terms.map { try bind($0) })
        case .not(let inner): return .not(try bind(inner))
        case .comparison(let comparison): return try bind(comparison)
        }
    }

    private mutating func bind(_ comparison: ComparisonNode) throws -> BoundPredicate {
        let lhs = try resolve(comparison.lhs)
        let rhs = try resolve(comparison.rhs)
        let text = ComparisonText(node: comparison)

        // A collection on the left: quantify over its elements.
        if case .collection(let collection, let rest) = lhs {
            if case .collection = rhs {
                throw error("'\(text)': both sides are to-many collections; compare one side with a single value")
            }
            var quantifier: BoundPredicate.Quantifier
            var op = comparison.op
            switch comparison.modifier {
            case .any, .direct: quantifier = .any
            case .all: quantifier = .all
            case .none: quantifier = .none
            }
            // Without a modifier, "collection CONTAINS x" is membership.
            if comparison.modifier == .direct && op == .contains { op = .equal }
            return try quantify(collection, rest: rest, quantifier: quantifier) { binder, element in
                try binder.compare(element, op, comparison.options, rhs, text: text)
            }
        }
        if comparison.modifier != .direct {
            throw error("'\(text)': ANY, ALL and NONE need a to-many key path on the left")
        }
        // A collection on the right: "x IN collection" is membership.
        if case .collection(let collection, let rest) = rhs {
            guard comparison.op == .in || comparison.op == .equal else {
                throw error("'\(text)': a to-many collection on the right side can only be used with IN")
            }
            return try quantify(collection, rest: rest, quantifier: .any) { binder, element in
                try binder.compare(lhs, .equal, comparison.options, element, text: text)
            }
        }
        return try compare(lhs, comparison.op, comparison.options, rhs, text: text)
    }

    /// Builds `ANY/ALL/NONE element IN collection: body(element)`.
    private mutating func quantify(
        _ collection: BoundCollection, rest: [String], quantifier: BoundPredicate.Quantifier,
        body: (inout PredicateBinder, Resolved) throws -> BoundPredicate
    ) throws -> BoundPredicate {
        let variable = freshVariable()
        let saved = variables[variable]
        variables[variable] = collection.destination
        defer { variables[variable] = saved }
        let elementPath = BoundPath(base: .variable(variable), baseEntity: collection.destination)
        let element = try resolveKeyPath(from: elementPath, components: rest[...])
        if case .collection(let nested, let nestedRest) = element {
            // employees.projects.name: nest the quantifier.
            let inner = try quantify(nested, rest: nestedRest, quantifier: .any, body: body)
            return .quantified(quantifier, collection, variable: variable, body: inner)
        }
        return .quantified(quantifier, collection, variable: variable, body: try body(&self, element))
    }

    /// A comparison of two resolved operands (no collections left).
    private mutating func compare(_ lhsIn: Resolved, _ opIn: ComparisonOperator, _ options: ComparisonOptions, _ rhsIn: Resolved, text: ComparisonText) throws -> BoundPredicate {
        var lhs = lhsIn
        var rhs = rhsIn
        var op = opIn
        // Put the constant on the right where the operator allows it.
        if isConstant(lhs) && !isConstant(rhs) && op != .in && op != .between && !op.isStringOperator && op != .contains {
            swap(&lhs, &rhs)
            op = mirrored(op)
        }
        // "{1, 2} CONTAINS x" is "x IN {1, 2}".
        if op == .contains, case .constantList = lhs {
            swap(&lhs, &rhs)
            op = .in
        }
        guard case .scalar(let left) = lhs else {
            if case .constant(let a) = lhs, case .constant(let b) = rhs {
                return .constant(try DynamicEvaluator.compareConstants(a, op, options, b))
            }
            throw error("'\(text)': the left side must be a key path or an expression")
        }
        let kind = left.kind
        let right: BoundExpression
        switch op {
        case .in:
            switch rhs {
            case .constantList(let items):
                right = .list(try items.map { try coerce($0, to: kind, against: left, text: text) })
            case .constant(.null):
                return .constant(false)
            case .constant(let single):
                // "x IN 'abc'": substring test for strings, else membership in a one-element list.
                if kind == .string, case .string = single {
                    return .comparison(
                        BoundComparison(
                            lhs: try coerceExpression(.constant(single), to: .string, against: left, text: text), op: .contains, options: options, rhs: left,
                            collation: collation(for: .string, options), numericOnly: false))
                }
                right = .list([try coerce(single, to: kind, against: left, text: text)])
            case .scalar(let expression):
                if expression.kind == .string && kind == .string {
                    // "name IN otherKey": substring of another string.
                    return .comparison(BoundComparison(lhs: expression, op: .contains, options: options, rhs: left, collation: collation(for: .string, options), numericOnly: false))
                }
                throw error("'\(text)': IN needs a list, a set or a to-many key path on the right")
            case .collection:
                throw error("'\(text)': unexpected collection")
            }
        case .between:
            guard case .constantList(let bounds) = rhs, bounds.count == 2 else {
                throw error("'\(text)': BETWEEN needs two constant bounds, as in BETWEEN {1, 10}")
            }
            right = .list(try bounds.map { try coerce($0, to: kind, against: left, text: text) })
        default:
            right = try coerceExpression(rhs, to: kind, against: left, text: text)
        }
        // Type rules by operator.
        switch op {
        case .beginsWith, .endsWith, .like, .matches, .contains:
            guard kind == .string || kind == .null, right.kind == .string || right.kind == .null else {
                if op == .contains {
                    throw error("'\(text)': CONTAINS on a \(kind.name) needs a to-many key path (string CONTAINS string, or collection CONTAINS object)", key: keyName(left))
                }
                throw error("'\(text)': \(op.rawValue) compares strings, but the operands are a \(kind.name) and a \(right.kind.name)", key: keyName(left))
            }
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between:
            if kind == .object || kind == .transformable || kind == .boolean && !right.kind.isNumeric && right.kind != .null {
                throw error("'\(text)': \(kind.name) values cannot be ordered with \(op.rawValue)", key: keyName(left))
            }
        default:
            break
        }
        if kind == .transformable, !(right.isNullConstant && (op == .equal || op == .notEqual)) {
            throw error("'\(text)': transformable attributes can only be compared with nil", key: keyName(left))
        }
        let effectiveKind = kind == .null ? right.kind : kind
        return .comparison(
            BoundComparison(
                lhs: left, op: op, options: options, rhs: right,
                collation: collation(for: effectiveKind, options),
                numericOnly: effectiveKind == .double || right.kind == .double))
    }

    private func collation(for kind: ValueKind, _ options: ComparisonOptions) -> ValueCollation {
        switch kind {
        case .string:
            let relevant = options.intersection([.caseInsensitive, .diacriticInsensitive])
            return relevant.isEmpty ? .binary : .folded(relevant)
        case .decimal: return .decimal
        default: return .binary
        }
    }

    private func keyName(_ expression: BoundExpression) -> String? {
        if case .attribute(_, let attribute, _) = expression { return attribute.name }
        return nil
    }

    private func isConstant(_ resolved: Resolved) -> Bool {
        switch resolved {
        case .constant, .constantList: return true
        default: return false
        }
    }

    private func mirrored(_ op: ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        default: return op
        }
    }

    // MARK: Coercion of constants

    private func coerceExpression(_ resolved: Resolved, to kind: ValueKind, against left: BoundExpression, text: ComparisonText) throws -> BoundExpression {
        switch resolved {
        case .scalar(let expression):
            try checkCompatible(left, expression, text: text)
            return expression
        case .constant(let value):
            return try coerce(value, to: kind, against: left, text: text)
        case .constantList(let items):
            return .list(try items.map { try coerce($0, to: kind, against: left, text: text) })
        case .collection:
            throw error("'\(text)': unexpected to-many collection")
        }
    }

    private func checkCompatible(_ a: BoundExpression, _ b: BoundExpression, text: ComparisonText) throws {
        let x = a.kind
        let y = b.kind
        if x == y || x == .null || y == .null { return }
        if x.isNumeric && y.isNumeric {
            if (x == .decimal) != (y == .decimal) {
                throw error("'\(text)': a decimal attribute can only be compared with constants or other decimal attributes", key: keyName(a) ?? keyName(b))
            }
            return
        }
        if (x == .uri && y == .string) || (x == .string && y == .uri) { return }
        throw error("'\(text)': cannot compare a \(x.name) with a \(y.name)", key: keyName(a) ?? keyName(b))
    }

    /// Converts a constant to the stored form of the values it is compared with.
    func coerce(_ value: PredicateValue, to kind: ValueKind, against left: BoundExpression, text: ComparisonText) throws -> BoundExpression {
        func mismatch() -> StrataError {
            var message = "'\(text)': "
            if case .attribute(_, let attribute, _) = left {
                message += "\(attribute.entity?.name ?? rootEntity.name).\(attribute.name) is a \(kind.name) attribute and cannot be compared with \(PredicateFormatter.literal(value))"
            } else {
                message += "a \(kind.name) cannot be compared with \(PredicateFormatter.literal(value))"
            }
            var result = error(message, key: keyName(left))
            result.valueDescription = PredicateFormatter.literal(value)
            return result
        }
        if case .null = value { return .constant(.null, .null) }
        if case .array = value { throw mismatch() }
        switch kind {
        case .integer, .double, .boolean:
            switch value {
            case .integer(let v): return .constant(.integer(v), .integer)
            case .double(let v): return .constant(AttributeCodec.storedDouble(v), .double)
            case .bool(let v): return .constant(.integer(v ? 1 : 0), .integer)
            case .decimal(let v):
                if case .some(.exact(let int)) = AttributeCodec.integerValue(v) { return .constant(.integer(int), .integer) }
                return .constant(.real(NSDecimalNumber(decimal: v).doubleValue), .double)
            default: throw mismatch()
            }
        case .decimal:
            switch value {
            case .integer(let v): return .constant(.text(DecimalText.canonical(Decimal(v))), .decimal)
            case .double(let v):
                // A double beyond Decimal's range (±infinity, 1e300, 5e-324) keeps its double
                // text; the decimal collation orders it numerically among decimals.
                guard let decimal = AttributeCodec.decimalValue(v) else { return .constant(.text(v.isNaN ? "NaN" : String(v)), .decimal) }
                return .constant(.text(DecimalText.canonical(decimal)), .decimal)
            case .decimal(let v): return .constant(.text(DecimalText.canonical(v)), .decimal)
            case .bool(let v): return .constant(.text(v ? "1" : "0"), .decimal)
            default: throw mismatch()
            }
        case .string:
            if case .string(let v) = value { return .constant(.text(v), .string) }
            throw mismatch()
        case .date:
            if case .date(let v) = value { return .constant(.real(v.timeIntervalSinceReferenceDate), .date) }
            throw mismatch()
        case .data:
            if case .data(let v) = value { return .constant(.blob(v), .data) }
            throw mismatch()
        case .uuid:
            if case .uuid(let v) = value { return .constant(.blob(AttributeCodec.uuidData(v)), .uuid) }
            if case .string(let v) = value, let uuid = UUID(uuidString: v) { return .constant(.blob(AttributeCodec.uuidData(uuid)), .uuid) }
            throw mismatch()
        case .uri:
            if case .url(let v) = value { return .constant(.text(v.absoluteString), .uri) }
            if case .string(let v) = value { return .constant(.text(v), .uri) }
            throw mismatch()
        case .object:
            switch value {
            case .objectID(let id): return .objectConstant(id)
            case .objectURI: throw error("'\(text)': object URIs must be resolved with the coordinator's managedObjectID(forURIRepresentation:) before fetching")
            default: throw mismatch()
            }
        case .transformable:
            throw mismatch()
        case .null:
            return try constantExpression(value)
        }
    }

    /// A constant on its own (compared with nil, or inside functions).
    func constantExpression(_ value: PredicateValue) throws -> BoundExpression {
        switch value {
        case .null: return .constant(.null, .null)
        case .bool(let v): return .constant(.integer(v ? 1 : 0), .boolean)
        case .integer(let v): return .constant(.integer(v), .integer)
        case .double(let v): return .constant(AttributeCodec.storedDouble(v), .double)
        case .decimal(let v): return .constant(.text(DecimalText.canonical(v)), .decimal)
        case .string(let v): return .constant(.text(v), .string)
        case .date(let v): return .constant(.real(v.timeIntervalSinceReferenceDate), .date)
        case .data(let v): return .constant(.blob(v), .data)
        case .uuid(let v): return .constant(.blob(AttributeCodec.uuidData(v)), .uuid)
        case .url(let v): return .constant(.text(v.absoluteString), .uri)
        case .objectID(let id): return .objectConstant(id)
        case .objectURI: throw error("Object URIs must be resolved with managedObjectID(forURIRepresentation:) before fetching")
        case .array(let items): return .list(try items.map { try constantExpression($0) })
        }
    }

    // MARK: Expressions

    mutating func resolve(_ node: ExpressionNode) throws -> Resolved {
        switch node {
        case .constant(.array(let items)): return .constantList(items)
        case .constant(let value): return .constant(value)
        case .aggregate(let items):
            var values: [PredicateValue] = []
            for item in items {
                guard case .constant(let value) = try resolve(item) else {
                    throw error("Lists in braces may only hold constants: \(PredicateFormatter.format(node))")
                }
                values.append(value)
            }
            return .constantList(values)
        case .evaluatedObject:
            return .scalar(.object(BoundPath(base: .root, baseEntity: rootEntity)))
        case .keyPath(let components):
            if let resultNames, let column = try resultNames.resolveResultName(components.joined(separator: "."), isVariable: false) {
                return .scalar(column)
            }
            return try resolveKeyPath(from: BoundPath(base: .root, baseEntity: rootEntity), components: components[...])
        case .variable(let name):
            if let resultNames, variables[name] == nil, let column = try resultNames.resolveResultName(name, isVariable: true) {
                return .scalar(column)
            }
            guard let entity = variables[name] else {
                throw error("No value was given for substitution variable $\(name)")
            }
            return .scalar(.object(BoundPath(base: .variable(name), baseEntity: entity)))
        case .keyPathFrom(let base, let components):
            switch base {
            case .variable(let name):
                guard let entity = variables[name] else {
                    throw error("No value was given for substitution variable $\(name)")
                }
                return try resolveKeyPath(from: BoundPath(base: .variable(name), baseEntity: entity), components: components[...])
            case .evaluatedObject:
                return try resolveKeyPath(from: BoundPath(base: .root, baseEntity: rootEntity), components: components[...])
            case .subquery(let collectionNode, let variable, let predicate):
                guard components == ["@count"] else {
                    throw error("A SUBQUERY can only be followed by .@count, not .\(components.joined(separator: "."))")
                }
                let collection = try bindSubquery(collectionNode, variable: variable, predicate: predicate)
                return .scalar(.aggregate(.count, collection, nil))
            default:
                throw error("Key paths can only start from SELF, a key, a variable or a SUBQUERY: \(PredicateFormatter.format(node))")
            }
        case .subquery(let collectionNode, let variable, let predicate):
            let collection = try bindSubquery(collectionNode, variable: variable, predicate: predicate)
            return .collection(collection, rest: [])
        case .function(let name, let args):
            if let resultNames, let column = try resultNames.resolveAggregate(node) {
                return .scalar(column)
            }
            return try resolveFunction(name, args)
        case .conditional(let condition, let whenTrue, let whenFalse):
            let boundCondition = try bind(condition)
            let a = try scalarOrConstant(whenTrue)
            let b = try scalarOrConstant(whenFalse)
            return .scalar(.conditional(boundCondition, a, b))
        }
    }

    mutating func scalarOrConstant(_ node: ExpressionNode) throws -> BoundExpression {
        switch try resolve(node) {
        case .scalar(let expression): return expression
        case .constant(let value): return try constantExpression(value)
        case .constantList(let items): return try constantExpression(.array(items))
        case .collection:
            throw error("A to-many collection cannot be used as a single value here: \(PredicateFormatter.format(node)) (use ANY, @count or SUBQUERY)")
        }
    }

    private mutating func bindSubquery(_ collectionNode: ExpressionNode, variable: String, predicate: PredicateNode) throws -> BoundCollection {
        guard case .collection(var collection, let rest) = try resolve(collectionNode), rest.isEmpty else {
            throw error("SUBQUERY needs a to-many key path as its collection: \(PredicateFormatter.format(collectionNode))")
        }
        let saved = variables[variable]
        variables[variable] = collection.destination
        defer { variables[variable] = saved }
        collection.filter = (variable, try bind(predicate))
        return collection
    }

    /// Walks a key path from `start` through to-one relationships to an attribute, an object, a
    /// to-many collection or an aggregate.
    mutating func resolveKeyPath(from start: BoundPath, components: ArraySlice<String>) throws -> Resolved {
        var path = start
        var index = components.startIndex
        // The whole path, for messages only: built when one is (a lookup binds its key path on
        // every fetch).
        var fullPath: String { components.joined(separator: ".") }
        while index < components.endIndex {
            let name = components[index]
            let entity = path.entity
            if name.hasPrefix("@") {
                throw error("Collection operator \(name) in '\(fullPath)' must follow a to-many relationship", key: fullPath)
            }
            guard let property = entity.layout.propertiesByName[name] else {
                throw error("Entity '\(entity.name)' has no property '\(name)' (in key path '\(fullPath)')", key: name, entity: entity)
            }
            switch property {
            case let attribute as AttributeDescription:
                if attribute.isTransient {
                    metUnstoredProperty = true
                    throw error("Transient attribute '\(entity.name).\(name)' is not stored and cannot be used in a fetch predicate or sort", key: name, entity: entity)
                }
                guard index == components.index(before: components.endIndex) else {
                    throw error("'\(entity.name).\(name)' is an attribute; key path '\(fullPath)' cannot continue past it", key: name, entity: entity)
                }
                return .scalar(.attribute(path, attribute, slot: PropertySlot.index(of: attribute, in: entity)))
            case let relationship as RelationshipDescription:
                if relationship.isTransient {
                    metUnstoredProperty = true
                    throw error("Transient relationship '\(entity.name).\(name)' is not stored and cannot be used in a fetch predicate or sort", key: name, entity: entity)
                }
                if !relationship.isToMany {
                    path = path.appending(relationship)
                    index = components.index(after: index)
                    continue
                }
                let collection = BoundCollection(path: path, relationship: relationship)
                let rest = components[components.index(after: index)...]
                if let first = rest.first, first.hasPrefix("@") {
                    if rest.count == 2, let key = rest.last, (collection.destination.layout.propertiesByName[key] as? AttributeDescription)?.isTransient == true {
                        metUnstoredProperty = true
                    }
                    return try resolveCollectionOperator(first, collection: collection, rest: rest.dropFirst(), fullPath: fullPath)
                }
                return .collection(collection, rest: Array(rest))
            default:
                metUnstoredProperty = true
                throw error("'\(entity.name).\(name)' is a fetched property and cannot be used in a fetch predicate", key: name, entity: entity)
            }
        }
        return .scalar(.object(path))
    }

    private func resolveCollectionOperator(_ op: String, collection: BoundCollection, rest: ArraySlice<String>, fullPath: String) throws -> Resolved {
        let aggregate: BoundAggregate
        switch op {
        case "@count":
            guard rest.isEmpty else { throw error("@count must end the key path '\(fullPath)'", key: fullPath) }
            return .scalar(.aggregate(.count, collection, nil))
        case "@sum": aggregate = .sum
        case "@avg": aggregate = .avg
        case "@min": aggregate = .min
        case "@max": aggregate = .max
        default:
            throw error("Unknown collection operator \(op) in '\(fullPath)' (use @count, @sum, @avg, @min or @max)", key: fullPath)
        }
        guard rest.count == 1, let key = rest.first else {
            throw error("\(op) needs one attribute after it, as in employees.\(op).salary ('\(fullPath)')", key: fullPath)
        }
        let destination = collection.destination
        guard let attribute = destination.layout.propertiesByName[key] as? AttributeDescription, !attribute.isTransient else {
            throw error("Entity '\(destination.name)' has no stored attribute '\(key)' (in '\(fullPath)')", key: key, entity: destination)
        }
        let kind = ValueKind(attribute.type)
        if aggregate == .sum || aggregate == .avg {
            guard kind.isNumeric else {
                throw error("\(op) needs a numeric attribute, but '\(destination.name).\(key)' is a \(kind.name)", key: key, entity: destination)
            }
        }
        return .scalar(.aggregate(aggregate, collection, attribute))
    }

    private mutating func resolveFunction(_ name: String, _ args: [ExpressionNode]) throws -> Resolved {
        // Aggregate functions over a to-many key path or a constant list.
        if let aggregate = BoundAggregate.byFunctionName[name], args.count == 1 {
            let argument = try resolve(args[0])
            switch argument {
            case .collection(let collection, let rest):
                if aggregate == .count {
                    guard rest.isEmpty else { throw error("count: takes a to-many relationship, not '\(rest.joined(separator: "."))'") }
                    return .scalar(.aggregate(.count, collection, nil))
                }
                let opName = ["sum:": "@sum", "average:": "@avg", "min:": "@min", "max:": "@max"][name] ?? "@sum"
                return try resolveCollectionOperator(opName, collection: collection, rest: rest[...], fullPath: PredicateFormatter.format(args[0]))
            case .constantList(let items):
                return .constant(try DynamicEvaluator.aggregateConstants(name, items))
            default:
                throw error("\(name) needs a to-many key path or a list")
            }
        }
        if name == "now", args.isEmpty { return .constant(.date(Date())) }
        guard let function = BoundFunction.byName[name] else {
            throw error("Function '\(name)' cannot be used in a fetch predicate")
        }
        var operands: [BoundExpression] = []
        for arg in args { operands.append(try scalarOrConstant(arg)) }
        // Fold constant-only calls now, so both engines see the same constant.
        if operands.allSatisfy({ if case .constant = $0 { return true } else { return false } }) {
            var evaluator = DynamicEvaluator(variables: [:])
            return .constant(try evaluator.value(of: .function(name, args), on: nil))
        }
        switch function {
        case .lowercase, .uppercase, .length:
            guard operands.count == 1, operands[0].kind == .string || operands[0].kind == .null else {
                throw error("\(name) needs one string argument")
            }
        default:
            for operand in operands where !(operand.kind.isNumeric || operand.kind == .null) {
                throw error("\(name) needs numbers, but got a \(operand.kind.name)")
            }
            if operands.contains(where: { $0.kind == .decimal }) {
                throw error("Arithmetic on decimal attributes is not available in predicates; compare the attribute with a constant instead")
            }
        }
        return .scalar(.function(function, operands))
    }
}

extension BoundExpression {
    var isNullConstant: Bool {
        if case .constant(.null, _) = self { return true }
        return false
    }
}

/// Resolves the names a dictionary fetch's `havingPredicate` may use: the keys of its result
/// dictionaries (attribute names, key paths, `ExpressionDescription` names, as `name` or
/// `$name`), its group-by keys and aggregate functions. Each resolves to a result column.
protocol ResultNameResolver: AnyObject {
    /// The result column named `name`, or nil when `name` is not a result name. Throws for a key
    /// that the having predicate may not use (not grouped, not fetched).
    func resolveResultName(_ name: String, isVariable: Bool) throws -> BoundExpression?
    /// A result column computing the aggregate function call `node`, or nil when `node` is not
    /// an aggregate over the fetched objects.
    func resolveAggregate(_ node: ExpressionNode) throws -> BoundExpression?
}

/// A comparison's format text for error messages, formatted only when a message uses it: a
/// successful bind formats nothing. Used on the binding caller's queue.
struct ComparisonText: CustomStringConvertible {
    let node: ComparisonNode
    var description: String { PredicateFormatter.format(node) }
}
