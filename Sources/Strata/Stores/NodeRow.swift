/// Follows relationships for ``StoreFetchRequest/evaluate(_:in:options:)`` through a store's own
/// primitives, remembering what it loaded for the length of one evaluation. Used on the
/// evaluating thread only.
final class NodeResolver {
    private let store: IncrementalStore
    private let options: ReadOptions
    private var nodes: [ManagedObjectID: RowSnapshot?] = [:]
    private var members: [ObjectIdentifier: [ManagedObjectID: [ManagedObjectID]]] = [:]
    /// The first error a relationship load threw (the evaluator's row protocol cannot throw;
    /// `evaluate` rethrows it).
    private(set) var error: (any Error)?

    init(store: IncrementalStore, options: ReadOptions) {
        self.store = store
        self.options = options
    }

    func node(_ id: ManagedObjectID) -> RowSnapshot? {
        if let known = nodes[id] { return known }
        var loaded: RowSnapshot?
        do {
            loaded = try store.newValuesRowList(forObjectsWith: [id], options: options).rows.first
        } catch {
            if self.error == nil { self.error = error }
        }
        nodes[id] = loaded
        return loaded
    }

    func members(of owner: ManagedObjectID, relationship: RelationshipDescription) -> [ManagedObjectID] {
        let key = ObjectIdentifier(relationship)
        if let known = members[key]?[owner] { return known }
        var loaded: [ManagedObjectID] = []
        do {
            loaded = try store.newValues(forRelationship: relationship, forObjectsWith: [owner], options: options)[owner] ?? []
        } catch {
            if self.error == nil { self.error = error }
        }
        members[key, default: [:]][owner] = loaded
        return loaded
    }
}

/// A store's row as the in-memory evaluator reads it.
struct NodeRow: EvaluationRow {
    let node: RowSnapshot
    let resolver: NodeResolver
    /// The store's node that carries `node`, for a row ``StoreFetchRequest/evaluate(_:in:options:)``
    /// was given (it returns the store's own nodes); nil for rows reached through relationships.
    var origin: IncrementalStoreNode? = nil

    var evaluationObjectID: ManagedObjectID { node.objectID }

    func evaluationAttribute(slot: Int) -> StoredValue {
        slot < node.valueCount ? node.value(at: slot) : .null
    }

    func evaluationToOneID(slot: Int) -> ManagedObjectID? {
        slot < node.toOneCount ? node.toOne(at: slot) : nil
    }

    func evaluationToOneRow(slot: Int) -> (any EvaluationRow)? {
        guard let id = evaluationToOneID(slot: slot), let target = resolver.node(id) else { return nil }
        return NodeRow(node: target, resolver: resolver)
    }

    func evaluationToManyRows(slot: Int) -> [any EvaluationRow] {
        let relationships = node.entity.layout.toManyRelationships
        guard slot < relationships.count else { return [] }
        return resolver.members(of: node.objectID, relationship: relationships[slot]).compactMap { id in
            resolver.node(id).map { NodeRow(node: $0, resolver: resolver) }
        }
    }
}
