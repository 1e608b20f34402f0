/// An object's attribute values in stored form, by attribute slot: a collection with value
/// semantics that reads its object's ``RowSnapshot`` in place until the first change, and
/// then holds its own copy. A fetched object so costs no value buffer of its own: the values
/// stay in the one allocation of its snapshot.
///
/// Copies share storage; a change to a shared copy copies first (as an array would).
struct StoredValues: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    private enum Storage: Sendable {
        /// The values of a snapshot, read in place.
        case row(RowSnapshot)
        /// Values of their own (shared between copies until one changes).
        case own(ContiguousArray<StoredValue>)
    }

    private var storage: Storage

    /// No values.
    init() { storage = .own([]) }

    /// The values of `row`, read in place.
    @inline(__always) init(row: RowSnapshot) { storage = .row(row) }

    /// The values of `values` (sharing its buffer until one side changes).
    init(_ values: ContiguousArray<StoredValue>) { storage = .own(values) }

    /// The values listed.
    init(arrayLiteral values: StoredValue...) { storage = .own(ContiguousArray(values)) }

    /// `count` copies of `value`.
    init(repeating value: StoredValue, count: Int) { storage = .own(ContiguousArray(repeating: value, count: count)) }

    @inline(__always) var startIndex: Int { 0 }

    @inline(__always) var endIndex: Int {
        switch storage {
        case .row(let row): return row.valueCount
        case .own(let values): return values.count
        }
    }

    @inline(__always)
    subscript(position: Int) -> StoredValue {
        get {
            switch storage {
            case .row(let row):
                precondition(position >= 0 && position < row.valueCount, "Attribute slot out of range")
                return row.value(at: position)
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

    /// An array of `row`'s values. Reserved and appended: `ContiguousArray(unsafeUninitializedCapacity:)`
    /// is not specialized for the element type and asks the runtime for the array's generic
    /// metadata on every call (perf of the edit pair: two thirds of the copy's time).
    private static func copy(of row: RowSnapshot) -> ContiguousArray<StoredValue> {
        let count = row.valueCount
        var values = ContiguousArray<StoredValue>()
        values.reserveCapacity(count)
        row.withValues { source in
            for slot in 0..<count { values.append(source[slot]) }
        }
        return values
    }

    /// Copies the values into the uninitialized memory at `target` (room for ``count`` values).
    func copyInitialize(into target: UnsafeMutablePointer<StoredValue>) {
        switch storage {
        case .row(let row):
            row.withValues { target.initialize(from: $0, count: row.valueCount) }
        case .own(let values):
            values.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                target.initialize(from: base, count: source.count)
            }
        }
    }
}
