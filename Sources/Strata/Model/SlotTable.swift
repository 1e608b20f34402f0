/// Finds a property's slot by name without hashing the name's characters: the table of one
/// entity layout, built once when the model freezes, so that key-value coding and typed
/// `@Attribute` accessors resolve a key with a few integer operations.
///
/// A Swift `String` is two machine words. For names of up to 15 UTF-8 bytes (nearly every
/// property name) the words *are* the characters, so equal names have equal words; a longer
/// name's words point at its storage, so the words match only for that very string (the table
/// keeps its names alive, so their storage cannot be reused by another string). The table is an
/// open-addressing array keyed by the two words; a key it does not hold by its words (a long
/// name built elsewhere, or an unknown key) falls back to the dictionary by characters. Either
/// way the answer is the dictionary's: the words only make the common case cheap.
struct SlotTable: Sendable {
    private typealias Words = (UInt64, UInt64)

    private let words: ContiguousArray<Words>
    private let entries: ContiguousArray<PropertySlot?>
    private let mask: Int
    /// Keeps the names' storage alive (see above) and answers every other key.
    private let byName: [String: PropertySlot]

    init(_ slots: [String: PropertySlot]) {
        byName = slots
        guard MemoryLayout<String>.size == MemoryLayout<Words>.size else {
            (words, entries, mask) = ([], [], -1)
            return
        }
        var capacity = 8
        while capacity < slots.count * 2 { capacity *= 2 }
        var words = ContiguousArray<Words>(repeating: (0, 0), count: capacity)
        var entries = ContiguousArray<PropertySlot?>(repeating: nil, count: capacity)
        for (name, slot) in slots {
            let key = Self.words(of: name)
            var index = Self.bucket(of: key, mask: capacity - 1)
            while entries[index] != nil { index = (index + 1) & (capacity - 1) }
            words[index] = key
            entries[index] = slot
        }
        (self.words, self.entries, self.mask) = (words, entries, capacity - 1)
    }

    /// The slot of the property named `key`, or nil if the entity has no such property.
    @inline(__always) func slot(forKey key: String) -> PropertySlot? {
        if mask >= 0 {
            let wanted = Self.words(of: key)
            var index = Self.bucket(of: wanted, mask: mask)
            while let slot = entries[index] {
                let candidate = words[index]
                if candidate.0 == wanted.0 && candidate.1 == wanted.1 { return slot }
                index = (index + 1) & mask
            }
        }
        return byName[key]
    }

    @inline(__always) private static func words(of string: String) -> Words {
        unsafeBitCast(string, to: Words.self)
    }

    @inline(__always) private static func bucket(of words: Words, mask: Int) -> Int {
        let mixed = (words.0 &* 0x9E37_79B9_7F4A_7C15) ^ (words.1 &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: mixed >> 29) & mask
    }
}
