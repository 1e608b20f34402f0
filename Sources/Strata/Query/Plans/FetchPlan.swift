import Foundation

/// A fetch request resolved against its entity: what a store (or a parent context) executes.
/// Built on the requesting context's queue; immutable, so it may be handed to the store.
struct FetchPlan: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; holds frozen model descriptions and a
    // bound predicate whose constants are Sendable values.

    /// What the fetch returns.
    enum ResultKind {
        /// Rows with values (objects).
        case rows
        /// Object IDs only.
        case objectIDs
        /// The number of matches.
        case count
    }

    let entity: EntityDescription
    let predicate: BoundPredicate?
    let sorts: [BoundSort]
    let limit: Int
    let offset: Int
    let includesSubentities: Bool
    let resultKind: ResultKind
    /// The request's original predicate, for in-memory re-evaluation in parent contexts.
    let sourcePredicate: ObjectPredicate?
    let sourceSortDescriptors: [ObjectSortDescriptor]

    /// Entity codes the fetch may return.
    var entityCodes: [Int64] {
        includesSubentities ? entity.layout.descendantCodes : [entity.layout.code]
    }

    /// Whether the fetch must filter on the entity code (its entity is not a whole table).
    var needsEntityFilter: Bool {
        !(entity.superentity == nil && includesSubentities)
    }

    func with(limit: Int, offset: Int) -> FetchPlan {
        FetchPlan(
            entity: entity, predicate: predicate, sorts: sorts, limit: limit, offset: offset,
            includesSubentities: includesSubentities, resultKind: resultKind, sourcePredicate: sourcePredicate,
            sourceSortDescriptors: sourceSortDescriptors)
    }

    func with(resultKind: ResultKind) -> FetchPlan {
        FetchPlan(
            entity: entity, predicate: predicate, sorts: sorts, limit: limit, offset: offset,
            includesSubentities: includesSubentities, resultKind: resultKind, sourcePredicate: sourcePredicate,
            sourceSortDescriptors: sourceSortDescriptors)
    }

    /// Resolves a predicate and sort descriptors against `entity`. Throws for malformed
    /// predicates, unknown keys and type mismatches, naming the entity and key.
    static func make(
        entity: EntityDescription, predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor],
        limit: Int, offset: Int, includesSubentities: Bool, resultKind: ResultKind
    ) throws -> FetchPlan {
        var bound: BoundPredicate?
        if let predicate {
            if let error = predicate.syntaxError { throw error }
            var binder = PredicateBinder(entity: entity)
            bound = try binder.bind(predicate.node)
        }
        let sorts = try sortDescriptors.map { try BoundSort.bind($0, entity: entity) }
        return FetchPlan(
            entity: entity, predicate: bound, sorts: sorts, limit: max(0, limit), offset: max(0, offset),
            includesSubentities: includesSubentities, resultKind: resultKind, sourcePredicate: predicate,
            sourceSortDescriptors: sortDescriptors)
    }

    /// Whether `row` matches the plan's entity and predicate (in memory).
    func matches(_ row: any EvaluationRow) throws -> Bool {
        let code = row.evaluationObjectID.entity.layout.code
        guard code == entity.layout.code || (includesSubentities && entityCodes.contains(code)) else { return false }
        guard let predicate else { return true }
        var evaluator = RowEvaluator()
        return try evaluator.evaluate(predicate, on: row)
    }

    /// The rows of `candidates` the plan returns, as its SQL would: those matching its entity
    /// and predicate, in its order, after its offset and up to its limit (in memory).
    func select(_ candidates: [any EvaluationRow]) throws -> [any EvaluationRow] {
        var matched: [any EvaluationRow] = []
        for row in candidates where try matches(row) { matched.append(row) }
        return window(try sortRows(matched))
    }

    /// `rows` after the plan's offset, up to its limit.
    func window(_ rows: [any EvaluationRow]) -> [any EvaluationRow] {
        var result = rows
        if offset > 0 { result = Array(result.dropFirst(offset)) }
        if limit > 0 { result = Array(result.prefix(limit)) }
        return result
    }

    /// Orders rows as the SQL `ORDER BY` does (sort keys, then primary key / ID order). Each
    /// row's keys are computed and prepared for their collation once: O(n log n) comparisons
    /// of prepared keys.
    func sortRows(_ rows: [any EvaluationRow]) throws -> [any EvaluationRow] {
        guard !sorts.isEmpty else { return rows }
        var keyed: [(row: any EvaluationRow, keys: [CollatedValue])] = []
        keyed.reserveCapacity(rows.count)
        var evaluator = RowEvaluator()
        for row in rows {
            var keys: [CollatedValue] = []
            keys.reserveCapacity(sorts.count)
            for sort in sorts {
                var value = StoredValue.null
                if case .value(let computed) = try evaluator.operand(sort.expression, on: row) { value = computed }
                keys.append(CollatedValue(value, collation: sort.collation))
            }
            keyed.append((row, keys))
        }
        let sorts = self.sorts
        keyed.sort { lhs, rhs in
            for index in sorts.indices {
                let order = CollatedValue.compare(lhs.keys[index], rhs.keys[index])
                if order != 0 { return sorts[index].ascending ? order < 0 : order > 0 }
            }
            return Self.idOrder(lhs.row.evaluationObjectID, rhs.row.evaluationObjectID)
        }
        return keyed.map(\.row)
    }

    /// The tie-breaking order of the SQL store: by primary key; unsaved objects after saved ones.
    static func idOrder(_ a: ManagedObjectID, _ b: ManagedObjectID) -> Bool {
        switch (a.key, b.key) {
        case (.permanent(let x), .permanent(let y)): return x < y
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case (.temporary(let x), .temporary(let y)): return x < y
        }
    }
}
