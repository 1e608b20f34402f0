import Foundation

/// Keeps the results of a fetch request in sections and follows the context's changes, telling
/// its delegate what moved (Core Data's `NSFetchedResultsController`).
///
/// The results are the request's, in its order: sort descriptors, then (for equal keys) the
/// store's order (primary key; unsaved objects last). With a `sectionNameKeyPath`, consecutive
/// objects with the same value there form a section, so the first sort descriptor must group
/// them (its key is the section key path, or orders the same way). Changes made in the context
/// — its own edits, a child's save, merged saves of other contexts, merged batch requests — are
/// applied in place at the end of each event in O(k · log n) for k changes and n results, and
/// reported to ``AnyFetchedResultsController/delegate``. A request with `fetchLimit` or
/// `fetchOffset` is fetched again at each change instead.
///
/// **Queue.** Create, fetch, read and receive delegate calls on the context's queue.
open class FetchedResultsController<ResultType: ManagedObject>: AnyFetchedResultsController {
    /// The request the controller runs (changing it after ``AnyFetchedResultsController/performFetch()`` takes effect at
    /// the next ``AnyFetchedResultsController/performFetch()``).
    public let fetchRequest: FetchRequest<ResultType>

    /// Creates a controller for `fetchRequest` (which needs at least one sort descriptor) in
    /// `context`. `sectionNameKeyPath` splits the results into sections; `cacheName` keeps the
    /// section layout on disk so the next ``AnyFetchedResultsController/performFetch()`` with the same request can reuse it.
    /// Nothing is fetched until ``AnyFetchedResultsController/performFetch()``. Call on the context's queue.
    public init(fetchRequest: FetchRequest<ResultType>, managedObjectContext context: ManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.fetchRequest = fetchRequest
        let request = Request(
            plan: { [unowned context] in
                try context.makePlan(fetchRequest, entity: try context.resolveEntity(of: fetchRequest), kind: .rows)
            },
            fetch: { [unowned context] in
                let objects: [ResultType] = try context.fetch(fetchRequest)
                return objects
            },
            sortDescriptors: fetchRequest.sortDescriptors ?? [],
            fingerprint: { [unowned context] in
                let entity = try context.resolveEntity(of: fetchRequest)
                return [
                    "entity=\(entity.name)", "predicate=\(fetchRequest.predicate?.predicateFormat ?? "")",
                    "sorts=\((fetchRequest.sortDescriptors ?? []).map(\.description).joined(separator: ","))",
                    "sections=\(sectionNameKeyPath ?? "")", "subentities=\(fetchRequest.includesSubentities)",
                ].joined(separator: "\n")
            },
            isWindowed: fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0)
        super.init(request: request, context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName)
    }

    /// The results in order (section after section); `nil` before ``AnyFetchedResultsController/performFetch()``. Call on
    /// the context's queue.
    public var fetchedObjects: [ResultType]? {
        managedObjectContext.checkAccess("fetchedObjects")
        guard let layout else { return nil }
        return layout.sections.flatMap { $0.entries.compactMap { $0.object as? ResultType } }
    }

    /// The object at `indexPath` (`[section, item]`), or `nil` when there is none there (Core
    /// Data raises an exception; Strata does not crash on a bad index). Call on the context's
    /// queue.
    public func object(at indexPath: IndexPath) -> ResultType? {
        managedObjectContext.checkAccess("object(at:)")
        guard let sections = layout?.sections, indexPath.count == 2, sections.indices.contains(indexPath.section) else { return nil }
        let entries = sections[indexPath.section].entries
        guard entries.indices.contains(indexPath.item) else { return nil }
        return entries[indexPath.item].object as? ResultType
    }

    /// Where `object` is in the results, or `nil` when it is not among them. O(log n). Call on
    /// the context's queue.
    public func indexPath(forObject object: ResultType) -> IndexPath? {
        managedObjectContext.checkAccess("indexPath(forObject:)")
        guard let layout, let entry = layout.entry(for: object) else { return nil }
        return layout.indexPath(of: entry, sectionIndexes: layout.sectionIndexes())
    }
}
