import Dispatch
import Foundation
import StrataLocks
import Synchronization

/// A scratch pad of managed objects bound to one serial queue (Core Data's
/// `NSManagedObjectContext`).
///
/// **Queue rules.** A `.privateQueue` context owns a serial `DispatchQueue`; a `.mainQueue`
/// context uses `DispatchQueue.main`. Touch the context and its objects only inside
/// ``perform(_:)``, ``performAndWait(_:)`` or `await perform { … }` (a main-queue context also
/// directly on the main thread). The context itself is `Sendable`: pass it anywhere and call
/// `perform` on it. With `STRATA_CONCURRENCY_DEBUG=1` every wrong-queue use traps with a message.
///
/// Contexts form trees: a root context's ``save()`` commits to the coordinator's stores in one
/// transaction; a child's save pushes its changes into its ``parent`` only.
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: `state` is touched only on the context's queue (checked in debug
    // mode); `settings` is guarded by a mutex; everything else is immutable.

    /// How a context runs its blocks (Core Data's `NSManagedObjectContextConcurrencyType`).
    ///
    /// A `Sendable` value: use it on any thread.
    public enum ConcurrencyType: Sendable {
        /// The context owns a private serial queue.
        case privateQueue
        /// The context uses the main queue; blocks run only while the main thread services it.
        case mainQueue
    }

    /// The context's concurrency type. Immutable: read it from any thread.
    public let concurrencyType: ConcurrencyType
    let queue: DispatchQueue
    let state = ContextState()
    let streams = NotificationStreams()
    /// Child contexts (weakly), for automatic merges.
    let childList = WeakObjectList<ManagedObjectContext>()
    private let settings = StrataLock(ContextSettings())
    /// ``retainsRegisteredObjects``, read by every object the context registers: an atomic
    /// rather than a field of `settings`, so registering costs no lock.
    private let retainsRegisteredObjectsFlag = Atomic<Bool>(false)
    private let parentStore = StrataLock<ParentLink?>(nil)
    let pinnedGeneration = StrataLock<PinnedGeneration?>(nil)
    /// The context queue's row in a ``StrataTrace`` recording.
    let traceTrack = TraceTrack.next()

    struct ContextSettings: Sendable {
        var name: String?
        var mergePolicy = MergePolicy.error
        var shouldDeleteInaccessibleFaults = true
        var automaticallyMergesChangesFromParent = false
        var transactionAuthor: String?
    }

    struct ParentLink: @unchecked Sendable {
        // @unchecked Sendable: both are Sendable classes; the enum only selects one.
        var coordinator: PersistentStoreCoordinator?
        var parentContext: ManagedObjectContext?
        var store: any ParentStore
    }

    /// Creates a context. Give it a ``persistentStoreCoordinator`` (a root context) or a
    /// ``parent`` context (a child) before using it. Callable from any thread.
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        switch concurrencyType {
        case .mainQueue: queue = DispatchQueue.main
        case .privateQueue: queue = DispatchQueue(label: "org.strata.context", qos: .default)
        }
        state.registry.owner = self
        StrataTrace.startFromEnvironment()
    }

    deinit {
        state.registry.owner = nil
        streams.finishAll()
    }

    // MARK: Configuration (thread-safe)

    /// A name for debugging (shown in concurrency-violation messages).
    /// Thread-safe: read and set it from any thread.
    public var name: String? {
        get { settings.withLock { $0.name } }
        set { settings.withLock { $0.name = newValue } }
    }

    /// How saves resolve conflicts with changes made elsewhere (default `.error`).
    /// Thread-safe: read and set it from any thread.
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.mergePolicy } }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }

    /// How old (in seconds) cached row values may be before a fault fires from the store again;
    /// negative (the default) means cached values never expire.
    /// Thread-safe: read and set it from any thread.
    public var stalenessInterval: TimeInterval {
        // Kept by the registry (atomically), where a fault firing from its own row reads it.
        get { state.registry.stalenessInterval }
        set { state.registry.stalenessInterval = newValue }
    }

    /// Whether a fault whose row was deleted elsewhere fires into a deleted object with nil
    /// values (true, the default) instead of failing. Thread-safe: read and set it from any thread.
    public var shouldDeleteInaccessibleFaults: Bool {
        get { settings.withLock { $0.shouldDeleteInaccessibleFaults } }
        set { settings.withLock { $0.shouldDeleteInaccessibleFaults = newValue } }
    }

    /// Whether the context merges its parent's saves automatically.
    /// Thread-safe: read and set it from any thread.
    public var automaticallyMergesChangesFromParent: Bool {
        get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
        set { settings.withLock { $0.automaticallyMergesChangesFromParent = newValue } }
    }

    /// A name for the author of the context's saves (Core Data's `transactionAuthor`): a store
    /// that tracks persistent history records it with each transaction this context writes (a
    /// root context's saves, and batch requests it executes), as
    /// ``PersistentHistoryTransaction/author``. A child context's saves go to its parent and
    /// record nothing; the root's save records the root's author. Thread-safe.
    public var transactionAuthor: String? {
        get { settings.withLock { $0.transactionAuthor } }
        set { settings.withLock { $0.transactionAuthor = newValue } }
    }

    /// Whether registered objects are held strongly even when unchanged (default false: clean
    /// objects live only as long as the app holds them).
    /// Thread-safe: read and set it from any thread.
    public var retainsRegisteredObjects: Bool {
        get { retainsRegisteredObjectsFlag.load(ordering: .relaxed) }
        set { retainsRegisteredObjectsFlag.store(newValue, ordering: .relaxed) }
    }

    // MARK: Parent store

    /// The coordinator of a root context (for a child, its root's coordinator). Setting it
    /// makes this a root context.
    /// Set it from any thread before the context is first used; read it from any thread.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { parentStore.withLock { $0?.store.rootCoordinator } }
        set {
            let old = parentStore.withLock { link -> ParentLink? in
                defer { link = newValue.map { ParentLink(coordinator: $0, parentContext: nil, store: $0) } }
                return link
            }
            old?.coordinator?.rootContextList.remove(self)
            old?.parentContext?.childList.remove(self)
            newValue?.rootContextList.add(self)
        }
    }

    /// The parent context of a child context. Setting it makes this a child: its saves go into
    /// the parent, and it fetches through the parent.
    /// Set it from any thread before the context is first used; read it from any thread.
    public var parent: ManagedObjectContext? {
        get { parentStore.withLock { $0?.parentContext } }
        set {
            let old = parentStore.withLock { link -> ParentLink? in
                defer { link = newValue.map { ParentLink(coordinator: nil, parentContext: $0, store: $0) } }
                return link
            }
            old?.coordinator?.rootContextList.remove(self)
            old?.parentContext?.childList.remove(self)
            newValue?.childList.add(self)
        }
    }

    /// The live child contexts.
    var children: [ManagedObjectContext] { childList.objects }
    /// Whether the context has live child contexts.
    var hasChildContexts: Bool { !childList.isEmpty }

    /// The parent store, or an error saying the context has none.
    func requireParentStore() throws -> any ParentStore {
        if let generation = pinnedGeneration.withLock({ $0 }), let coordinator = parentStore.withLock({ $0?.coordinator }) {
            return PinnedParentStore(base: coordinator, generation: generation)
        }
        guard let store = parentStore.withLock({ $0?.store }) else {
            throw StrataError(code: StrataError.Code.coreData, message: "\(self) has no persistent store coordinator and no parent context")
        }
        return store
    }

    /// The model of the coordinator at the root of the tree.
    var model: ManagedObjectModel? { persistentStoreCoordinator?.managedObjectModel }

    public var description: String {
        let kind = concurrencyType == .mainQueue ? "main-queue" : "private-queue"
        return "<ManagedObjectContext \(name.map { "'\($0)' " } ?? "")\(kind) \(ObjectIdentifier(self).hashValue & 0xFFFFFF)>"
    }

    /// The name of the context's track in a ``StrataTrace`` recording.
    func traceTrackName() -> String {
        let kind = concurrencyType == .mainQueue ? "main queue" : "private queue"
        return "\(name ?? "context") #\(traceTrack.id) (\(kind))"
    }

    // MARK: Queue checks

    var ownershipToken: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether the current thread may touch the context.
    var isOnQueue: Bool {
        if QueueOwnership.isOwned(ownershipToken) { return true }
        return concurrencyType == .mainQueue && Thread.isMainThread
    }

    /// Traps in concurrency debug mode when called off the context's queue.
    @inline(__always)
    func checkAccess(_ call: StaticString) {
        if DebugSettings.concurrencyChecks && !isOnQueue {
            ConcurrencyDebug.reportViolation(contextDescription: description, call: call)
        }
    }
}

/// A context's state, touched only on its queue.
final class ContextState {
    let registry: ObjectRegistry
    /// The unsaved changes: the only writer of objects' change state and of the inserted,
    /// updated and deleted sets.
    let work: UnitOfWork
    /// Objects with problems recorded by APIs that cannot throw, kept alive until reported.
    var problemObjects = ObjectSet()
    /// Problems not tied to an object.
    var contextProblems: [StrataError] = []
    /// The last class → entity answer of `entityForInsert(of:)`, for the model it came from.
    var insertEntityCache: (type: ObjectIdentifier, model: ManagedObjectModel, entity: EntityDescription)?
    /// Objects held strongly because `retainsRegisteredObjects` is on.
    var retained: [ObjectIdentifier: ManagedObject] = [:]
    /// Whether a save is running (saves are not re-entrant).
    var isSaving = false
    /// Whether saves skip object validation: set only by a custom migration for its batch saves
    /// of a destination store, which validates every object itself before its last save
    /// (Migration/MigrationManager+Passes.swift).
    var skipsSaveValidation = false
    /// The permanent IDs the last save handed out (by insert position or by temporary ID: see
    /// `SaveChangesResult.insertedIDs`), kept until the save's merges record them as aliases.
    var lastPermanentIDs = SaveChangesResult()
    /// Objects changed in the current event, in order of first change.
    var eventObjects: [ManagedObject] = []
    /// What the objects-did-change that opened the running save reported, when it was all the
    /// save's inserts and updates (see ``PostedSaveSets``); taken by the save's did-save.
    var postedSaveSets: PostedSaveSets?
    /// The objects the latest merge inserted, held until the end of the block on the context's
    /// queue in which it ran (or the next merge), as Core Data's autorelease pool holds them:
    /// `registeredObject(for:)` finds them there (see `ManagedObjectContext+Merge.swift`).
    var mergedInsertions: [ManagedObject] = []
    /// Whether objects-did-change is being posted (observers may change objects; their changes
    /// go into the next event).
    var isPostingChanges = false
    /// Fetched-results controllers following this context's changes.
    let changeListeners = ContextChangeListeners()
    /// The undo manager recording the context's changes (see `ManagedObjectContext+Undo.swift`).
    var undoManager: ObjectUndoManager?

    init() {
        registry = ObjectRegistry()
        work = UnitOfWork(registry: registry)
        registry.changeRecorder = self
    }

    deinit {
        registry.changeRecorder = nil
    }
}
