import Foundation

extension FetchedPropertyDescription {
    /// The name of the variable that stands for the source object in a fetched property's
    /// predicate.
    static let fetchSourceVariable = "FETCH_SOURCE"

    /// The request to run for `source`: a copy of ``fetchRequest`` whose predicate has
    /// `$FETCH_SOURCE` replaced by the source object and every key path from it
    /// (`$FETCH_SOURCE.department`, `$FETCH_SOURCE.department.company`) replaced by its current
    /// value on the source, so the store sees constants only. Nil without a request. Runs on the
    /// source's context's queue (reading key paths may fire faults).
    func request(for source: ManagedObject) -> FetchRequest<ManagedObject>? {
        guard let template = fetchRequest else { return nil }
        let request = template.copy()
        if let predicate = request.predicate, predicate.syntaxError == nil {
            let resolver = FetchSourceResolver(source: source)
            request.predicate = ObjectPredicate(node: resolver.resolve(predicate.node))
        }
        return request
    }
}

/// Replaces `$FETCH_SOURCE` and key paths from it by their values for one source object.
struct FetchSourceResolver {
    let source: ManagedObject

    func resolve(_ node: PredicateNode) -> PredicateNode {
        switch node {
        case .and(let terms): return .and(terms.map(resolve))
        case .or(let terms): return .or(terms.map(resolve))
        case .not(let inner): return .not(resolve(inner))
        case .comparison(var comparison):
            comparison.lhs = resolve(comparison.lhs)
            comparison.rhs = resolve(comparison.rhs)
            return .comparison(comparison)
        default:
            return node
        }
    }

    func resolve(_ node: ExpressionNode) -> ExpressionNode {
        let name = FetchedPropertyDescription.fetchSourceVariable
        switch node {
        case .variable(name):
            return .constant(.objectID(source.objectID))
        case .keyPathFrom(.variable(name), let components):
            let value = KeyPathWalker.value(of: source, components: components[...])
            // A value no predicate can hold (a transformable) stays a variable: the fetch then
            // throws naming it.
            return PredicateValue(any: value).map { .constant($0) } ?? node
        case .keyPathFrom(let base, let components):
            return .keyPathFrom(resolve(base), components)
        case .function(let function, let arguments):
            return .function(function, arguments.map(resolve))
        case .aggregate(let items):
            return .aggregate(items.map(resolve))
        case .subquery(let collection, let variable, let predicate):
            return .subquery(resolve(collection), variable, resolve(predicate))
        case .conditional(let condition, let whenTrue, let whenFalse):
            return .conditional(resolve(condition), resolve(whenTrue), resolve(whenFalse))
        default:
            return node
        }
    }
}
