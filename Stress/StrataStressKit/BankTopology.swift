import Foundation
import Strata

/// What a context of the stress tree does.
public enum BankRole: String, Sendable, CaseIterable {
    /// Moves money (read-modify-write, optimistic locking with `.error` and retries); children
    /// save into their parent, and their work reaches the store when the tree is flushed.
    case teller
    /// The main-queue root: automatic merges, retained objects, reads, faults, whole-block transfers.
    case view
    /// A read-only private child of the main-queue root: fetches and faults through it, and
    /// re-enters itself through it (child → main-queue parent → child).
    case inspector
    /// A root pinned to a query generation: its view of the money must always be exact.
    case auditor
    /// Edits labels only, under the trump merge policies (conflicts resolved, money untouched).
    case labeler
    /// A root with retained objects: transfers, resets, refreshes and manual merges.
    case resetter
    /// Opens accounts (a uniqueness constraint, with deliberate duplicates) and closes them
    /// (drain, then delete), plus transfers.
    case importer
}

/// The 16 contexts of a stress run: roots, children, grandchildren, a main-queue context and
/// private ones, with their roles.
///
/// Writers use `.error` (a conflict is answered by refresh and retry). A context that other
/// contexts save into (a parent of writers) holds unsaved changes between blocks, so it never
/// merges automatically and is never refreshed while it has changes: merging or refreshing an
/// object with unsaved changes keeps the local values over fresh ones and makes the object
/// current (Core Data's behaviour), so the save that follows no longer sees the conflict — a
/// read-modify-write must not span a merge. Only contexts whose changes never outlive one block
/// (leaves, and roots without writing children) merge automatically. Labelers use the trump policies and touch labels only: those policies are
/// safe for properties a context writes without reading, never for balances.
public enum BankTopology {
    /// The specs and roles, in tree order (parents first).
    public static let layout: [(spec: ContextTree.Spec, role: BankRole)] = [
        (.init("bank"), .teller),  // 0
        (.init("bank.teller1", parent: 0), .teller),  // 1
        (.init("bank.teller2", parent: 0), .teller),  // 2
        (.init("bank.teller1.clerk1", parent: 1, automaticallyMerges: true), .teller),  // 3
        (.init("bank.teller1.clerk2", parent: 1, retainsRegisteredObjects: true), .teller),  // 4
        (.init("branch"), .teller),  // 5
        (.init("branch.teller", parent: 5), .teller),  // 6
        (.init("branch.teller.clerk", parent: 6, automaticallyMerges: true), .teller),  // 7
        (.init("view", concurrencyType: .mainQueue, automaticallyMerges: true, retainsRegisteredObjects: true), .view),  // 8
        (.init("view.inspector", parent: 8, automaticallyMerges: true), .inspector),  // 9
        (.init("auditor"), .auditor),  // 10
        (.init("labeler", mergePolicy: .mergeByPropertyObjectTrump), .labeler),  // 11
        (.init("labeler.editor", parent: 11, mergePolicy: .mergeByPropertyStoreTrump), .labeler),  // 12
        (.init("resetter", retainsRegisteredObjects: true), .resetter),  // 13
        (.init("importer"), .importer),  // 14
        (.init("importer.child", parent: 14), .importer),  // 15
    ]

    /// The roles by context index.
    public static var roles: [BankRole] { layout.map(\.role) }

    /// Builds the tree on `coordinator`.
    public static func makeTree(coordinator: PersistentStoreCoordinator) -> ContextTree {
        ContextTree(coordinator: coordinator, specs: layout.map(\.spec))
    }
}
