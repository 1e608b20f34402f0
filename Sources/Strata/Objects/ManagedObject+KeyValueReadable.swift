/// Managed objects as the predicate language reads them (`Predicates/KeyPathWalker.swift`).
extension ManagedObject: KeyValueReadable {
    /// `evaluate(with:)` on a managed object: the predicate is resolved against the object's
    /// entity as a fetch resolves it (`PredicateBinder`) and evaluated by the fetch's in-memory
    /// engine (`RowEvaluator`) over the object's values, firing its fault and reading its
    /// relationships (loaded as needed) as a fetch over unsaved changes does. So `evaluate(with:)`
    /// selects exactly what a fetch selects, aggregates over to-many key paths included.
    /// Complexity: resolving is linear in the predicate's size; it is done once for a run of
    /// objects of one entity (the predicate keeps the last resolution), except with
    /// substitution variables or `now()`, which are resolved on every call.
    func evaluateAsFetch(_ predicate: ObjectPredicate, variables: [String: Any]) throws -> Bool? {
        checkAccess("evaluate(with:)")
        let bound: BoundPredicate
        let key = ObjectIdentifier(entity)
        let keepsResolution = variables.isEmpty && !predicate.node.callsFunction("now")
        if keepsResolution, let cached = predicate.resolvedForObjects.value(for: key) as? ResolvedForObjects {
            bound = cached.predicate
        } else {
            var node = predicate.node
            if !variables.isEmpty {
                var substitution = VariableSubstitution(values: variables, requireAll: false)
                node = substitution.substitute(node)
                if substitution.error != nil { return nil }
            }
            var binder = PredicateBinder(entity: entity)
            do {
                bound = try binder.bind(node)
            } catch {
                if binder.metUnstoredProperty { return nil }
                throw error
            }
            if keepsResolution { predicate.resolvedForObjects.store(ResolvedForObjects(predicate: bound, entity: entity), for: key) }
        }
        var evaluator = RowEvaluator()
        return try evaluator.evaluate(bound, on: self)
    }
}

/// A predicate resolved against an entity, kept by the predicate for `evaluate(with:)`.
/// `@unchecked Sendable`: immutable; it holds model descriptions, which are frozen once the
/// model is in use, and constants, which are values. It keeps `entity` alive, so the
/// `ObjectIdentifier` it is stored under is not reused while it is stored.
private final class ResolvedForObjects: @unchecked Sendable {
    let predicate: BoundPredicate
    let entity: EntityDescription

    init(predicate: BoundPredicate, entity: EntityDescription) {
        self.predicate = predicate
        self.entity = entity
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
