/// One part of a ``RowSnapshot``'s elements that an object reads in place: the attribute values
/// (``AttributePart``) or the to-one targets (``ToOnePart``).
protocol RowSnapshotPart {
    /// What the part holds, one element a slot.
    associatedtype Element: Sendable
    /// How many elements of the part `row` holds.
    static func count(in row: RowSnapshot) -> Int
    /// Calls `body` with the part's first element in `row` (``count(in:)`` of them follow).
    static func withElements<Result>(of row: RowSnapshot, _ body: (UnsafeMutablePointer<Element>) -> Result) -> Result
    /// A draft holding a copy of the part of `row` (see ``RowSnapshot``), or `nil` when the part
    /// is kept in an array of its own once changed.
    static func draft(copying row: RowSnapshot) -> RowSnapshot?
}

/// A snapshot's attribute values, by attribute slot.
enum AttributePart: RowSnapshotPart {
    @inline(__always) static func count(in row: RowSnapshot) -> Int { row.valueCount }

    @inline(__always)
    static func withElements<Result>(of row: RowSnapshot, _ body: (UnsafeMutablePointer<StoredValue>) -> Result) -> Result {
        row.withValues(body)
    }

    /// Changed values live in a draft, which a save can publish as the object's next snapshot.
    @inline(__always) static func draft(copying row: RowSnapshot) -> RowSnapshot? { RowSnapshot.draft(copyingValuesOf: row) }
}

/// A snapshot's to-one targets, by to-one slot.
enum ToOnePart: RowSnapshotPart {
    @inline(__always) static func count(in row: RowSnapshot) -> Int { row.toOneCount }

    @inline(__always)
    static func withElements<Result>(of row: RowSnapshot, _ body: (UnsafeMutablePointer<ManagedObjectID?>) -> Result) -> Result {
        row.withToOnes(body)
    }

    /// Changed targets live in an array (a save copies them into the values' draft).
    @inline(__always) static func draft(copying row: RowSnapshot) -> RowSnapshot? { nil }

    /// The longest lists of nil targets kept ready to share (see ``ToOneValues/none(count:)``).
    static let sharedListLimit = 16

    /// Lists of `count` nil targets, for counts below ``sharedListLimit``.
    static let nilLists: [ContiguousArray<ManagedObjectID?>] = (0..<sharedListLimit).map { ContiguousArray(repeating: nil, count: $0) }
}

/// An object's attribute values in stored form, by attribute slot.
typealias StoredValues = SnapshotBackedValues<AttributePart>

/// An object's to-one targets, by to-one slot.
typealias ToOneValues = SnapshotBackedValues<ToOnePart>

/// One part of an object's stored state (its attribute values, or its to-one targets), by
/// slot: a collection with value semantics that reads its object's ``RowSnapshot`` in place
/// until the first change, and then holds its own copy. A fetched object so costs no buffer of
/// its own: its values and targets stay in the one allocation of its snapshot.
///
/// Changed attribute values live in a draft snapshot (see ``RowSnapshot``) that a save can
/// publish as the object's next snapshot without copying them again.
///
/// Copies share storage; a change to a shared copy copies first (as an array would).
struct SnapshotBackedValues<Part: RowSnapshotPart>: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    typealias Element = Part.Element

    private enum Storage: Sendable {
        /// The part of a snapshot, read in place.
        case row(RowSnapshot)
        /// Elements of their own (shared between copies until one changes).
        case own(ContiguousArray<Element>)
        /// The part of a draft (shared between copies until one changes or a save publishes it).
        case draft(RowSnapshot)
    }

    private var storage: Storage

    /// No elements.
    init() { storage = .own([]) }

    /// The part of `row`, read in place (a row whose part is empty is not referenced).
    @inline(__always) init(row: RowSnapshot) {
        storage = Part.count(in: row) == 0 ? .own([]) : .row(row)
    }

    /// The elements of `elements` (sharing its buffer until one side changes).
    init(_ elements: ContiguousArray<Element>) { storage = .own(elements) }

    /// The elements listed.
    init(arrayLiteral elements: Element...) { storage = .own(ContiguousArray(elements)) }

    /// `count` copies of `element`.
    init(repeating element: Element, count: Int) { storage = .own(ContiguousArray(repeating: element, count: count)) }

    /// The address of the snapshot or draft the elements live in, for a prefetch
    /// (`Support/Prefetch.swift`); nil when they are in an array of their own. Does not retain
    /// the buffer.
    @inline(__always) var bufferAddress: UnsafeRawPointer? {
        switch storage {
        case .row(let row), .draft(let row): return UnsafeRawPointer(Unmanaged.passUnretained(row).toOpaque())
        case .own: return nil
        }
    }

    @inline(__always) var startIndex: Int { 0 }

    @inline(__always) var endIndex: Int {
        switch storage {
        case .row(let row), .draft(let row): return Part.count(in: row)
        case .own(let elements): return elements.count
        }
    }

    /// The number of elements: `endIndex`, without the generic `distance(from:to:)` and its range
    /// checks (a typed read checks its slot against it).
    @inline(__always) var count: Int { endIndex }

    @inline(__always)
    subscript(position: Int) -> Element {
        get {
            switch storage {
            case .row(let row), .draft(let row):
                precondition(position >= 0 && position < Part.count(in: row), "Slot out of range")
                return Part.withElements(of: row) { $0[position] }
            case .own(let elements):
                return elements[position]
            }
        }
        set {
            switch storage {
            case .row(let row):
                precondition(position >= 0 && position < Part.count(in: row), "Slot out of range")
                if let draft = Part.draft(copying: row) {
                    Part.withElements(of: draft) { $0[position] = newValue }
                    storage = .draft(draft)
                } else {
                    var elements = Self.copy(of: row)
                    elements[position] = newValue
                    storage = .own(elements)
                }
            case .own(var elements):
                storage = .own([])  // leaves `elements` the only reference, so it changes in place
                elements[position] = newValue
                storage = .own(elements)
            case .draft(var draft):
                storage = .own([])  // as above
                if isKnownUniquelyReferenced(&draft) {
                    precondition(position >= 0 && position < Part.count(in: draft), "Slot out of range")
                    Part.withElements(of: draft) { $0[position] = newValue }
                    storage = .draft(draft)
                } else {
                    storage = .row(draft)  // shared: copied into a draft of its own, as a snapshot is
                    self[position] = newValue
                }
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

    /// An array of `row`'s part. Reserved and appended: `ContiguousArray(unsafeUninitializedCapacity:)`
    /// is not specialized for the element type and asks the runtime for the array's generic
    /// metadata on every call (perf of the edit pair: two thirds of the copy's time).
    private static func copy(of row: RowSnapshot) -> ContiguousArray<Element> {
        let count = Part.count(in: row)
        var elements = ContiguousArray<Element>()
        elements.reserveCapacity(count)
        Part.withElements(of: row) { source in
            for slot in 0..<count { elements.append(source[slot]) }
        }
        return elements
    }

    /// Copies the elements into the uninitialized memory at `target` (room for ``count`` of them).
    func copyInitialize(into target: UnsafeMutablePointer<Element>) {
        switch storage {
        case .row(let row), .draft(let row):
            Part.withElements(of: row) { target.initializeElementwise(from: $0, count: Part.count(in: row)) }
        case .own(let elements):
            elements.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                target.initializeElementwise(from: base, count: source.count)
            }
        }
    }
}

extension SnapshotBackedValues where Part == ToOnePart {
    /// Whether the target at `position` is the object whose ID has the key number `key` in the
    /// ID space `space` (an `ObjectIdentifier` of its `ManagedObjectID.space`), read in place:
    /// no copy of the ID, so no reference counting. `false` for a nil target.
    @inline(__always) func target(at position: Int, hasKey key: Int64, inSpace space: ObjectIdentifier) -> Bool {
        func matches(_ target: UnsafePointer<ManagedObjectID?>) -> Bool {
            target.pointee?.keyNumber == key && target.pointee.map { ObjectIdentifier($0.space) } == space
        }
        switch storage {
        case .row(let row), .draft(let row):
            precondition(position >= 0 && position < Part.count(in: row), "Slot out of range")
            return Part.withElements(of: row) { matches($0 + position) }
        case .own(let elements):
            precondition(position >= 0 && position < elements.count, "Slot out of range")
            return elements.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { matches($0 + position) } ?? false }
        }
    }

    /// `count` nil targets: what an inserted object starts with. Below
    /// ``ToOnePart/sharedListLimit`` the list is shared by every object with as many to-ones
    /// until one of them sets a target (copy on write), so inserting an object allocates no list.
    static func none(count: Int) -> ToOneValues {
        ToOneValues(count < ToOnePart.sharedListLimit ? ToOnePart.nilLists[count] : ContiguousArray(repeating: nil, count: count))
    }
}

extension SnapshotBackedValues where Part == AttributePart {
    /// `values` in a draft of `objectID`'s values (room for its entity's to-one targets): what an
    /// inserted object starts with, so that its save can publish them as its snapshot.
    init(draftOf values: ContiguousArray<StoredValue>, objectID: ManagedObjectID) {
        self = values.withUnsafeBufferPointer { source in
            Self(draftOf: objectID, count: source.count) { target in
                if let base = source.baseAddress { target.initializeElementwise(from: base, count: source.count) }
            }
        }
    }

    /// A draft of `objectID`'s `count` values, which `initialize` initializes, with room for its
    /// entity's to-one targets.
    private init(draftOf objectID: ManagedObjectID, count: Int, initializing initialize: (UnsafeMutablePointer<StoredValue>) -> Void) {
        storage = .draft(
            RowSnapshot.draft(objectID: objectID, version: 0, count: count, toOneCapacity: objectID.entity.layout.toOneRelationships.count, initializing: initialize))
    }

    /// A copy of these values in a draft of its own, for an object of another context. A draft
    /// is published in place by the one holder it has left (``publishDraft(objectID:version:fetchedAt:toOne:)``),
    /// which is only safe when every holder is on one queue: a draft shared by two contexts
    /// could be published on one queue while the other still reads it (ThreadSanitizer saw a
    /// parent publish the draft its child was copying).
    func copiedIntoOwnDraft(objectID: ManagedObjectID) -> StoredValues {
        StoredValues(draftOf: objectID, count: count) { copyInitialize(into: $0) }
    }

    /// The object's next snapshot (of `objectID` at `version`, read at `fetchedAt`, with the
    /// to-one targets `toOne`), made of these values' draft in place when they are in one that
    /// nothing else holds and that has room for the targets. Then the values are left empty:
    /// the caller reads them from the snapshot it gets. Otherwise `nil`, and nothing changes.
    mutating func publishDraft(objectID: ManagedObjectID, version: Int64, fetchedAt: UInt64, toOne: ToOneValues) -> RowSnapshot? {
        guard case .draft(var draft) = storage else { return nil }
        storage = .own([])  // leaves `draft` the only reference if nothing else holds it
        if isKnownUniquelyReferenced(&draft) && draft.publish(objectID: objectID, version: version, fetchedAt: fetchedAt, toOne: toOne) {
            return draft
        }
        storage = .draft(draft)
        return nil
    }
}
