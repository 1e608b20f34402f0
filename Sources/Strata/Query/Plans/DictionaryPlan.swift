import Foundation

/// A dictionary fetch (`resultType = .dictionaryResultType`) resolved against its entity: which
/// objects (``rows``), the columns of each result, grouping, `havingPredicate`, distinctness,
/// order, limit and offset. Built on the requesting context's queue; immutable, so it may be
/// handed to the store, which runs it as SQL, or to the in-memory evaluator.
struct DictionaryPlan: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; holds frozen model descriptions and
    // bound expressions whose constants are Sendable values.

    /// The objects the results are computed from (entity, predicate, sub-entities; no order,
    /// limit or offset).
    let rows: FetchPlan
    /// The result columns: visible ones (the dictionaries' keys) first, then hidden ones.
    let columns: [ResultColumn]
    /// `propertiesToGroupBy`, resolved.
    let groupKeys: [GroupKey]
    /// Whether results are groups (grouping or aggregates) rather than one per object.
    let isAggregate: Bool
    /// `havingPredicate`, over result columns.
    let having: BoundPredicate?
    /// `returnsDistinctResults`.
    let distinct: Bool
    /// The order: the request's sort descriptors, then a default that makes the order total
    /// (group keys for groups, the columns for distinct results).
    let orders: [ResultOrder]
    /// For one result per object: ties are broken by object (primary key) order.
    let ordersByObject: Bool
    let limit: Int
    let offset: Int
    /// Whether contexts compute the results over their objects with unsaved changes (the
    /// request's `includesPendingChanges` and `dictionaryResultsIncludePendingChanges` opt-in)
    /// instead of asking the store for saved rows only.
    var includesPendingChanges = false

    /// The index of the first hidden column (the number of visible ones).
    var visibleCount: Int { columns.firstIndex { !$0.isVisible } ?? columns.count }

    /// The visible columns of the result rows over `matched`, the rows the plan's row part
    /// matches, computed in memory (what a store without SQL returns for the plan).
    func visibleRows(ofMatching matched: [any EvaluationRow]) throws -> [[RowEvaluator.Operand]] {
        let visible = visibleCount
        return try DictionaryEvaluator(plan: self).evaluate(matched).map { Array($0.prefix(visible)) }
    }

    /// Resolves `request`'s dictionary settings against `entity`. Throws for unknown keys,
    /// unusable properties (to-many relationships), aggregates of the wrong type, properties
    /// neither grouped nor aggregated, and malformed or unresolvable predicates, naming the
    /// entity and key.
    static func make<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> DictionaryPlan {
        let rows = try FetchPlan.make(
            entity: entity, predicate: request.predicate, sortDescriptors: [], limit: 0, offset: 0,
            includesSubentities: request.includesSubentities, resultKind: .rows)
        let builder = DictionaryPlanBuilder(entity: entity)
        try builder.bindGroupKeys(request.propertiesToGroupBy ?? [])
        let properties = request.propertiesToFetch ?? entity.layout.storedAttributes.map { $0.name as Any }
        try builder.bindColumns(properties)
        var having: BoundPredicate?
        if let predicate = request.havingPredicate {
            if let error = predicate.syntaxError { throw error }
            guard builder.isAggregate else {
                throw builder.error("havingPredicate needs propertiesToGroupBy or aggregate functions in propertiesToFetch", key: nil)
            }
            var binder = PredicateBinder(entity: entity)
            binder.resultNames = builder
            having = try binder.bind(predicate.node)
        }
        let orders = try builder.bindOrders(request.sortDescriptors ?? [], distinct: request.returnsDistinctResults)
        return DictionaryPlan(
            rows: rows, columns: builder.columns, groupKeys: builder.groupKeys, isAggregate: builder.isAggregate,
            having: having, distinct: request.returnsDistinctResults, orders: orders,
            ordersByObject: !builder.isAggregate && !request.returnsDistinctResults,
            limit: max(0, request.fetchLimit), offset: max(0, request.fetchOffset),
            includesPendingChanges: request.includesPendingChanges && request.dictionaryResultsIncludePendingChanges)
    }
}

/// Builds a ``DictionaryPlan``'s parts; also resolves the names its `havingPredicate` uses.
final class DictionaryPlanBuilder: ResultNameResolver {
    let entity: EntityDescription
    private var binder: PredicateBinder
    private(set) var groupKeys: [GroupKey] = []
    private(set) var columns: [ResultColumn] = []
    private(set) var isAggregate = false

    init(entity: EntityDescription) {
        self.entity = entity
        self.binder = PredicateBinder(entity: entity)
    }

    func error(_ message: String, key: String?) -> StrataError {
        StrataError(code: StrataError.Code.coreData, message: message, entityName: entity.name, key: key)
    }

    // MARK: Group keys

    func bindGroupKeys(_ items: [Any]) throws {
        for item in items {
            let names: Set<String>
            let expression: BoundExpression
            switch item {
            case let description as ExpressionDescription:
                guard let node = description.expression?.node else {
                    throw error("ExpressionDescription '\(description.name)' in propertiesToGroupBy has no expression", key: description.name)
                }
                guard case .row(let bound) = try build(node, grouped: false), !containsAggregate(node) else {
                    throw error("propertiesToGroupBy cannot hold an aggregate ('\(description.name)')", key: description.name)
                }
                names = [description.name, PredicateFormatter.format(node)]
                expression = bound
            case let property as PropertyDescription:
                names = [property.name]
                expression = try keyValue(property.name)
            case let keyPath as String:
                names = [keyPath]
                expression = try keyValue(keyPath)
            default:
                throw error("propertiesToGroupBy holds a \(type(of: item)); use attribute names, key paths or ExpressionDescriptions", key: nil)
            }
            groupKeys.append(GroupKey(names: names, expression: expression, collation: ResultExpression.collation(for: expression.kind)))
        }
        if !groupKeys.isEmpty { isAggregate = true }
    }

    /// The per-object value of a key path: an attribute or a to-one object through to-one
    /// relationships.
    private func keyValue(_ keyPath: String) throws -> BoundExpression {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch try binder.resolveKeyPath(from: BoundPath(base: .root, baseEntity: entity), components: components[...]) {
        case .scalar(let expression): return expression
        case .collection:
            throw error("'\(keyPath)' is a to-many relationship; a dictionary result can only hold attributes and to-one relationships (use count:(\(keyPath)) for its size)", key: keyPath)
        default:
            throw error("'\(keyPath)' does not name a property of \(entity.name)", key: keyPath)
        }
    }

    private func groupKeyIndex(named name: String) -> Int? {
        groupKeys.firstIndex { $0.names.contains(name) }
    }

    // MARK: Columns

    func bindColumns(_ items: [Any]) throws {
        // An aggregate anywhere makes every result a group (one group of all objects without
        // propertiesToGroupBy).
        for item in items {
            if let description = item as? ExpressionDescription, let node = description.expression?.node, containsAggregate(node) {
                isAggregate = true
            }
        }
        for item in items {
            switch item {
            case let description as ExpressionDescription:
                guard !description.name.isEmpty else {
                    throw error("An ExpressionDescription in propertiesToFetch has no name (its key in the result dictionaries)", key: nil)
                }
                guard let node = description.expression?.node else {
                    throw error("ExpressionDescription '\(description.name)' has no expression", key: description.name)
                }
                let expression: ResultExpression
                if isAggregate, let index = groupKeyIndex(named: description.name) ?? groupKeyIndex(named: PredicateFormatter.format(node)) {
                    expression = .groupKey(index, groupKeys[index].expression.kind)
                } else {
                    expression = try build(node, grouped: isAggregate)
                }
                var decoding = attribute(of: expression)
                if description.expressionResultType != .undefined {
                    decoding = AttributeDescription(name: description.name, type: description.expressionResultType)
                }
                columns.append(ResultColumn(name: description.name, expression: expression, decoding: decoding, isVisible: true))
            case let property as PropertyDescription:
                try appendKeyColumn(property.name)
            case let keyPath as String:
                try appendKeyColumn(keyPath)
            default:
                throw error("propertiesToFetch holds a \(type(of: item)); use attribute names, key paths or ExpressionDescriptions", key: nil)
            }
        }
    }

    private func appendKeyColumn(_ keyPath: String) throws {
        let expression: ResultExpression
        if isAggregate {
            guard let index = groupKeyIndex(named: keyPath) else {
                _ = try keyValue(keyPath)  // an unknown key is reported as such
                throw error("'\(keyPath)' is fetched with aggregates but is not in propertiesToGroupBy", key: keyPath)
            }
            expression = .groupKey(index, groupKeys[index].expression.kind)
        } else {
            expression = .row(try keyValue(keyPath))
        }
        columns.append(ResultColumn(name: keyPath, expression: expression, decoding: attribute(of: expression), isVisible: true))
    }

    /// The attribute a column's values are values of, if it is one attribute.
    private func attribute(of expression: ResultExpression) -> AttributeDescription? {
        switch expression {
        case .row(.attribute(_, let attribute, _)): return attribute
        case .groupKey(let index, _):
            if case .attribute(_, let attribute, _) = groupKeys[index].expression { return attribute }
            return nil
        case .aggregate(let aggregate, .attribute(_, let attribute, _)) where aggregate == .min || aggregate == .max:
            return attribute
        default: return nil
        }
    }

    // MARK: Expressions

    /// Whether `node` aggregates over the fetched objects (an aggregate function whose argument
    /// is not a to-many collection).
    func containsAggregate(_ node: ExpressionNode) -> Bool {
        switch node {
        case .function(let name, let args):
            if BoundAggregate.byFunctionName[name] != nil, args.count == 1 {
                var probe = PredicateBinder(entity: entity)
                if case .collection? = try? probe.resolve(args[0]) { return false }
                if case .constantList? = try? probe.resolve(args[0]) { return false }
                return true
            }
            return args.contains(where: containsAggregate)
        default:
            return false
        }
    }

    /// Resolves a column expression. `grouped`: results are groups, so key paths must be group
    /// keys and other values must be aggregated.
    func build(_ node: ExpressionNode, grouped: Bool) throws -> ResultExpression {
        let text = PredicateFormatter.format(node)
        switch node {
        case .function(let name, let args) where BoundAggregate.byFunctionName[name] != nil && args.count == 1:
            guard let aggregate = BoundAggregate.byFunctionName[name] else { break }
            switch try binder.resolve(args[0]) {
            case .scalar(let argument):
                try check(aggregate, over: argument, text: text)
                return .aggregate(aggregate, argument)
            case .constant(let value):
                return .aggregate(aggregate, try binder.constantExpression(value))
            case .collection, .constantList:
                break  // an aggregate per object (count:(employees)): a value of each object
            }
        case .function(let name, let args):
            guard let function = BoundFunction.byName[name], args.contains(where: containsAggregate) || grouped else { break }
            let operands = try args.map { try build($0, grouped: grouped) }
            if !grouped && !operands.contains(where: \.isAggregate) { break }
            for operand in operands {
                let kind = operand.kind
                switch function {
                case .lowercase, .uppercase, .length:
                    guard kind == .string || kind == .null else { throw error("'\(text)': \(name) needs a string", key: nil) }
                default:
                    guard kind.isNumeric || kind == .null else { throw error("'\(text)': \(name) needs numbers, not a \(kind.name)", key: nil) }
                    if kind == .decimal { throw error("'\(text)': arithmetic on decimal values is not available; fetch the decimal aggregate itself", key: nil) }
                }
            }
            return .function(function, operands)
        case .keyPath(let components) where grouped:
            let keyPath = components.joined(separator: ".")
            guard let index = groupKeyIndex(named: keyPath) else {
                _ = try keyValue(keyPath)
                throw error("'\(keyPath)' is used with aggregates but is not in propertiesToGroupBy", key: keyPath)
            }
            return .groupKey(index, groupKeys[index].expression.kind)
        default:
            break
        }
        let value = try binder.scalarOrConstant(node)
        if grouped {
            guard case .constant = value else {
                throw error("'\(text)' is a value of each object; with grouping or aggregates use an aggregate function or a grouped key", key: nil)
            }
        }
        return .row(value)
    }

    private func check(_ aggregate: BoundAggregate, over argument: BoundExpression, text: String) throws {
        let kind = argument.kind
        switch aggregate {
        case .count:
            return
        case .sum, .avg:
            guard kind.isNumeric || kind == .null else {
                throw error("'\(text)': \(aggregate == .sum ? "sum:" : "average:") needs numbers, not a \(kind.name)", key: nil)
            }
        case .min, .max:
            guard kind != .object && kind != .transformable else {
                throw error("'\(text)': \(aggregate == .min ? "min:" : "max:") cannot order a \(kind.name)", key: nil)
            }
        }
    }

    // MARK: Order

    func bindOrders(_ descriptors: [ObjectSortDescriptor], distinct: Bool) throws -> [ResultOrder] {
        var orders: [ResultOrder] = []
        let visible = columns.filter(\.isVisible)
        for descriptor in descriptors {
            let expression: ResultExpression
            if let column = visible.first(where: { $0.name == descriptor.key }) {
                expression = column.expression
            } else if distinct {
                // Duplicates collapse before ordering: only their common values can order them.
                throw error("Cannot sort distinct results by '\(descriptor.key)': sort by a fetched property", key: descriptor.key)
            } else if isAggregate {
                guard let index = groupKeyIndex(named: descriptor.key) else {
                    throw error("Cannot sort grouped results by '\(descriptor.key)': sort by a fetched property or a grouped key", key: descriptor.key)
                }
                expression = .groupKey(index, groupKeys[index].expression.kind)
            } else {
                expression = .row(try BoundSort.bind(descriptor, entity: entity).expression)
            }
            orders.append(ResultOrder(expression: expression, collation: Self.collation(expression.kind, descriptor.comparator), ascending: descriptor.ascending))
        }
        if distinct {
            for column in visible {
                orders.append(ResultOrder(expression: column.expression, collation: ResultExpression.collation(for: column.kind), ascending: true))
            }
        } else if isAggregate {
            for (index, key) in groupKeys.enumerated() {
                orders.append(ResultOrder(expression: .groupKey(index, key.expression.kind), collation: key.collation, ascending: true))
            }
        }
        return orders
    }

    private static func collation(_ kind: ValueKind, _ comparator: ObjectSortDescriptor.Comparator) -> ValueCollation {
        guard kind == .string else { return ResultExpression.collation(for: kind) }
        switch comparator {
        case .default: return .binary
        case .caseInsensitive: return .caseInsensitive
        case .localizedStandard: return .localizedStandard
        }
    }

    // MARK: Having

    private func columnReference(_ index: Int) -> BoundExpression {
        .resultColumn(index, columns[index].kind)
    }

    private func hiddenColumn(_ name: String, _ expression: ResultExpression) -> BoundExpression {
        columns.append(ResultColumn(name: name, expression: expression, decoding: nil, isVisible: false))
        return columnReference(columns.count - 1)
    }

    func resolveResultName(_ name: String, isVariable: Bool) throws -> BoundExpression? {
        if let index = columns.firstIndex(where: { $0.isVisible && $0.name == name }) {
            return columnReference(index)
        }
        if let index = groupKeyIndex(named: name) {
            return hiddenColumn(name, .groupKey(index, groupKeys[index].expression.kind))
        }
        if isVariable { return nil }
        throw error("havingPredicate can only use the fetched properties' names, grouped keys and aggregate functions; '\(name)' is none of them", key: name)
    }

    func resolveAggregate(_ node: ExpressionNode) throws -> BoundExpression? {
        guard case .function(let name, let args) = node, BoundAggregate.byFunctionName[name] != nil, args.count == 1 else { return nil }
        let expression = try build(node, grouped: true)
        return hiddenColumn(PredicateFormatter.format(node), expression)
    }
}
