import Foundation

/// A dictionary fetch (`resultType = .dictionaryResultType`) as a store of the public seam
/// receives it (``IncrementalStore/fetchDictionaryRows(_:options:)``), in the simple form a
/// store can run as one `SELECT … GROUP BY … ORDER BY … LIMIT`: every column, group key and
/// sort term is an attribute of the fetched entity or an aggregate of one. Requests with a
/// `havingPredicate`, key paths through relationships, objects or functions never reach the
/// store: Strata computes them over the matching rows. Immutable; usable from any thread.
///
/// The results must be exactly Strata's (what its in-memory engine computes over the matching
/// rows), which follow SQLite's rules:
/// - NULL sorts first ascending and last descending; strings sort by their UTF-8 bytes; NaN
///   after every number; aggregates skip NULLs;
/// - groups are the distinct values of the group keys (NULL a group of its own; 0.0 and −0.0
///   one group, keyed by the value of its first object in key order); one group of every row —
///   possibly none — when there are aggregates but no group keys;
/// - `count` counts non-NULL values; `sum` of no values is 0; `average` of no values is NULL;
///   integer sums are exact (a sum beyond 64 bits becomes the nearest `Double`); an average of
///   integers is their exact sum as a `Double` divided by the count; floating-point values are
///   added smallest first with compensated summation and decimals exactly within `Decimal`'s
///   38 digits, so no sum depends on the order of the rows; `minimum` and `maximum`
///   return the first object's value (in key order) among equal extremes;
/// - rows are ordered by ``orders``, then — when ``ordersByObject`` — by primary key;
///   ``returnsDistinctResults`` removes rows equal in every column after ordering; then
///   ``fetchOffset`` and ``fetchLimit``.
public struct StoreDictionaryFetchRequest: @unchecked Sendable {
    // @unchecked Sendable: immutable; holds frozen model descriptions.

    /// A value of a result row.
    ///
    /// A `Sendable` value (frozen descriptions): use it on any thread.
    public enum Term: @unchecked Sendable {
        /// The attribute's value (for a group: the group key's).
        case attribute(AttributeDescription)
        /// An aggregate of the attribute's values over the group.
        case aggregate(Aggregate, AttributeDescription)
    }

    /// The aggregate functions (Core Data's `count:`, `sum:`, `average:`, `min:`, `max:`).
    ///
    /// A `Sendable` value: use it on any thread.
    public enum Aggregate: String, Sendable {
        /// The number of non-NULL values.
        case count
        /// Their sum (0 for none).
        case sum
        /// Their mean (NULL for none).
        case average
        /// The smallest (the first object's among equal ones).
        case minimum
        /// The largest (the first object's among equal ones).
        case maximum
    }

    /// One term of the order.
    ///
    /// A `Sendable` value: use it on any thread.
    public struct Order: @unchecked Sendable {
        /// What is compared.
        public let term: Term
        /// Whether smaller values come first.
        public let ascending: Bool
    }

    /// The objects the results are computed from: entity, predicate and sub-entities (no order
    /// or window).
    public let rows: StoreFetchRequest
    /// The result columns, in the order the store returns their values.
    public let columns: [Term]
    /// `propertiesToGroupBy`.
    public let groupBy: [AttributeDescription]
    /// Whether the rows are groups (group keys or aggregates) rather than one per object.
    public let isAggregate: Bool
    /// `returnsDistinctResults`.
    public let returnsDistinctResults: Bool
    /// The order of the result rows, total except for equal rows (Strata adds the group keys
    /// or the columns the request did not sort by).
    public let orders: [Order]
    /// Whether ties are broken by the object's primary key (one row per object).
    public let ordersByObject: Bool
    /// The most rows to return (0: no limit).
    public let fetchLimit: Int
    /// How many rows to skip first.
    public let fetchOffset: Int

    /// The store's form of `plan`, or nil when the plan is not simple (see the type's comment).
    init?(plan: DictionaryPlan) {
        guard plan.having == nil else { return nil }
        var keys: [AttributeDescription] = []
        for key in plan.groupKeys {
            guard let attribute = Self.rootAttribute(key.expression) else { return nil }
            keys.append(attribute)
        }
        func term(_ expression: ResultExpression) -> Term? {
            switch expression {
            case .row(let bound): return Self.rootAttribute(bound).map { .attribute($0) }
            case .groupKey(let index, _): return index < keys.count ? .attribute(keys[index]) : nil
            case .aggregate(let aggregate, let argument):
                guard let attribute = Self.rootAttribute(argument) else { return nil }
                switch aggregate {
                case .count: return .aggregate(.count, attribute)
                case .sum: return .aggregate(.sum, attribute)
                case .avg: return .aggregate(.average, attribute)
                case .min: return .aggregate(.minimum, attribute)
                case .max: return .aggregate(.maximum, attribute)
                }
            case .function: return nil
            }
        }
        var columns: [Term] = []
        for column in plan.columns.prefix(plan.visibleCount) {
            guard let term = term(column.expression) else { return nil }
            columns.append(term)
        }
        var orders: [Order] = []
        for order in plan.orders {
            guard let term = term(order.expression) else { return nil }
            orders.append(Order(term: term, ascending: order.ascending))
        }
        self.rows = StoreFetchRequest(plan: plan.rows)
        self.columns = columns
        self.groupBy = keys
        self.isAggregate = plan.isAggregate
        self.returnsDistinctResults = plan.distinct
        self.orders = orders
        self.ordersByObject = plan.ordersByObject
        self.fetchLimit = plan.limit
        self.fetchOffset = plan.offset
    }

    /// The attribute `expression` reads when it is a stored attribute of the fetched object
    /// itself (no relationship on the way).
    private static func rootAttribute(_ expression: BoundExpression) -> AttributeDescription? {
        guard case .attribute(let path, let attribute, _) = expression, case .root = path.base, path.steps.isEmpty, !attribute.isTransient else { return nil }
        return attribute
    }

    /// `value`, as a store returned it for `term`, in stored form: an attribute's (or
    /// minimum's, maximum's) value encoded as the attribute, a count or sum as an integer or a
    /// double, an average as a double. Throws 134070 for a value of another type.
    static func stored(_ value: Any?, for term: Term, store: IncrementalStore) throws -> StoredValue {
        guard let value = AttributeCodec.unwrapOptional(value) else { return .null }
        func wrong(_ expected: String) -> StrataError {
            StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "\(type(of: store)).fetchDictionaryRows(_:options:) returned a \(type(of: value)) where \(expected) was expected", url: store.url)
        }
        switch term {
        case .attribute(let attribute), .aggregate(.minimum, let attribute), .aggregate(.maximum, let attribute):
            switch AttributeCodec.encode(value, for: attribute) {
            case .success(let stored): return stored
            case .failure: throw wrong("a value of \(attribute.name) (\(attribute.type.rawValue))")
            }
        case .aggregate(.count, _), .aggregate(.sum, _), .aggregate(.average, _):
            switch value {
            case let int as Int64: return .integer(int)
            case let int as Int: return .integer(Int64(int))
            case let double as Double: return AttributeCodec.storedDouble(double)
            default: throw wrong("an Int64 or a Double")
            }
        }
    }
}
