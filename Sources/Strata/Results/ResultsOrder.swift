import Foundation

/// How a fetched-results controller orders, filters and sections objects in memory: the fetch
/// request's predicate and sort descriptors resolved once against the entity (the same plan the
/// context's fetch runs), its section key path, and the relationship chains those key paths
/// walk (so a change of a related object can be traced back to the fetched objects it moves).
/// Used on the controller's context's queue.
struct ResultsOrder {
    /// The fetch's resolved entity, predicate and sorts.
    let plan: FetchPlan
    /// The key path whose value names an object's section (`nil`: one section).
    let sectionNameKeyPath: String?
    /// Relationship chains from the fetched entity that the predicate, the sorts and the section
    /// key path walk to reach values of other objects: a change of an object along a chain may
    /// change a fetched object's membership or place.
    let relatedChains: [[RelationshipDescription]]
    /// The chains the predicate walks: a change of an object along one may bring in an object
    /// that is not in the results yet.
    let predicateChains: [[RelationshipDescription]]

    init(plan: FetchPlan, sectionNameKeyPath: String?) throws {
        self.plan = plan
        self.sectionNameKeyPath = sectionNameKeyPath
        var chains: [[RelationshipDescription]] = []
        if let predicate = plan.predicate { Self.collectChains(predicate, prefixes: [:], into: &chains) }
        predicateChains = Self.distinct(chains)
        for sort in plan.sorts { Self.collectChains(sort.expression, prefixes: [:], into: &chains) }
        if let sectionNameKeyPath {
            chains.append(try Self.relationshipChain(of: sectionNameKeyPath, from: plan.entity))
        }
        relatedChains = Self.distinct(chains)
    }

    /// The non-empty chains of `chains`, each once.
    private static func distinct(_ chains: [[RelationshipDescription]]) -> [[RelationshipDescription]] {
        var seen = Set<[ObjectIdentifier]>()
        return chains.filter { !$0.isEmpty && seen.insert($0.map(ObjectIdentifier.init)).inserted }
    }

    // MARK: Keys

    /// An object's place in the order: its sort keys prepared for their collations, then its ID
    /// (the store's tie-break: primary key, unsaved objects after saved ones).
    struct Key {
        var values: [CollatedValue]
        var id: ManagedObjectID
    }

    /// `object`'s key now. A key path that cannot be evaluated sorts as NULL.
    func key(of object: ManagedObject) -> Key {
        var evaluator = RowEvaluator()
        var values: [CollatedValue] = []
        values.reserveCapacity(plan.sorts.count)
        for sort in plan.sorts {
            var value = StoredValue.null
            if case .value(let computed)? = try? evaluator.operand(sort.expression, on: object) { value = computed }
            values.append(CollatedValue(value, collation: sort.collation))
        }
        return Key(values: values, id: object.objectID)
    }

    /// Three-way comparison of two keys in the fetch's order: -1, 0 (same key) or 1.
    func compare(_ a: Key, _ b: Key) -> Int {
        for index in plan.sorts.indices {
            let order = CollatedValue.compare(a.values[index], b.values[index])
            if order != 0 { return plan.sorts[index].ascending ? order : -order }
        }
        if a.id == b.id { return 0 }
        return FetchPlan.idOrder(a.id, b.id) ? -1 : 1
    }

    /// Whether two keys put an object at the same place (same values and ID).
    func same(_ a: Key, _ b: Key) -> Bool { compare(a, b) == 0 }

    /// The name of `object`'s section: the description of its value at the section key path
    /// (an empty name for nil), or "" when the controller has no sections.
    func sectionName(of object: ManagedObject) -> String {
        guard let sectionNameKeyPath else { return "" }
        guard let value = object.value(forKeyPath: sectionNameKeyPath) else { return "" }
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.description }
        return String(describing: value)
    }

    /// Whether `object` belongs in the results: of the fetched entity (or a sub-entity when the
    /// fetch includes them), not deleted, and matching the predicate.
    func includes(_ object: ManagedObject) -> Bool {
        guard !object.isDeleted, object.managedObjectContext != nil else { return false }
        return (try? plan.matches(object)) ?? false
    }

    // MARK: Related objects

    /// Objects not in the results that may enter them because `object` changed: those whose
    /// predicate reaches `object` along a predicate chain, found by walking the chain's inverse
    /// relationships back from it; `nil` when such a chain has a relationship without an inverse
    /// (the caller must then fetch again). The results' own members that reach `object` are
    /// known to the layout (``ResultsLayout/dependents(of:)``).
    func candidateRoots(of object: ManagedObject) -> [ManagedObject]? {
        let entity = object.entity
        var roots: [ManagedObject] = []
        for chain in predicateChains {
            for depth in 1...chain.count {
                guard let destination = chain[depth - 1].destinationEntity, entity.isKindOf(entity: destination) else { continue }
                var level: [ManagedObject] = [object]
                for step in chain[0..<depth].reversed() {
                    guard let inverse = step.inverseRelationship else { return nil }
                    level = level.flatMap { Self.objects(of: $0, through: inverse) }
                }
                roots.append(contentsOf: level)
            }
        }
        return roots
    }

    /// The objects `object` reaches along the related chains (each chain's objects at every
    /// depth). The controller holds them: the context holds registered objects weakly, and an
    /// object that is not registered hears of no merged change, so without this a related
    /// object's change saved elsewhere would never reach the controller (in Core Data the
    /// relationship itself holds the related object once it was read).
    func relatedObjects(of object: ManagedObject) -> [ManagedObject] {
        var reached: [ManagedObject] = []
        for chain in relatedChains {
            var level: [ManagedObject] = [object]
            for step in chain {
                let next = level.flatMap { Self.objects(of: $0, through: step) }
                reached.append(contentsOf: next)
                level = next
            }
        }
        return reached
    }

    /// The objects `member` reaches through `relationship`: its destination (to-one) or members
    /// (to-many, ordered or not); none when it is nil.
    private static func objects(of member: ManagedObject, through relationship: RelationshipDescription) -> [ManagedObject] {
        switch member.value(forKey: relationship.name) {
        case let single as ManagedObject: return [single]
        case let many as Set<ManagedObject>: return Array(many)
        case let ordered as [ManagedObject]: return ordered
        default: return []
        }
    }

    /// The chain of relationships a dotted key path walks from `entity` before its last
    /// component (to-one or to-many). Throws for an unknown key.
    static func relationshipChain(of keyPath: String, from entity: EntityDescription) throws -> [RelationshipDescription] {
        var chain: [RelationshipDescription] = []
        var current = entity
        let components = keyPath.split(separator: ".").map(String.init)
        for (index, component) in components.enumerated() {
            guard let property = current.propertiesByName[component] else {
                throw StrataError(
                    code: StrataError.Code.coreData, message: "The section name key path '\(keyPath)' names no property '\(component)' of \(current.name)",
                    entityName: current.name, key: keyPath)
            }
            guard index < components.count - 1 else { break }
            guard let relationship = property as? RelationshipDescription, let destination = relationship.destinationEntity else {
                throw StrataError(
                    code: StrataError.Code.coreData, message: "The section name key path '\(keyPath)' goes through '\(component)', which is not a relationship of \(current.name)",
                    entityName: current.name, key: keyPath)
            }
            chain.append(relationship)
            current = destination
        }
        return chain
    }

    // MARK: Collecting chains

    private typealias Prefixes = [String: [RelationshipDescription]]

    private static func chain(of path: BoundPath, prefixes: Prefixes) -> [RelationshipDescription] {
        switch path.base {
        case .root: return path.steps
        case .variable(let name): return (prefixes[name] ?? []) + path.steps
        }
    }

    private static func collectChains(_ predicate: BoundPredicate, prefixes: Prefixes, into chains: inout [[RelationshipDescription]]) {
        switch predicate {
        case .constant: break
        case .and(let items), .or(let items): for item in items { collectChains(item, prefixes: prefixes, into: &chains) }
        case .not(let inner): collectChains(inner, prefixes: prefixes, into: &chains)
        case .comparison(let comparison):
            collectChains(comparison.lhs, prefixes: prefixes, into: &chains)
            collectChains(comparison.rhs, prefixes: prefixes, into: &chains)
        case .quantified(_, let collection, let variable, let body):
            let chain = collectChains(collection, prefixes: prefixes, into: &chains)
            var inner = prefixes
            inner[variable] = chain
            collectChains(body, prefixes: inner, into: &chains)
        }
    }

    @discardableResult
    private static func collectChains(_ collection: BoundCollection, prefixes: Prefixes, into chains: inout [[RelationshipDescription]]) -> [RelationshipDescription] {
        let chain = chain(of: collection.path, prefixes: prefixes) + [collection.relationship]
        chains.append(chain)
        if let filter = collection.filter {
            var inner = prefixes
            inner[filter.variable] = chain
            collectChains(filter.predicate, prefixes: inner, into: &chains)
        }
        return chain
    }

    private static func collectChains(_ expression: BoundExpression, prefixes: Prefixes, into chains: inout [[RelationshipDescription]]) {
        switch expression {
        case .constant, .objectConstant, .resultColumn: break
        case .list(let items): for item in items { collectChains(item, prefixes: prefixes, into: &chains) }
        case .attribute(let path, _, _): chains.append(chain(of: path, prefixes: prefixes))
        case .object(let path):
            // The object at the end is named by the last step's owner: its chain stops before.
            chains.append(Array(chain(of: path, prefixes: prefixes).dropLast()))
        case .aggregate(_, let collection, _): collectChains(collection, prefixes: prefixes, into: &chains)
        case .function(_, let args): for arg in args { collectChains(arg, prefixes: prefixes, into: &chains) }
        case .conditional(let condition, let a, let b):
            collectChains(condition, prefixes: prefixes, into: &chains)
            collectChains(a, prefixes: prefixes, into: &chains)
            collectChains(b, prefixes: prefixes, into: &chains)
        }
    }
}
