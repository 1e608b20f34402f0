/// How deep a parsed tree is, so the parser can refuse trees too deep for the recursive code
/// that walks them (binder, evaluators, formatter, SQL compiler). A left-associative chain such
/// as `a - b - c - …` is parsed in a loop but is as deep as it is long.
///
/// The checks stop as soon as the limit is passed, so they recurse at most `limit` levels
/// themselves, whatever the tree.
extension PredicateNode {
    /// Whether the tree is more than `limit` levels deep.
    func isDeeper(than limit: Int) -> Bool {
        if limit < 0 { return true }
        switch self {
        case .constant: return false
        case .and(let terms), .or(let terms): return terms.contains { $0.isDeeper(than: limit - 1) }
        case .not(let term): return term.isDeeper(than: limit - 1)
        case .comparison(let comparison):
            return comparison.lhs.isDeeper(than: limit - 1) || comparison.rhs.isDeeper(than: limit - 1)
        }
    }
}

extension ExpressionNode {
    /// Whether the tree is more than `limit` levels deep.
    func isDeeper(than limit: Int) -> Bool {
        if limit < 0 { return true }
        switch self {
        case .constant(let value): return value.isDeeper(than: limit - 1)
        case .evaluatedObject, .variable, .keyPath: return false
        case .keyPathFrom(let base, _): return base.isDeeper(than: limit - 1)
        case .function(_, let arguments), .aggregate(let arguments): return arguments.contains { $0.isDeeper(than: limit - 1) }
        case .subquery(let collection, _, let predicate):
            return collection.isDeeper(than: limit - 1) || predicate.isDeeper(than: limit - 1)
        case .conditional(let condition, let whenTrue, let whenFalse):
            return condition.isDeeper(than: limit - 1) || whenTrue.isDeeper(than: limit - 1) || whenFalse.isDeeper(than: limit - 1)
        }
    }
}

extension PredicateValue {
    /// Whether nested constant arrays go more than `limit` levels deep.
    func isDeeper(than limit: Int) -> Bool {
        if limit < 0 { return true }
        if case .array(let items) = self { return items.contains { $0.isDeeper(than: limit - 1) } }
        return false
    }
}
