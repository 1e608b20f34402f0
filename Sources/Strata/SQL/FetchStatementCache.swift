import Foundation

/// The compiled SELECTs of a store's fetches, by ``FetchShapeKey``: a fetch of a shape met
/// before costs one walk of its plan (the key and the constants) and a lookup, instead of
/// writing the statement's text again (joins, predicate, order, columns). Core Data's SQLite
/// store likewise reuses the statement of a request whose shape it has compiled.
///
/// The first plan of a shape is compiled twice: as it is, and with each constant replaced by a
/// marker of its storage class (`FetchShapeWalker.marker(for:index:)`). The two texts must be
/// the same, and the markers' places in the bindings say which constant each binding is (any
/// other binding is a literal of the shape, such as the -1 of an unsaved object); the recipe is
/// kept only if it rebuilds that first plan's own bindings exactly, else the shape is
/// remembered as one to compile every time. LIMIT and OFFSET, the last two bindings when
/// present, are bound from each plan.
///
/// Thread-safe (the memo locks); bounded (`capacity` shapes; a full cache empties, as
/// `BoundedMemo` does). Its schema is immutable, so nothing invalidates an entry; a plan of
/// another model's entity is compiled without the cache.
final class FetchStatementCache: Sendable {
    /// A shape's statement: its text, and where each binding before LIMIT / OFFSET comes from.
    struct Recipe: Sendable {
        let text: String
        /// Per binding: the index of the plan constant it binds, or `-1 - i` for `literals[i]`.
        let sources: [Int]
        let literals: [StoredValue]
        let bindsWindow: Bool

        /// The statement of a plan of this shape, with `constants` collected from it.
        func fragment(constants: [StoredValue], limit: Int, offset: Int) -> SQLFragment? {
            var bindings: [StoredValue] = []
            bindings.reserveCapacity(sources.count + 2)
            for source in sources {
                if source >= 0 {
                    guard source < constants.count else { return nil }
                    bindings.append(constants[source])
                } else {
                    bindings.append(literals[-1 - source])
                }
            }
            if bindsWindow {
                // Appended one by one: `window(limit:offset:)` would make an array per fetch.
                bindings.append(FetchStatementCache.limitBinding(limit))
                bindings.append(.integer(Int64(offset)))
            }
            return SQLFragment(text, bindings)
        }
    }

    private let memo: BoundedMemo<FetchShapeKey, Recipe?>
    private let model: ManagedObjectModel

    /// The most shapes the cache holds.
    static let defaultCapacity = 256
    /// Plans with more constants than this (long `IN` lists, whose every length is a shape of
    /// its own) are compiled without the cache: a miss compiles twice.
    static let mostConstants = 64

    init(model: ManagedObjectModel, capacity: Int = FetchStatementCache.defaultCapacity) {
        self.model = model
        self.memo = BoundedMemo(capacity: capacity)
    }

    /// The number of shapes held now (compilable or not).
    var count: Int { memo.count }

    /// The statement of `plan` as `compile` writes it: from the cache when a plan of its shape
    /// was compiled before, else compiled (and its shape's recipe derived and kept).
    func statement(_ plan: FetchPlan, kind: FetchStatementKind, compile: (FetchPlan) throws -> SQLFragment) throws -> SQLFragment {
        guard plan.entity.managedObjectModel === model else { return try compile(plan) }
        var walker = FetchShapeWalker(marking: false)
        _ = walker.walk(plan, kind: kind)
        guard walker.isCacheable, walker.constants.count <= Self.mostConstants else { return try compile(plan) }
        let constants = walker.constants
        var compiledNow: SQLFragment?
        let recipe = try memo.value(for: walker.key) { () throws -> Recipe? in
            let compiled = try compile(plan)
            compiledNow = compiled
            return try Self.recipe(plan, kind: kind, compiled: compiled, constants: constants, compile: compile)
        }
        if let compiledNow { return compiledNow }
        if let recipe, let fragment = recipe.fragment(constants: constants, limit: plan.limit, offset: plan.offset) { return fragment }
        return try compile(plan)
    }

    /// The recipe of `plan`'s shape, or `nil` when the marked compilation does not explain
    /// `compiled` exactly.
    static func recipe(
        _ plan: FetchPlan, kind: FetchStatementKind, compiled: SQLFragment, constants: [StoredValue], compile: (FetchPlan) throws -> SQLFragment
    ) throws -> Recipe? {
        var marking = FetchShapeWalker(marking: true)
        let marked = try compile(marking.walk(plan, kind: kind))
        guard marked.text == compiled.text, marked.bindings.count == compiled.bindings.count else { return nil }
        let bindsWindow = plan.limit > 0 || plan.offset > 0
        var markedBindings = marked.bindings[...]
        if bindsWindow {
            let window = Self.window(limit: plan.limit, offset: plan.offset)
            guard markedBindings.count >= 2, Array(markedBindings.suffix(2)) == window, Array(compiled.bindings.suffix(2)) == window else { return nil }
            markedBindings = markedBindings.dropLast(2)
        }
        var markers: [StoredValue: Int] = [:]
        for (index, value) in constants.enumerated() {
            if let marker = FetchShapeWalker.marker(for: value, index: index) { markers[marker] = index }
        }
        var sources: [Int] = []
        var literals: [StoredValue] = []
        for binding in markedBindings {
            if let index = markers[binding] {
                sources.append(index)
            } else {
                literals.append(binding)
                sources.append(-literals.count)
            }
        }
        let recipe = Recipe(text: compiled.text, sources: sources, literals: literals, bindsWindow: bindsWindow)
        guard let rebuilt = recipe.fragment(constants: constants, limit: plan.limit, offset: plan.offset), rebuilt.bindings.count == compiled.bindings.count,
            zip(rebuilt.bindings, compiled.bindings).allSatisfy({ $0.isIdentical(to: $1) })
        else { return nil }
        return recipe
    }

    /// The bindings of `LIMIT ? OFFSET ?` (`-1`, SQLite's "no limit", without a limit).
    static func window(limit: Int, offset: Int) -> [StoredValue] {
        [limitBinding(limit), .integer(Int64(offset))]
    }

    /// The binding of `LIMIT ?`: `limit`, or `-1` (SQLite's "no limit") when it is 0.
    static func limitBinding(_ limit: Int) -> StoredValue {
        .integer(limit > 0 ? Int64(limit) : -1)
    }
}
