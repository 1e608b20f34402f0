import Foundation

/// The part of a fetched-results controller that does not depend on its result type: what its
/// delegate receives (Core Data's `NSFetchedResultsController` without its generic parameter).
/// Create a ``FetchedResultsController``.
///
/// **Queue.** A controller belongs to its context: create it, fetch, read its results and get
/// its delegate calls on the context's queue (inside `perform` / `performAndWait`, or on the
/// main thread for a main-queue context). Every entry point is checked by the concurrency debug
/// mode (`STRATA_CONCURRENCY_DEBUG=1`). A controller is not `Sendable`.
open class AnyFetchedResultsController: ContextChangeListener {
    /// The context the controller fetches in and follows. Immutable.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section, or `nil` for one section. Immutable.
    public let sectionNameKeyPath: String?
    /// The name of the on-disk cache of the section layout, or `nil` for none. Immutable.
    public let cacheName: String?
    /// Who hears of changes to the results (held weakly, as in Core Data). Without one the
    /// controller does not track changes (Core Data's "no tracking" mode): its results stay
    /// those of the last ``performFetch()``. Set on the context's queue.
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    /// The request's parts the controller needs without its result type.
    struct Request {
        let plan: () throws -> FetchPlan
        let fetch: () throws -> [ManagedObject]
        let sortDescriptors: [ObjectSortDescriptor]
        let fingerprint: () throws -> String
        /// Whether the results are a window (limit or offset): changes then refetch.
        let isWindowed: Bool
    }

    let request: Request
    /// The results; `nil` until ``performFetch()`` succeeds.
    var layout: ResultsLayout?
    /// The cache file to delete at the first change after it was read or written.
    var cacheToInvalidate: URL?

    init(request: Request, context: ManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.request = request
        managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    /// Runs the fetch and lays out its results in sections, then follows the context's changes
    /// (reported to ``delegate``). With a ``cacheName`` and a valid cache (same request, stores
    /// unchanged since it was written, no unsaved changes in the context) the layout is read
    /// from the cache without running the fetch. Throws for a request without sort descriptors,
    /// a first sort descriptor that does not group the objects by the section name key path, an
    /// unknown key, a malformed predicate or a store failure; the previous results stay then.
    /// Call on the context's queue.
    public func performFetch() throws {
        managedObjectContext.checkAccess("performFetch()")
        guard !request.sortDescriptors.isEmpty else {
            throw StrataError(
                code: StrataError.Code.coreData, message: "A fetched-results controller needs a fetch request with at least one sort descriptor")
        }
        let plan = try request.plan()
        let order = try ResultsOrder(plan: plan, sectionNameKeyPath: sectionNameKeyPath)
        let layout = ResultsLayout(order: order) { [unowned self] name in self.sectionIndexTitle(forSectionName: name) }
        let cache = try cacheName.map { FetchedResultsCache(name: $0, fingerprint: try request.fingerprint()) }
        let usesCache = cache != nil && !managedObjectContext.hasChanges && !request.isWindowed
        if usesCache, let cache, let coordinator = managedObjectContext.persistentStoreCoordinator,
            let entries = cache.load(coordinator: coordinator, context: managedObjectContext)
        {
            try layout.fill(entries)
            cacheToInvalidate = cache.url
        } else {
            let stamp = usesCache ? managedObjectContext.persistentStoreCoordinator.flatMap(FetchedResultsCache.stamp(of:)) : nil
            try layout.build(try request.fetch())
            if let cache, let stamp {
                cache.save(layout, stamp: stamp)
                cacheToInvalidate = cache.url
            }
        }
        self.layout = layout
        managedObjectContext.addChangeListener(self)
    }

    /// The sections, in order; `nil` before ``performFetch()``. Call on the context's queue.
    public var sections: [any FetchedResultsSectionInfo]? {
        managedObjectContext.checkAccess("sections")
        return layout?.sections
    }

    /// The index titles of the sections, each once, in section order. Call on the context's
    /// queue.
    public var sectionIndexTitles: [String] {
        managedObjectContext.checkAccess("sectionIndexTitles")
        var seen = Set<String>()
        var titles: [String] = []
        for section in layout?.sections ?? [] {
            if let title = section.indexTitle, seen.insert(title).inserted { titles.append(title) }
        }
        return titles
    }

    /// The index title of the section named `sectionName`: its first letter, capitalized (nil
    /// for an empty name), as Core Data's default. Subclasses may override it. Called on the
    /// context's queue.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        guard let first = sectionName.first else { return nil }
        return String(first).uppercased()
    }

    /// The index of the first section whose index title is `title` (the section index of a
    /// table's index bar); `sectionIndex` when there is none. Call on the context's queue.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        managedObjectContext.checkAccess("section(forSectionIndexTitle:at:)")
        return layout?.sections.firstIndex { $0.indexTitle == title } ?? sectionIndex
    }

    /// The results as section names and object IDs; `nil` before ``performFetch()``. O(n). Call
    /// on the context's queue.
    public var snapshot: FetchedResultsSnapshot? {
        managedObjectContext.checkAccess("snapshot")
        return layout.map(Self.snapshot(of:))
    }

    static func snapshot(of layout: ResultsLayout) -> FetchedResultsSnapshot {
        FetchedResultsSnapshot(sections: layout.sections.map { ($0.name, $0.entries.map(\.object.objectID)) })
    }

    /// Deletes the cache named `name`, or every controller cache when `name` is nil. Safe from
    /// any thread.
    public class func deleteCache(withName name: String?) {
        FetchedResultsCache.delete(name: name)
    }

    // MARK: Following the context

    func context(_ context: ManagedObjectContext, objectsDidChange changes: ObjectsDidChange) {
        // Without a delegate the controller does not track changes (Core Data's "no tracking"
        // mode): its results stay those of the last performFetch().
        guard let layout, delegate != nil else { return }
        var reportingUpdates = Set<ObjectIdentifier>()
        for object in changes.updated { reportingUpdates.insert(ObjectIdentifier(object)) }
        for object in changes.refreshed { reportingUpdates.insert(ObjectIdentifier(object)) }
        var changed = Array(changes.inserted) + Array(changes.updated) + Array(changes.refreshed)
        var refetch = changes.invalidatedAll || request.isWindowed
        if !refetch, !layout.order.relatedChains.isEmpty {
            // Results whose sections, sort keys or predicate read a changed related object, and
            // objects its change may bring into the results.
            for object in changed + Array(changes.deleted) {
                var roots = layout.dependents(of: object)
                if !layout.order.predicateChains.isEmpty {
                    guard let candidates = layout.order.candidateRoots(of: object) else {
                        refetch = true
                        break
                    }
                    roots += candidates
                }
                for root in roots where reportingUpdates.insert(ObjectIdentifier(root)).inserted { changed.append(root) }
            }
        }
        if refetch {
            refetchAndReport(reportingUpdates: reportingUpdates)
            return
        }
        let gone = Array(changes.deleted) + Array(changes.invalidated)
        deliver(layout.apply(changed: changed, gone: gone, reportingUpdates: reportingUpdates))
    }

    func context(_ context: ManagedObjectContext, didSaveInserting inserted: Set<ManagedObject>) {
        // Saved inserts have permanent IDs now, which may reorder objects with equal sort keys.
        guard let layout, delegate != nil, !inserted.isEmpty else { return }
        if request.isWindowed {
            refetchAndReport(reportingUpdates: [])
            return
        }
        // A snapshot names objects by ID: one holding a saved insert has a new snapshot.
        let renamed = inserted.contains { layout.entry(for: $0) != nil }
        deliver(layout.apply(changed: Array(inserted), gone: [], reportingUpdates: []), snapshotAnyway: renamed)
    }

    /// Runs the fetch again and reports the difference (after `reset()`, for windowed fetches,
    /// and for changes of related objects that cannot be traced back).
    private func refetchAndReport(reportingUpdates: Set<ObjectIdentifier>) {
        guard let old = layout else { return }
        let fresh = ResultsLayout(order: old.order) { [unowned self] name in self.sectionIndexTitle(forSectionName: name) }
        do {
            try fresh.build(try request.fetch())
        } catch {
            // The results cannot be recomputed (a store failure): keep the last ones, which
            // the next successful event or performFetch() brings up to date.
            return
        }
        layout = fresh
        deliver(fresh.changes(from: old, reportingUpdates: reportingUpdates))
    }

    /// Tells the delegate about `changes`.
    private func deliver(_ changes: ResultsChanges, snapshotAnyway: Bool = false) {
        guard !changes.isEmpty || (snapshotAnyway && delegate?.prefersContentSnapshots == true) else { return }
        if let url = cacheToInvalidate {
            cacheToInvalidate = nil
            try? FileManager.default.removeItem(at: url)
        }
        guard let delegate, let layout else { return }
        if delegate.prefersContentSnapshots {
            delegate.controller(self, didChangeContentWith: Self.snapshot(of: layout))
            return
        }
        delegate.controllerWillChangeContent(self)
        for (section, index) in changes.deletedSections { delegate.controller(self, didChange: section, atSectionIndex: index, for: .delete) }
        for (section, index) in changes.insertedSections { delegate.controller(self, didChange: section, atSectionIndex: index, for: .insert) }
        for change in changes.objects {
            delegate.controller(self, didChange: change.object, at: change.oldPath, for: change.type, newIndexPath: change.newPath)
        }
        delegate.controllerDidChangeContent(self)
    }
}
