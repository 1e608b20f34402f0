/// Where an object stands in its context's unit of work.
enum ObjectChange: UInt8 {
    /// Unchanged since its values were loaded (or since the last save).
    case none
    /// Inserted and not yet saved.
    case inserted
    /// Changed and not yet saved.
    case updated
    /// Deleted and not yet saved.
    case deleted
}

/// What happened to an object since the context last processed pending changes.
struct EventChanges: OptionSet {
    let rawValue: UInt8
    static let inserted = EventChanges(rawValue: 1)
    static let updated = EventChanges(rawValue: 2)
    static let deleted = EventChanges(rawValue: 4)
    static let refreshed = EventChanges(rawValue: 8)
    static let invalidated = EventChanges(rawValue: 16)
}

/// A set of small integers (property change indexes), as bits.
struct ChangeMask: Equatable {
    private var words: [UInt64] = []

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    mutating func insert(_ index: Int) {
        let word = index >> 6
        while words.count <= word { words.append(0) }
        words[word] |= 1 << UInt64(index & 63)
    }

    func contains(_ index: Int) -> Bool {
        let word = index >> 6
        return word < words.count && words[word] & (1 << UInt64(index & 63)) != 0
    }

    mutating func removeAll() { words.removeAll(keepingCapacity: true) }

    /// The indexes in the set, in increasing order.
    var indexes: [Int] {
        var result: [Int] = []
        for (wordIndex, word) in words.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 { result.append(wordIndex << 6 | bit) }
        }
        return result
    }

    static func | (lhs: ChangeMask, rhs: ChangeMask) -> ChangeMask {
        var result = lhs
        for index in rhs.indexes { result.insert(index) }
        return result
    }
}

extension EntityLayout {
    /// The change-mask index of a property slot: stored attributes first, then transient
    /// attributes, to-ones and to-manys.
    func changeIndex(of slot: PropertySlot) -> Int? {
        switch slot {
        case .attribute(let i): return i
        case .transient(let i): return storedAttributes.count + i
        case .toOne(let i): return storedAttributes.count + transientAttributes.count + i
        case .toMany(let i): return storedAttributes.count + transientAttributes.count + toOneRelationships.count + i
        case .fetched: return nil
        }
    }

    /// The property at a change-mask index.
    func property(atChangeIndex index: Int) -> PropertyDescription? {
        var i = index
        if i < storedAttributes.count { return storedAttributes[i] }
        i -= storedAttributes.count
        if i < transientAttributes.count { return transientAttributes[i] }
        i -= transientAttributes.count
        if i < toOneRelationships.count { return toOneRelationships[i] }
        i -= toOneRelationships.count
        if i < toManyRelationships.count { return toManyRelationships[i] }
        return nil
    }
}
