/// One part of a ``RowSnapshot``'s elements that an object reads in place: the attribute values
/// (``AttributeSection``) or the to-one targets (``ToOneSection``).
protocol RowSnapshotSection {
    /// What the part holds, one element a slot.
    associatedtype Element: Sendable
    /// How many elements of the part `row` holds.
    static func count(in row: RowSnapshot) -> Int
    /// Calls `body` with the part's first element in `row` (``count(in:)`` of them follow).
    static func withElements<Result>(of row: RowSnapshot, _ body: (UnsafeMutablePointer<Element>) -> Result) -> Result
}

/// A snapshot's attribute values, by attribute slot.
enum AttributeSection: RowSnapshotSection {
    @inline(__always) static func count(in row: RowSnapshot) -> Int { row.valueCount }

    @inline(__always)
    static func withElements<Result>(of row: RowSnapshot, _ body: (UnsafeMutablePointer<StoredValue>) -> Result) -> Result {
        row.withValues(body)
    }
}

/// A snapshot's to-one targets, by to-one slot.
enum ToOneSection: RowSnapshotSection {
    @inline(__always) static func count(in row: RowSnapshot) -> Int { row.toOneCount }

    @inline(__always)
    static func withElements<Result>(of row: RowSnapshot, _ body: (UnsafeMutablePointer<ManagedObjectID?>) -> Result) -> Result {
        row.withToOnes(body)
    }

    /// The longest lists of nil targets kept ready to share (see ``ToOneValues/none(count:)``).
    static let sharedListLimit = 16

    /// Lists of `count` nil targets, for counts below ``sharedListLimit``.
    static let nilLists: [ContiguousArray<ManagedObjectID?>] = (0..<sharedListLimit).map { ContiguousArray(repeating: nil, count: $0) }
}

/// An object's attribute values in stored form, by attribute slot.
typealias StoredValues = SnapshotBackedValues<AttributeSection>

/// An object's to-one targets, by to-one slot.
typealias ToOneValues = SnapshotBackedValues<ToOneSection>

/// One part of an object's stored state (its attribute values, or its to-one targets), by
/// slot: a collection with value semantics that reads its object's ``RowSnapshot`` in place
/// until the first change, and then holds its own copy. A fetched object so costs no buffer of
/// its own: its values and targets stay in the one allocation of its snapshot.
///
/// Copies share storage; a change to a shared copy copies first (as an array would).
struct SnapshotBackedValues<Section: RowSnapshotSection>: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    typealias Element = Section.Element

    private enum Storage: Sendable {
        /// The section of a snapshot, read in place.
        case row(RowSnapshot)
        /// Elements of their own (shared between copies until one changes).
        case own(ContiguousArray<Element>)
    }

    private var storage: Storage

    /// No elements.
    init() { storage = .own([]) }

    /// The section of `row`, read in place (a row whose section is empty is not referenced).
    @inline(__always) init(row: RowSnapshot) {
        storage = Section.count(in: row) == 0 ? .own([]) : .row(row)
    }

    /// The elements of `elements` (sharing its buffer until one side changes).
    init(_ elements: ContiguousArray<Element>) { storage = .own(elements) }

    /// The elements listed.
    init(arrayLiteral elements: Element...) { storage = .own(ContiguousArray(elements)) }

    /// `count` copies of `element`.
    init(repeating element: Element, count: Int) { storage = .own(ContiguousArray(repeating: element, count: count)) }

    @inline(__always) var startIndex: Int { 0 }

    @inline(__always) var endIndex: Int {
        switch storage {
        case .row(let row): return Section.count(in: row)
        case .own(let elements): return elements.count
        }
    }

    @inline(__always)
    subscript(position: Int) -> Element {
        get {
            switch storage {
            case .row(let row):
                precondition(position >= 0 && position < Section.count(in: row), "Slot out of range")
                return Section.withElements(of: row) { $0[position] }
            case .own(let elements):
                return elements[position]
            }
        }
        set {
            switch storage {
            case .row(let row):
                var elements = Self.copy(of: row)
                elements[position] = newValue
                storage = .own(elements)
            case .own(var elements):
                storage = .own([])  // leaves `elements` the only reference, so it changes in place
                elements[position] = newValue
                storage = .own(elements)
            }
        }
    }

    /// The elements with `transform` applied to each (for remapping IDs in place of a copy and a
    /// loop): one buffer of their own.
    func mapped(_ transform: (Element) throws -> Element) rethrows -> Self {
        var elements = ContiguousArray<Element>()
        elements.reserveCapacity(count)
        for element in self { elements.append(try transform(element)) }
        return Self(elements)
    }

    /// An array of `row`'s section. Reserved and appended: `ContiguousArray(unsafeUninitializedCapacity:)`
    /// is not specialized for the element type and asks the runtime for the array's generic
    /// metadata on every call (perf of the edit pair: two thirds of the copy's time).
    private static func copy(of row: RowSnapshot) -> ContiguousArray<Element> {
        let count = Section.count(in: row)
        var elements = ContiguousArray<Element>()
        elements.reserveCapacity(count)
        Section.withElements(of: row) { source in
            for slot in 0..<count { elements.append(source[slot]) }
        }
        return elements
    }

    /// Copies the elements into the uninitialized memory at `target` (room for ``count`` of them).
    func copyInitialize(into target: UnsafeMutablePointer<Element>) {
        switch storage {
        case .row(let row):
            Section.withElements(of: row) { target.initialize(from: $0, count: Section.count(in: row)) }
        case .own(let elements):
            elements.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                target.initialize(from: base, count: source.count)
            }
        }
    }
}

extension SnapshotBackedValues where Section == ToOneSection {
    /// `count` nil targets: what an inserted object starts with. Below
    /// ``ToOneSection/sharedListLimit`` the list is shared by every object with as many to-ones
    /// until one of them sets a target (copy on write), so inserting an object allocates no list.
    static func none(count: Int) -> ToOneValues {
        ToOneValues(count < ToOneSection.sharedListLimit ? ToOneSection.nilLists[count] : ContiguousArray(repeating: nil, count: count))
    }
}
