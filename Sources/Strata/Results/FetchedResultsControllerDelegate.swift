import Foundation

/// What a fetched-results controller tells as its results change (Core Data's
/// `NSFetchedResultsControllerDelegate`). Every method has a default that does nothing.
///
/// **Order and queue.** All calls come on the controller's context's queue, at the end of the
/// event that changed objects (a `perform` block, `processPendingChanges()`, a merge): first
/// ``controllerWillChangeContent(_:)``, then the section changes and object changes of that
/// event, then ``controllerDidChangeContent(_:)``. Applied as a table applies a batch of
/// updates — deletes (of sections and objects, and the old side of moves) at their old index
/// paths, then inserts (and the new side of moves) at their new index paths, in ascending
/// order — they turn the previous sections into exactly the current ones.
///
/// A delegate that prefers whole snapshots sets ``prefersContentSnapshots`` to `true`: it then
/// receives ``controller(_:didChangeContentWith:)`` after each change instead of the calls
/// above (Core Data does the same for a delegate that implements the snapshot method).
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// The controller is about to report changes.
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController)
    /// `anObject` was inserted, deleted, moved or updated. `indexPath` is its old place (nil for
    /// an insert), `newIndexPath` its new place (nil for a delete).
    func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: any FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// The controller finished reporting the changes of one event.
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController)
    /// The results changed; `snapshot` is the whole new state. Called instead of the four
    /// methods above when ``prefersContentSnapshots`` is `true`.
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot)
    /// Whether the delegate receives snapshots instead of individual changes (default `false`).
    /// A snapshot costs O(n) to build for n results; the individual changes cost O(k · log n)
    /// for k changed objects.
    var prefersContentSnapshots: Bool { get }
}

extension FetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {}
    /// Does nothing.
    public func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    /// Does nothing.
    public func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: any FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {}
    /// Does nothing.
    public func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot) {}
    /// `false`: the delegate receives individual changes.
    public var prefersContentSnapshots: Bool { false }
}
