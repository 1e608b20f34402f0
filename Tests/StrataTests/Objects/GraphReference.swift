import Foundation

/// A plain in-memory model of the random-graph model (`GraphFixtures.network()`), applying the
/// same edits with Core Data's semantics written out by hand: the property test compares the
/// store against it. Nodes are named by their label.
struct GraphReference {
    /// Live nodes, with whether each is a Hub.
    private(set) var nodes: [Int64: Bool] = [:]
    /// The live labels, for O(1) random picks.
    private(set) var labels: [Int64] = []
    private var positions: [Int64: Int] = [:]

    private(set) var parent: [Int64: Int64] = [:]
    private(set) var children: [Int64: [Int64]] = [:]
    private(set) var partner: [Int64: Int64] = [:]
    private(set) var links: [Int64: Set<Int64>] = [:]
    private(set) var backlinks: [Int64: Set<Int64>] = [:]
    private(set) var peers: [Int64: Set<Int64>] = [:]
    private(set) var sequence: [Int64: [Int64]] = [:]
    private(set) var inSequences: [Int64: Set<Int64>] = [:]
    private(set) var tags: [Int64: Set<Int64>] = [:]
    private(set) var taggedBy: [Int64: Set<Int64>] = [:]
    private(set) var owner: [Int64: Int64] = [:]
    private(set) var owned: [Int64: Set<Int64>] = [:]
    /// Edges: a relationship and its inverse count once; a one-to-one pair once.
    private(set) var edges = 0

    var count: Int { labels.count }

    func contains(_ label: Int64) -> Bool { nodes[label] != nil }

    func random(using random: inout some RandomNumberGenerator) -> Int64? {
        labels.isEmpty ? nil : labels[Int.random(in: 0..<labels.count, using: &random)]
    }

    // MARK: Nodes

    mutating func insert(_ label: Int64, hub: Bool) {
        nodes[label] = hub
        positions[label] = labels.count
        labels.append(label)
    }

    /// `label` and everything it owns, recursively (what deleting it deletes).
    func cascade(from label: Int64) -> Set<Int64> {
        var doomed: Set<Int64> = []
        var pending = [label]
        while let next = pending.popLast() {
            guard doomed.insert(next).inserted else { continue }
            pending += owned[next] ?? []
        }
        return doomed
    }

    /// Deletes `label` and, through `owned` (cascade), everything it owns; returns the deleted
    /// labels. Every other relationship nullifies; `tags` (no inverse) are dropped as the
    /// store drops the join rows of a deleted object.
    mutating func delete(_ label: Int64) -> Set<Int64> {
        let doomed = cascade(from: label)
        for node in doomed { detach(node) }
        for node in doomed {
            nodes[node] = nil
            if let index = positions.removeValue(forKey: node) {
                let last = labels.removeLast()
                if last != node {
                    labels[index] = last
                    positions[last] = index
                }
            }
        }
        return doomed
    }

    /// Removes every edge touching `node`.
    private mutating func detach(_ node: Int64) {
        setParent(node, nil)
        for child in children[node] ?? [] { setParent(child, nil) }
        setPartner(node, nil)
        for target in links[node] ?? [] { unlink(node, target) }
        for source in backlinks[node] ?? [] { unlink(source, node) }
        for peer in peers[node] ?? [] { unpeer(node, peer) }
        for member in sequence[node] ?? [] { removeFromSequence(node, member) }
        for owner in inSequences[node] ?? [] { removeFromSequence(owner, node) }
        for target in tags[node] ?? [] { untag(node, target) }
        for source in taggedBy[node] ?? [] { untag(source, node) }
        setOwner(node, nil)
        for item in owned[node] ?? [] { setOwner(item, nil) }
    }

    // MARK: parent ⇄ children (ordered one-to-many)

    /// `child.parent = newParent`: leaves the old parent's children, appended to the new one's.
    mutating func setParent(_ child: Int64, _ newParent: Int64?) {
        let old = parent[child]
        if old == newParent { return }
        if let old {
            children[old]?.removeAll { $0 == child }
            edges -= 1
        }
        parent[child] = newParent
        if let newParent {
            children[newParent, default: []].append(child)
            edges += 1
        }
    }

    /// `insert(child, at: index)` on `parent`'s children (no change if it is already there).
    mutating func insertChild(_ child: Int64, of newParent: Int64, at index: Int) {
        if parent[child] == newParent { return }
        if let old = parent[child] {
            children[old]?.removeAll { $0 == child }
            edges -= 1
        }
        parent[child] = newParent
        children[newParent, default: []].insert(child, at: index)
        edges += 1
    }

    /// `moveObjects(at:to:)` on an ordered list.
    static func move(_ list: inout [Int64], from indexes: IndexSet, to destination: Int) {
        let moving = indexes.map { list[$0] }
        var remaining = list.enumerated().filter { !indexes.contains($0.offset) }.map(\.element)
        remaining.insert(contentsOf: moving, at: destination)
        list = remaining
    }

    mutating func moveChildren(of node: Int64, from indexes: IndexSet, to destination: Int) {
        Self.move(&children[node, default: []], from: indexes, to: destination)
    }

    // MARK: partner (one-to-one, its own inverse)

    mutating func setPartner(_ node: Int64, _ newPartner: Int64?) {
        let old = partner[node]
        if old == newPartner { return }
        if let old {
            partner[node] = nil
            if old != node, partner[old] == node { partner[old] = nil }
            edges -= 1
        }
        guard let newPartner else { return }
        if newPartner != node, let theirs = partner[newPartner] {
            partner[newPartner] = nil
            if theirs != newPartner, partner[theirs] == newPartner { partner[theirs] = nil }
            edges -= 1
        }
        partner[node] = newPartner
        partner[newPartner] = node
        edges += 1
    }

    // MARK: links ⇄ backlinks, peers, tags

    mutating func link(_ source: Int64, _ target: Int64) {
        guard links[source, default: []].insert(target).inserted else { return }
        backlinks[target, default: []].insert(source)
        edges += 1
    }

    mutating func unlink(_ source: Int64, _ target: Int64) {
        guard links[source]?.remove(target) != nil else { return }
        backlinks[target]?.remove(source)
        edges -= 1
    }

    /// Replaces `source.links` with `targets`.
    mutating func setLinks(_ source: Int64, _ targets: Set<Int64>) {
        for old in links[source] ?? [] where !targets.contains(old) { unlink(source, old) }
        for target in targets { link(source, target) }
    }

    mutating func peer(_ a: Int64, _ b: Int64) {
        guard peers[a, default: []].insert(b).inserted else { return }
        peers[b, default: []].insert(a)
        edges += 1
    }

    mutating func unpeer(_ a: Int64, _ b: Int64) {
        guard peers[a]?.remove(b) != nil else { return }
        peers[b]?.remove(a)
        edges -= 1
    }

    mutating func tag(_ source: Int64, _ target: Int64) {
        guard tags[source, default: []].insert(target).inserted else { return }
        taggedBy[target, default: []].insert(source)
        edges += 1
    }

    mutating func untag(_ source: Int64, _ target: Int64) {
        guard tags[source]?.remove(target) != nil else { return }
        taggedBy[target]?.remove(source)
        edges -= 1
    }

    // MARK: sequence ⇄ inSequences (ordered many-to-many)

    /// `insert(member, at: index)` on `owner`'s sequence (no change if it is already there);
    /// `index` nil appends (an edit from the inverse side).
    mutating func addToSequence(_ owner: Int64, _ member: Int64, at index: Int?) {
        guard inSequences[member, default: []].insert(owner).inserted else { return }
        if let index {
            sequence[owner, default: []].insert(member, at: index)
        } else {
            sequence[owner, default: []].append(member)
        }
        edges += 1
    }

    mutating func removeFromSequence(_ owner: Int64, _ member: Int64) {
        guard inSequences[member]?.remove(owner) != nil else { return }
        sequence[owner]?.removeAll { $0 == member }
        edges -= 1
    }

    mutating func moveSequence(of node: Int64, from indexes: IndexSet, to destination: Int) {
        Self.move(&sequence[node, default: []], from: indexes, to: destination)
    }

    /// Replaces `owner.sequence` with `members` in that order.
    mutating func setSequence(_ owner: Int64, _ members: [Int64]) {
        let keep = Set(members)
        for old in sequence[owner] ?? [] where !keep.contains(old) { removeFromSequence(owner, old) }
        for member in members { addToSequence(owner, member, at: nil) }
        sequence[owner] = members
    }

    // MARK: owner ⇄ owned (cascade)

    mutating func setOwner(_ item: Int64, _ newOwner: Int64?) {
        let old = owner[item]
        if old == newOwner { return }
        if let old {
            owned[old]?.remove(item)
            edges -= 1
        }
        owner[item] = newOwner
        if let newOwner {
            owned[newOwner, default: []].insert(item)
            edges += 1
        }
    }
}
