import Foundation

/// Evaluates a property mapping's value expression with the migration's variables bound.
///
/// Reads of a variable (`$source`, `$source.address.city`) keep managed objects as objects, so
/// relationship mappings get objects back. `FUNCTION($entityPolicy, "sel", …)` calls the
/// policy's `value(forFunction:arguments:manager:)`; `FUNCTION($manager, …)` answers Core
/// Data's two lookups (`destinationInstancesForEntityMappingNamed:sourceInstances:` and
/// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`). Everything else goes to
/// the shared evaluator (Predicates/Evaluation/DynamicEvaluator.swift) after such calls are
/// replaced by their values. Used on the migrating thread only.
struct MigrationExpressionEvaluator {
    let variables: [String: Any]
    let manager: MigrationManager
    let policy: EntityMigrationPolicy

    /// The raw value of `expression`: objects stay objects, collections stay collections.
    func value(of expression: ObjectExpression) throws -> Any? {
        if let error = expression.syntaxError { throw error }
        return try raw(expression.node)
    }

    private func raw(_ node: ExpressionNode) throws -> Any? {
        switch node {
        case .constant(let value): return value.anyValue
        case .variable(let name):
            guard let value = variables[name] else { throw missing(name) }
            return value
        case .keyPathFrom(.variable(let name), let components) where !components.contains(where: { $0.hasPrefix("@") }):
            guard let base = variables[name] else { throw missing(name) }
            return KeyPathWalker.value(of: base, components: components[...])
        case .keyPath(let components) where !components.contains(where: { $0.hasPrefix("@") }):
            return KeyPathWalker.value(of: variables[MigrationVariable.source], components: components[...])
        case .evaluatedObject: return variables[MigrationVariable.source]
        case .function(let name, let args):
            if let receiver = Self.receiverName(args), receiver == MigrationVariable.entityPolicy || receiver == MigrationVariable.manager {
                let arguments = try args.dropFirst().map { try raw($0) }
                return try call(name, on: receiver, arguments: arguments)
            }
            fallthrough
        default:
            var evaluator = DynamicEvaluator(variables: variables)
            return try evaluator.value(of: try resolvingCalls(node), on: variables[MigrationVariable.source]).anyValue
        }
    }

    private static func receiverName(_ args: [ExpressionNode]) -> String? {
        if case .variable(let name)? = args.first { return name }
        return nil
    }

    /// `node` with every `FUNCTION($entityPolicy|$manager, …)` replaced by its value.
    private func resolvingCalls(_ node: ExpressionNode) throws -> ExpressionNode {
        switch node {
        case .function(let name, let args):
            if let receiver = Self.receiverName(args), receiver == MigrationVariable.entityPolicy || receiver == MigrationVariable.manager {
                let result = try call(name, on: receiver, arguments: try args.dropFirst().map { try raw($0) })
                guard let constant = PredicateValue(any: result) else {
                    throw StrataError(
                        code: StrataError.Code.entityMigrationPolicy, message: "FUNCTION($\(receiver), '\(name)') returned a \(type(of: result as Any)), which cannot be used inside an expression")
                }
                return .constant(constant)
            }
            return .function(name, try args.map(resolvingCalls))
        case .keyPathFrom(let base, let components): return .keyPathFrom(try resolvingCalls(base), components)
        case .aggregate(let items): return .aggregate(try items.map(resolvingCalls))
        case .conditional(let condition, let whenTrue, let whenFalse):
            return .conditional(condition, try resolvingCalls(whenTrue), try resolvingCalls(whenFalse))
        default: return node
        }
    }

    private func call(_ selector: String, on receiver: String, arguments: [Any?]) throws -> Any? {
        if receiver == MigrationVariable.entityPolicy {
            return try policy.value(forFunction: selector, arguments: arguments, manager: manager)
        }
        let sources = MigrationObjects.objects(in: arguments.count > 1 ? arguments[1] : nil)
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard let name = arguments.first as? String else { break }
            return manager.destinationInstances(forEntityMappingName: name, sourceInstances: sources)
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard let name = arguments.first as? String, let mapping = manager.currentEntityMapping,
                let relationship = manager.destinationRelationship(named: name, of: mapping)
            else { break }
            return manager.destinationInstances(forSourceObjects: sources, relationship: relationship)
        default: break
        }
        throw StrataError(
            code: StrataError.Code.entityMigrationPolicy,
            message:
                "FUNCTION($manager, '\(selector)', …) is not supported: use destinationInstancesForEntityMappingNamed:sourceInstances: or destinationInstancesForSourceRelationshipNamed:sourceInstances:"
        )
    }

    private func missing(_ name: String) -> StrataError {
        StrataError(
            code: StrataError.Code.entityMigrationPolicy,
            message: "The variable $\(name) has no value here (migration expressions know $source, $destination, $manager, $entityMapping, $propertyMapping and $entityPolicy)")
    }
}

/// Turning an expression's raw value into managed objects.
enum MigrationObjects {
    /// The managed objects in `value`: one object, a set or array of them, or a relationship
    /// collection; `nil` and other values give none.
    static func objects(in value: Any?) -> [ManagedObject] {
        switch value {
        case nil: return []
        case let object as ManagedObject: return [object]
        case let array as [ManagedObject]: return array
        case let set as Set<ManagedObject>: return Array(set)
        case let collection as any KeyValueReadableCollection: return collection.keyValueObjects.compactMap { $0 as? ManagedObject }
        case let array as [Any]: return array.compactMap { $0 as? ManagedObject }
        case let sequence as any Sequence: return members(of: sequence)
        default: return []
        }
    }

    private static func members<S: Sequence>(of sequence: S) -> [ManagedObject] {
        sequence.compactMap { $0 as? ManagedObject }
    }
}
