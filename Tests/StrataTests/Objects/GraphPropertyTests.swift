import Foundation
import Strata
import StrataTestSupport
import Testing

/// The seeded property test of the object graph: random edits (insert, delete, link, unlink,
/// reorder, replace) build a graph of 10,000 objects and 50,000 edges, saved in random batches
/// through several contexts; after reopening, every edge matches a plain in-memory model of
/// the same edits and every inverse agrees. Set STRATA_GRAPH_SEED to replay another seed.
@Suite("Object graph property test")
struct GraphPropertyTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["STRATA_GRAPH_SEED"].flatMap { UInt64($0) } ?? 0x5EED_6A_1234

    @Test("a random graph of 10,000 objects and 50,000 edges survives save → reopen", arguments: TestStack.Kind.allCases)
    func randomGraph(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.network(), kind: kind, recordsSQL: false)
        let driver = GraphDriver(stack: stack, seed: Self.seed ^ (kind == .sqlite ? 0 : 0xABCD))
        try driver.run(nodes: 10_000, edges: 50_000)
        #expect(driver.reference.count >= 10_000)
        #expect(driver.reference.edges >= 50_000)
        #expect(driver.saves > 10, "edits were saved in many batches")
        try stack.reopen()
        try driver.verify(in: stack.newContext())
    }

    @Test("a small random graph, verified after every batch", arguments: TestStack.Kind.allCases)
    func smallGraphEveryBatch(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.network(), kind: kind)
        let driver = GraphDriver(stack: stack, seed: Self.seed &+ 7, maximumBatch: 60)
        // Unowned: the driver holds this closure, and a strong capture kept both (and the
        // stack with its folder) alive after the test.
        driver.afterSave = { [unowned driver] in
            try stack.reopen()
            try driver.verify(in: stack.newContext())
            try driver.reloadIDs()
        }
        try driver.run(nodes: 120, edges: 500)
    }
}

/// Runs random edits on both a store (through contexts) and a `GraphReference`.
final class GraphDriver {
    let stack: TestStack
    var random: SeededRandom
    var reference = GraphReference()
    let maximumBatch: Int
    /// Called after each save (the small test verifies there).
    var afterSave: (() throws -> Void)?
    private(set) var saves = 0

    private var ids: [Int64: ManagedObjectID] = [:]
    private var nextLabel: Int64 = 1
    private var context: ManagedObjectContext
    /// Objects the current context has touched, held so they stay registered (and loaded)
    /// across its saves.
    private var live: [Int64: ManagedObject] = [:]
    private var batchesLeftInContext = 0

    init(stack: TestStack, seed: UInt64, maximumBatch: Int = 12_000) {
        self.stack = stack
        self.random = SeededRandom(seed: seed)
        self.maximumBatch = maximumBatch
        self.context = stack.newContext()
    }

    // MARK: Running

    func run(nodes: Int, edges: Int) throws {
        while reference.count < nodes || reference.edges < edges {
            if batchesLeftInContext == 0 {
                context = stack.newContext()
                live = [:]
                batchesLeftInContext = 1 + random.below(6)
            }
            batchesLeftInContext -= 1
            // Half the batches are small, the other half carry most of the edits.
            let size = random.chance(0.5) ? 1 + random.below(max(1, maximumBatch / 60)) : maximumBatch / 6 + random.below(maximumBatch)
            try context.performAndWait {
                for _ in 0..<size { step(nodes: nodes, edges: edges) }
                try context.save()
                for (label, object) in live where ids[label] != nil { ids[label] = object.objectID }
            }
            saves += 1
            try afterSave?()
        }
    }

    /// Re-reads every label's ID (after a reopen, IDs of the old coordinator no longer apply).
    func reloadIDs() throws {
        context = stack.newContext()
        live = [:]
        batchesLeftInContext = 0
        ids = [:]
        try context.performAndWait {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Node")) {
                if let label = object.value(forKey: "label") as? Int64 { ids[label] = object.objectID }
            }
        }
    }

    private func object(_ label: Int64) -> ManagedObject {
        if let object = live[label] { return object }
        guard let id = ids[label] else {
            // Cannot happen (the driver only picks live labels); a detached object makes the
            // next save fail loudly rather than the test crash.
            Issue.record("no ID for label \(label)")
            return ManagedObject(entity: EntityDescription(name: "Missing"), insertInto: nil)
        }
        let object = context.object(with: id)
        live[label] = object
        return object
    }

    private func pick() -> Int64? { reference.random(using: &random) }

    /// One random edit, applied to the context and to the reference.
    private func step(nodes: Int, edges: Int) {
        let growing = reference.count < nodes
        let linking = reference.edges < edges
        let weights: [(Int, () -> Void)] = [
            (growing || reference.count < 2 ? 14 : 0, insert),
            (reference.count > 20 ? 1 : 0, delete),
            (linking ? 8 : 2, setParent),
            (linking ? 6 : 2, insertChild),
            (linking ? 4 : 1, setPartner),
            (linking ? 14 : 3, link),
            (linking ? 8 : 2, peer),
            (linking ? 8 : 2, addToSequence),
            (linking ? 6 : 1, tag),
            (linking ? 2 : 1, setOwner),
            (4, unlinkSomething),
            (3, reorder),
            (2, relink),
            (1, replace),
        ]
        let total = weights.reduce(0) { $0 + $1.0 }
        var roll = random.below(total)
        for (weight, action) in weights {
            if roll < weight {
                action()
                return
            }
            roll -= weight
        }
    }

    // MARK: Edits

    private func insert() {
        let label = nextLabel
        nextLabel += 1
        let hub = random.chance(0.2)
        let object: ManagedObject = hub ? Hub(context: context) : Node(context: context)
        object.setValue(label, forKey: "label")
        live[label] = object
        ids[label] = object.objectID
        reference.insert(label, hub: hub)
    }

    private func delete() {
        guard let label = pick() else { return }
        // A relationship without an inverse is not cleaned up by a delete: the store drops the
        // join rows of a saved object, but a reference to an object that was never saved must
        // be removed by hand (else the save reports a dangling reference).
        for doomed in reference.cascade(from: label) where ids[doomed]?.isTemporaryID == true {
            for source in reference.taggedBy[doomed] ?? [] {
                object(source).mutableSetValue(forKey: "tags").remove(object(doomed))
            }
        }
        context.delete(object(label))
        for gone in reference.delete(label) {
            ids[gone] = nil
            live[gone] = nil
        }
    }

    private func setParent() {
        guard let child = pick() else { return }
        let parent = random.chance(0.1) ? nil : pick()
        object(child).setValue(parent.map(object), forKey: "parent")
        reference.setParent(child, parent)
    }

    private func insertChild() {
        guard let parent = pick(), let child = pick() else { return }
        let index = random.below((reference.children[parent]?.count ?? 0) + 1)
        object(parent).mutableOrderedSetValue(forKey: "children").insert(object(child), at: index)
        reference.insertChild(child, of: parent, at: index)
    }

    private func setPartner() {
        guard let node = pick() else { return }
        let partner = random.chance(0.1) ? nil : pick()
        object(node).setValue(partner.map(object), forKey: "partner")
        reference.setPartner(node, partner)
    }

    private func link() {
        guard let source = pick(), let target = pick() else { return }
        if random.chance(0.5) {
            object(source).mutableSetValue(forKey: "links").add(object(target))
        } else {
            object(target).mutableSetValue(forKey: "backlinks").add(object(source))
        }
        reference.link(source, target)
    }

    private func peer() {
        guard let a = pick(), let b = pick(), a != b else { return }
        object(a).mutableSetValue(forKey: "peers").add(object(b))
        reference.peer(a, b)
    }

    private func addToSequence() {
        guard let owner = pick(), let member = pick() else { return }
        if random.chance(0.3) {
            object(member).mutableSetValue(forKey: "inSequences").add(object(owner))
            reference.addToSequence(owner, member, at: nil)
        } else {
            let alreadyThere = reference.inSequences[member]?.contains(owner) == true
            let index = random.below((reference.sequence[owner]?.count ?? 0) + 1)
            object(owner).mutableOrderedSetValue(forKey: "sequence").insert(object(member), at: index)
            if !alreadyThere { reference.addToSequence(owner, member, at: index) }
        }
    }

    private func tag() {
        guard let source = pick(), let target = pick() else { return }
        object(source).mutableSetValue(forKey: "tags").add(object(target))
        reference.tag(source, target)
    }

    private func setOwner() {
        guard let item = pick() else { return }
        let owner = random.chance(0.2) ? nil : pick()
        object(item).setValue(owner.map(object), forKey: "owner")
        reference.setOwner(item, owner)
    }

    /// Removes one existing edge of a random kind.
    private func unlinkSomething() {
        guard let node = pick() else { return }
        switch random.below(6) {
        case 0:
            guard let children = reference.children[node], !children.isEmpty else { return }
            let index = random.below(children.count)
            let child = children[index]
            object(node).mutableOrderedSetValue(forKey: "children").removeObject(at: index)
            reference.setParent(child, nil)
        case 1:
            guard let target = reference.links[node]?.randomElement(using: &random) else { return }
            object(node).mutableSetValue(forKey: "links").remove(object(target))
            reference.unlink(node, target)
        case 2:
            guard let other = reference.peers[node]?.randomElement(using: &random) else { return }
            object(other).mutableSetValue(forKey: "peers").remove(object(node))
            reference.unpeer(node, other)
        case 3:
            guard let members = reference.sequence[node], !members.isEmpty else { return }
            let member = members[random.below(members.count)]
            if random.chance(0.5) {
                object(node).mutableOrderedSetValue(forKey: "sequence").remove(object(member))
            } else {
                object(member).mutableSetValue(forKey: "inSequences").remove(object(node))
            }
            reference.removeFromSequence(node, member)
        case 4:
            guard let target = reference.tags[node]?.randomElement(using: &random) else { return }
            object(node).mutableSetValue(forKey: "tags").remove(object(target))
            reference.untag(node, target)
        default:
            guard let owned = reference.owned[node]?.randomElement(using: &random) else { return }
            object(node).mutableSetValue(forKey: "owned").remove(object(owned))
            reference.setOwner(owned, nil)
        }
    }

    /// Takes a member out of an ordered relationship and puts it back (at the end), through the
    /// inverse side: on a relationship that is not loaded both edits are recorded, and the
    /// result must still be the order loaded edits give.
    private func relink() {
        guard let node = pick() else { return }
        if random.chance(0.5) {
            guard let child = reference.children[node]?.randomElement(using: &random) else { return }
            object(child).setValue(nil, forKey: "parent")
            object(child).setValue(object(node), forKey: "parent")
            reference.setParent(child, nil)
            reference.setParent(child, node)
        } else {
            guard let owner = reference.inSequences[node]?.randomElement(using: &random) else { return }
            let memberships = object(node).mutableSetValue(forKey: "inSequences")
            memberships.remove(object(owner))
            memberships.add(object(owner))
            reference.removeFromSequence(owner, node)
            reference.addToSequence(owner, node, at: nil)
        }
    }

    /// Moves members of an ordered relationship.
    private func reorder() {
        guard let node = pick() else { return }
        let useChildren = random.chance(0.5)
        let count = (useChildren ? reference.children[node]?.count : reference.sequence[node]?.count) ?? 0
        guard count > 1 else { return }
        var indexes = IndexSet()
        for _ in 0..<(1 + random.below(min(3, count - 1))) { indexes.insert(random.below(count)) }
        let destination = random.below(count - indexes.count + 1)
        let key = useChildren ? "children" : "sequence"
        object(node).mutableOrderedSetValue(forKey: key).moveObjects(at: indexes, to: destination)
        if useChildren {
            reference.moveChildren(of: node, from: indexes, to: destination)
        } else {
            reference.moveSequence(of: node, from: indexes, to: destination)
        }
    }

    /// Replaces a whole to-many through setValue(_:forKey:).
    private func replace() {
        guard let node = pick() else { return }
        if random.chance(0.5) {
            var targets = Set(reference.links[node] ?? []).filter { _ in random.chance(0.7) }
            for _ in 0..<random.below(3) { if let extra = pick() { targets.insert(extra) } }
            object(node).setValue(Set(targets.map(object)), forKey: "links")
            reference.setLinks(node, targets)
        } else {
            var members = (reference.sequence[node] ?? []).filter { _ in random.chance(0.8) }
            for _ in 0..<random.below(3) { if let extra = pick(), !members.contains(extra) { members.append(extra) } }
            members.shuffle(using: &random)
            object(node).setValue(members.map(object), forKey: "sequence")
            reference.setSequence(node, members)
        }
    }

    // MARK: Verifying

    /// Loads every node with all of its relationships (one query per relationship) and
    /// compares each edge with the reference, then checks every inverse in the stored data.
    func verify(in context: ManagedObjectContext) throws {
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Node")
            request.returnsObjectsAsFaults = false
            request.relationshipKeyPathsForPrefetching = ["children", "links", "backlinks", "peers", "sequence", "inSequences", "tags", "owned"]
            let objects = try context.fetch(request)
            var labelOf: [ManagedObjectID: Int64] = [:]
            var byLabel: [Int64: ManagedObject] = [:]
            for object in objects {
                let label = object.value(forKey: "label") as? Int64 ?? -1
                labelOf[object.objectID] = label
                byLabel[label] = object
            }
            #expect(byLabel.count == reference.count, "node count")
            #expect(Set(byLabel.keys) == Set(reference.labels))
            var mismatches: [String] = []
            func check<T: Equatable>(_ what: String, _ label: Int64, _ stored: T, _ expected: T) {
                if stored != expected, mismatches.count < 20 {
                    mismatches.append("\(what) of \(label): stored \(stored), expected \(expected)")
                }
            }
            // What each node holds in the store, by relationship, as labels in order.
            let keys = GraphFixtures.networkRelationships.map(\.name)
            var adjacency: [Int64: [String: [Int64]]] = [:]
            for (label, object) in byLabel {
                var holds: [String: [Int64]] = [:]
                for key in keys { holds[key] = object.objectIDs(forRelationshipNamed: key).map { labelOf[$0] ?? -1 } }
                adjacency[label] = holds
            }
            func stored(_ label: Int64, _ key: String) -> [Int64] { adjacency[label]?[key] ?? [] }
            for (label, object) in byLabel {
                check("kind", label, object is Hub, reference.nodes[label] ?? false)
                check("parent", label, stored(label, "parent").first, reference.parent[label])
                check("children", label, stored(label, "children"), reference.children[label] ?? [])
                check("partner", label, stored(label, "partner").first, reference.partner[label])
                check("links", label, Set(stored(label, "links")), reference.links[label] ?? [])
                check("backlinks", label, Set(stored(label, "backlinks")), reference.backlinks[label] ?? [])
                check("peers", label, Set(stored(label, "peers")), reference.peers[label] ?? [])
                check("sequence", label, stored(label, "sequence"), reference.sequence[label] ?? [])
                check("inSequences", label, Set(stored(label, "inSequences")), reference.inSequences[label] ?? [])
                check("tags", label, Set(stored(label, "tags")), reference.tags[label] ?? [])
                check("owner", label, stored(label, "owner").first, reference.owner[label])
                check("owned", label, Set(stored(label, "owned")), reference.owned[label] ?? [])
                // Inverses, in the stored data alone.
                for child in stored(label, "children") { check("parent of child", child, stored(child, "parent"), [label]) }
                if let parent = stored(label, "parent").first { check("child of parent", label, stored(parent, "children").contains(label), true) }
                for target in stored(label, "links") { check("backlinks of link", target, stored(target, "backlinks").contains(label), true) }
                for source in stored(label, "backlinks") { check("links of backlink", source, stored(source, "links").contains(label), true) }
                for peer in stored(label, "peers") { check("peers of peer", peer, stored(peer, "peers").contains(label), true) }
                for member in stored(label, "sequence") { check("inSequences of member", member, stored(member, "inSequences").contains(label), true) }
                for owner in stored(label, "inSequences") { check("sequence of owner", owner, stored(owner, "sequence").contains(label), true) }
                for item in stored(label, "owned") { check("owner of owned", item, stored(item, "owner"), [label]) }
                if let partner = stored(label, "partner").first { check("partner of partner", partner, stored(partner, "partner"), [label]) }
            }
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        }
    }
}
