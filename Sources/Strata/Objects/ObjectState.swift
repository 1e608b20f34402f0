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

/// Marks a save sets on an object and reads back (`ManagedObject.saveMarks`): two flags in one
/// byte of the object.
struct SaveMarks: OptionSet {
    let rawValue: UInt8
    /// Set by every change; lets a save give `willSave()` another call.
    static let changedSinceWillSave = SaveMarks(rawValue: 1)
    /// Set while a save calls `validateValue(_:forKey:)` after checking the model's rules on
    /// the stored values (the base implementation then has nothing left to check).
    static let modelRulesChecked = SaveMarks(rawValue: 2)
}

/// A set of small integers (property change indexes), as bits. The first 64 live inline (no
/// allocation for entities of up to 64 properties, that is nearly all); more spill into an array.
/// An object keeps the two parts apart (``ManagedObject/changedMask``): the first word in the
/// object, the rest in its side record.
struct ChangeMask: Equatable {
    /// Indexes 0 to 63.
    private(set) var first: UInt64 = 0
    /// Indexes from 64 on, 64 a word; empty when there are none.
    private(set) var more: [UInt64] = []

    init() {}

    /// The set whose indexes below 64 are the bits of `first` and the rest those of `more`.
    @inline(__always) init(first: UInt64, more: [UInt64]) {
        self.first = first
        self.more = more
    }

    var isEmpty: Bool { first == 0 && more.allSatisfy { $0 == 0 } }

    @inline(__always) mutating func insert(_ index: Int) {
        if index < 64 {
            first |= 1 << UInt64(index)
            return
        }
        let word = (index >> 6) - 1
        while more.count <= word { more.append(0) }
        more[word] |= 1 << UInt64(index & 63)
    }

    func contains(_ index: Int) -> Bool {
        if index < 64 { return index >= 0 && first & (1 << UInt64(index)) != 0 }
        let word = (index >> 6) - 1
        return word < more.count && more[word] & (1 << UInt64(index & 63)) != 0
    }

    mutating func removeAll() {
        first = 0
        if !more.isEmpty { more.removeAll(keepingCapacity: true) }
    }

    /// The indexes in the set, in increasing order.
    var indexes: [Int] {
        var result: [Int] = []
        for bit in 0..<64 where first & (1 << UInt64(bit)) != 0 { result.append(bit) }
        for (wordIndex, word) in more.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 { result.append((wordIndex + 1) << 6 | bit) }
        }
        return result
    }

    static func == (lhs: ChangeMask, rhs: ChangeMask) -> Bool {
        guard lhs.first == rhs.first else { return false }
        let count = max(lhs.more.count, rhs.more.count)
        for word in 0..<count where (word < lhs.more.count ? lhs.more[word] : 0) != (word < rhs.more.count ? rhs.more[word] : 0) { return false }
        return true
    }

    static func | (lhs: ChangeMask, rhs: ChangeMask) -> ChangeMask {
        var result = lhs
        for index in rhs.indexes { result.insert(index) }
        return result
    }
}

extension ManagedObject {
    /// Set by every change; lets a save give `willSave()` another call (see ``SaveMarks``).
    var changedSinceWillSave: Bool {
        @inline(__always) get { saveMarks.contains(.changedSinceWillSave) }
        @inline(__always) set {
            if newValue { saveMarks.insert(.changedSinceWillSave) } else { saveMarks.remove(.changedSinceWillSave) }
        }
    }

    /// True while a save calls `validateValue(_:forKey:)` after checking the model's rules
    /// (see ``SaveMarks``).
    var modelRulesChecked: Bool {
        @inline(__always) get { saveMarks.contains(.modelRulesChecked) }
        @inline(__always) set {
            if newValue { saveMarks.insert(.modelRulesChecked) } else { saveMarks.remove(.modelRulesChecked) }
        }
    }

    /// Which properties changed since the last load or save, by change index
    /// (``EntityLayout/changeIndex(of:)``): the first 64 from the object's `changedBits`, the
    /// rest (entities of more than 64 properties) from its side record.
    var changedMask: ChangeMask {
        @inline(__always) get { ChangeMask(first: changedBits, more: changedOverflow) }
        @inline(__always) set {
            changedBits = newValue.first
            if !newValue.more.isEmpty || !changedOverflow.isEmpty { changedOverflow = newValue.more }
        }
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
