/// Managed objects as the predicate language reads them (`Predicates/KeyPathWalker.swift`).
extension ManagedObject: KeyValueReadable {
    /// `evaluate(with:)` on a managed object: the predicate is resolved against the object's
    /// entity as a fetch resolves it (`PredicateBinder`) and evaluated by the fetch's in-memory
    /// engine (`RowEvaluator`) over the object's values, firing its fault and reading its
    /// relationships (loaded as needed) as a fetch over unsaved changes does. So `evaluate(with:)`
    /// selects exactly what a fetch selects, aggregates over to-many key paths included.
    func evaluateAsFetch(_ predicate: PredicateNode, variables: [String: Any]) throws -> Bool? {
        checkAccess("evaluate(with:)")
        var node = predicate
        if !variables.isEmpty {
            var substitution = VariableSubstitution(values: variables, requireAll: false)
            node = substitution.substitute(node)
            if substitution.error != nil { return nil }
        }
        var binder = PredicateBinder(entity: entity)
        let bound: BoundPredicate
        do {
            bound = try binder.bind(node)
        } catch where binder.metUnstoredProperty {
            return nil
        }
        var evaluator = RowEvaluator()
        return try evaluator.evaluate(bound, on: self)
    }
}

extension Set: KeyValueReadableCollection where Element == ManagedObject {
    var keyValueObjects: [any KeyValueReadable] { map { $0 } }
    var isOrderedKeyValueCollection: Bool { false }
}

extension Array: KeyValueReadableCollection where Element == ManagedObject {
    var keyValueObjects: [any KeyValueReadable] { map { $0 } }
    var isOrderedKeyValueCollection: Bool { true }
}
