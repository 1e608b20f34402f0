import Foundation
import StrataLocks

/// Change notifications: objects-did-change at the end of each event, will-save and did-save
/// around saves, posted on the context's queue through `NotificationCenter` (with the context
/// as the object) and also as `AsyncSequence`s of `Sendable` ID-only payloads.
extension ManagedObjectContext {
    /// Records that `object` changed in the current event.
    @inline(__always) func noteEvent(_ change: EventChanges, for object: ManagedObject) {
        state.noteEvent(change, for: object)
    }

    /// Posts objects-did-change for the changes made since the last call (Core Data's
    /// `processPendingChanges()`); runs automatically at the end of every `perform` block and
    /// before a save. With an ``undoManager`` grouping by event, it also closes the undo group
    /// of those changes. Call on the context's queue.
    public func processPendingChanges() {
        processPendingChanges(recordingSaveSets: false)
    }

    /// ``processPendingChanges()``; with `recordingSaveSets` (the call that opens a save), the
    /// sets of inserted and updated objects it posts are kept in `state.postedSaveSets` when
    /// they hold every insert and update of the unit of work, for the save's did-save.
    func processPendingChanges(recordingSaveSets: Bool) {
        checkAccess("processPendingChanges()")
        if let undoManager = state.undoManager { undoManager.contextDidEndEvent() }
        guard !state.eventObjects.isEmpty, !state.isPostingChanges else { return }
        let objects = state.eventObjects
        state.eventObjects = []
        // Which set each object goes to; the sets are then made at their final size.
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        var deleted: [ManagedObject] = []
        var refreshed: [ManagedObject] = []
        var invalidated: [ManagedObject] = []
        Prefetch.forEach(objects) { object in
            let changes = object.eventChanges
            object.eventChanges = []
            if changes.contains(.invalidated) {
                invalidated.append(object)
            } else if changes.contains(.deleted) {
                // Inserted then deleted in one event: nothing to report.
                if !changes.contains(.inserted) { deleted.append(object) }
            } else if changes.contains(.inserted) {
                inserted.append(object)
            } else {
                if changes.contains(.updated) { updated.append(object) }
                if changes.contains(.refreshed) { refreshed.append(object) }
            }
        }
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty) else { return }
        state.isPostingChanges = true
        defer { state.isPostingChanges = false }
        var userInfo: [String: Any] = [:]
        let insertedSet = Set(inserted)
        let updatedSet = Set(updated)
        if !inserted.isEmpty { userInfo[NotificationKey.insertedObjects] = insertedSet }
        if !updated.isEmpty { userInfo[NotificationKey.updatedObjects] = updatedSet }
        if !deleted.isEmpty { userInfo[NotificationKey.deletedObjects] = Set(deleted) }
        if !refreshed.isEmpty { userInfo[NotificationKey.refreshedObjects] = Set(refreshed) }
        if !invalidated.isEmpty { userInfo[NotificationKey.invalidatedObjects] = Set(invalidated) }
        let changes = ContextChanges(
            name: .managedObjectContextObjectsDidChange, inserted: Self.objectIDs(of: inserted),
            updated: Self.objectIDs(of: updated), deleted: Self.objectIDs(of: deleted),
            refreshed: Self.objectIDs(of: refreshed), invalidated: Self.objectIDs(of: invalidated))
        if recordingSaveSets {
            state.postedSaveSets = PostedSaveSets(inserted: inserted, insertedSet, updated: updated, updatedSet, updatedIDs: changes.updated, of: state.work)
        }
        post(changes, userInfo: userInfo)
    }

    /// Posts a notification through `NotificationCenter` and to the context's async streams.
    func post(_ changes: ContextChanges, userInfo: [String: Any]) {
        var info = userInfo
        info[NotificationKey.insertedObjectIDs] = changes.inserted
        info[NotificationKey.updatedObjectIDs] = changes.updated
        info[NotificationKey.deletedObjectIDs] = changes.deleted
        if !changes.refreshed.isEmpty { info[NotificationKey.refreshedObjectIDs] = changes.refreshed }
        if !changes.invalidated.isEmpty { info[NotificationKey.invalidatedObjectIDs] = changes.invalidated }
        if changes.invalidatedAll { info[NotificationKey.invalidatedAllObjects] = changes.invalidated }
        if let origin = changes.traceOrigin { info[ContextChanges.traceOriginKey] = origin }
        NotificationCenter.default.post(name: changes.name, object: self, userInfo: info)
        streams.yield(changes)
        tellListeners(changes, userInfo: userInfo)
    }

    /// An `AsyncSequence` of this context's notifications named `name`
    /// (`.managedObjectContextObjectsDidChange`, `.managedObjectContextWillSave`,
    /// `.managedObjectContextDidSave`, `.managedObjectContextDidSaveObjectIDs`), carrying object
    /// IDs only so they can be consumed on any task. Buffers up to `bufferLimit` undelivered
    /// notifications (the oldest are dropped beyond). Callable from any thread.
    public func notifications(named name: Notification.Name, bufferLimit: Int = 1_000) -> AsyncStream<ContextChanges> {
        streams.makeStream(name: name, bufferLimit: bufferLimit)
    }
}

/// The sets of inserted and updated objects (and the updated objects' IDs) that the
/// objects-did-change opening a save reported, kept so that the save's did-save reports the same
/// sets without hashing every object again (in a save of many objects changed in one event, the
/// two notifications' sets were a fifth of the save). A set is kept only when it holds every
/// inserted (or updated) object of the unit of work; ``stamp`` then tells whether the unit of
/// work's sets changed since. The updated IDs are kept only when none is temporary (a permanent
/// ID never changes; inserted objects get new IDs in the save, so their ID set is always made
/// again). Confined to the context's queue, like the objects.
struct PostedSaveSets {
    let inserted: Set<ManagedObject>?
    let updated: Set<ManagedObject>?
    let updatedIDs: Set<ManagedObjectID>?
    let stamp: UnitOfWork.ChangeStamp

    /// What to keep of one objects-did-change's lists and sets, given the unit of work `work`;
    /// nil when nothing matches.
    init?(inserted: [ManagedObject], _ insertedSet: Set<ManagedObject>, updated: [ManagedObject], _ updatedSet: Set<ManagedObject>, updatedIDs: Set<ManagedObjectID>, of work: UnitOfWork) {
        // An object is listed once per event, so a list as long as the unit of work's set whose
        // objects all have that change state is that set.
        let allInserted = inserted.count == work.inserted.count && inserted.allSatisfy { $0.change == .inserted }
        let allUpdated = updated.count == work.updated.count && updated.allSatisfy { $0.change == .updated }
        guard allInserted || allUpdated else { return nil }
        self.inserted = allInserted ? insertedSet : nil
        self.updated = allUpdated ? updatedSet : nil
        self.updatedIDs = allUpdated && !updated.contains(where: \.objectID.isTemporaryID) ? updatedIDs : nil
        stamp = work.changeStamp
    }
}

/// The object IDs a context notification reports, as a `Sendable` value.
public struct ContextChanges: Sendable, CustomStringConvertible {
    /// The notification's name.
    public let name: Notification.Name
    /// IDs of inserted objects.
    public let inserted: Set<ManagedObjectID>
    /// IDs of updated objects.
    public let updated: Set<ManagedObjectID>
    /// IDs of deleted objects.
    public let deleted: Set<ManagedObjectID>
    /// IDs of refreshed objects (objects-did-change only).
    public let refreshed: Set<ManagedObjectID>
    /// IDs of invalidated objects (objects-did-change only).
    public let invalidated: Set<ManagedObjectID>
    /// Whether every object of the context was invalidated: `reset()` (objects-did-change only;
    /// Core Data's `NSInvalidatedAllObjectsKey`). `invalidated` then holds the IDs of the objects
    /// that were registered.
    public let invalidatedAll: Bool
    /// Where the save that these changes report was, in a ``StrataTrace`` recording (the start
    /// of the arrow to each merge).
    var traceOrigin: TraceFlowOrigin?
    /// The did-save notification's user-info key for `traceOrigin` (present only while recording).
    static let traceOriginKey = "_strataTraceOrigin"

    /// Creates a payload.
    public init(
        name: Notification.Name, inserted: Set<ManagedObjectID> = [], updated: Set<ManagedObjectID> = [], deleted: Set<ManagedObjectID> = [],
        refreshed: Set<ManagedObjectID> = [], invalidated: Set<ManagedObjectID> = [], invalidatedAll: Bool = false
    ) {
        self.name = name
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.refreshed = refreshed
        self.invalidated = invalidated
        self.invalidatedAll = invalidatedAll
    }

    /// Whether nothing is reported.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll }

    public var description: String {
        "\(name.rawValue): \(inserted.count) inserted, \(updated.count) updated, \(deleted.count) deleted"
    }
}

/// The continuations of a context's notification streams. Thread-safe.
final class NotificationStreams: Sendable {
    private struct Subscriber {
        let name: Notification.Name
        let continuation: AsyncStream<ContextChanges>.Continuation
    }

    private let subscribers = StrataLock<[UUID: Subscriber]>([:])

    func makeStream(name: Notification.Name, bufferLimit: Int) -> AsyncStream<ContextChanges> {
        let (stream, continuation) = AsyncStream<ContextChanges>.makeStream(bufferingPolicy: .bufferingNewest(max(1, bufferLimit)))
        let id = UUID()
        subscribers.withLock { $0[id] = Subscriber(name: name, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ changes: ContextChanges) {
        let matching = subscribers.withLock { $0.values.filter { $0.name == changes.name } }
        for subscriber in matching { subscriber.continuation.yield(changes) }
    }

    func finishAll() {
        let all = subscribers.withLock { current -> [Subscriber] in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }
}
