/// An object's to-one targets, by to-one slot: a collection with value semantics that reads its
/// object's ``RowSnapshot`` in place until the first change, and then holds its own copy (as
/// ``StoredValues`` does for the attribute values). A fetched object of an entity with to-ones
/// so costs no array of its own: the targets stay in the one allocation of its snapshot.
///
/// Copies share storage; a change to a shared copy copies first (as an array would).
struct ToOneValues: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    private enum Storage: Sendable {
        /// The targets of a snapshot, read in place.
        case row(RowSnapshot)
        /// Targets of their own (shared between copies until one changes).
        case own(ContiguousArray<ManagedObjectID?>)
    }

    private var storage: Storage

    /// No targets.
    init() { storage = .own([]) }

    /// The targets of `row`, read in place (a row without to-ones is not referenced).
    @inline(__always) init(row: RowSnapshot) {
        storage = row.toOneCount == 0 ? .own([]) : .row(row)
    }

    /// The targets of `values` (sharing its buffer until one side changes).
    init(_ values: ContiguousArray<ManagedObjectID?>) { storage = .own(values) }

    /// The targets listed.
    init(arrayLiteral values: ManagedObjectID?...) { storage = .own(ContiguousArray(values)) }

    /// `count` copies of `value`.
    init(repeating value: ManagedObjectID?, count: Int) { storage = .own(ContiguousArray(repeating: value, count: count)) }

    /// The longest lists of nil targets kept ready to share.
    private static let sharedListLimit = 16

    /// Lists of `count` nil targets, for counts below ``sharedListLimit``.
    private static let nilLists: [ContiguousArray<ManagedObjectID?>] = (0..<sharedListLimit).map { ContiguousArray(repeating: nil, count: $0) }

    /// `count` nil targets: what an inserted object starts with. Below ``sharedListLimit`` the
    /// list is shared by every object with as many to-ones until one of them sets a target
    /// (copy on write), so inserting an object allocates no list.
    static func none(count: Int) -> ToOneValues {
        ToOneValues(count < sharedListLimit ? nilLists[count] : ContiguousArray(repeating: nil, count: count))
    }

    @inline(__always) var startIndex: Int { 0 }

    @inline(__always) var endIndex: Int {
        switch storage {
        case .row(let row): return row.toOneCount
        case .own(let values): return values.count
        }
    }

    @inline(__always)
    subscript(position: Int) -> ManagedObjectID? {
        get {
            switch storage {
            case .row(let row):
                precondition(position >= 0 && position < row.toOneCount, "To-one slot out of range")
                return row.toOne(at: position)
            case .own(let values):
                return values[position]
            }
        }
        set {
            switch storage {
            case .row(let row):
                var values = Self.copy(of: row)
                values[position] = newValue
                storage = .own(values)
            case .own(var values):
                storage = .own([])  // leaves `values` the only reference, so it changes in place
                values[position] = newValue
                storage = .own(values)
            }
        }
    }

    /// An array of `row`'s targets (reserved and appended, as `StoredValues` copies values).
    private static func copy(of row: RowSnapshot) -> ContiguousArray<ManagedObjectID?> {
        let count = row.toOneCount
        var targets = ContiguousArray<ManagedObjectID?>()
        targets.reserveCapacity(count)
        row.withToOnes { source in
            for slot in 0..<count { targets.append(source[slot]) }
        }
        return targets
    }

    /// Copies the targets into the uninitialized memory at `target` (room for ``count`` of them).
    func copyInitialize(into target: UnsafeMutablePointer<ManagedObjectID?>) {
        switch storage {
        case .row(let row):
            row.withToOnes { target.initialize(from: $0, count: row.toOneCount) }
        case .own(let values):
            values.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                target.initialize(from: base, count: source.count)
            }
        }
    }
}
