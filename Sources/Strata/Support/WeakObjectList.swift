import StrataLocks
import Synchronization

/// Weak references to objects, in the order they were added: the root contexts of a coordinator
/// and the children of a context, for automatic merges. An object that goes away drops out of
/// the list. Thread-safe: any thread may add, remove and read.
final class WeakObjectList<Element: AnyObject>: Sendable {
    private final class WeakEntry: @unchecked Sendable {
        // @unchecked Sendable: a weak reference set once; the list hands its objects only to
        // callers that use them on the objects' own terms (contexts are Sendable).
        weak var object: Element?
        init(_ object: Element) { self.object = object }
    }

    private let entries = StrataLock<[WeakEntry]>([])

    /// Creates an empty list.
    init() {}

    /// Adds `object` at the end (moving it there if it is already in the list).
    func add(_ object: Element) {
        entries.withLock { list in
            list.removeAll { $0.object == nil || $0.object === object }
            list.append(WeakEntry(object))
        }
    }

    /// Removes `object` (and entries whose object went away).
    func remove(_ object: Element) {
        entries.withLock { $0.removeAll { $0.object == nil || $0.object === object } }
    }

    /// The objects still alive, in the order they were added.
    var objects: [Element] { entries.withLock { $0.compactMap(\.object) } }

    /// Whether no object of the list is alive.
    var isEmpty: Bool { objects.isEmpty }
}
