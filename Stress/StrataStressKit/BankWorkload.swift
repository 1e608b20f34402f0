import Foundation
import Strata
import StrataLocks
import StrataSQLite
import StrataTestSupport
import Synchronization

/// The random bank workload on the 16 contexts of ``BankTopology``: worker threads pick a
/// context and an operation its role allows, until a deadline.
///
/// Every operation follows the wait rule of ``ContextTree/allowedWaits(held:)``: a worker holds
/// no context between operations, waits only up the tree, and reaches other contexts with
/// asynchronous `perform`. Thread-safe.
public final class BankWorkload: Sendable {
    /// The contexts.
    public let tree: ContextTree
    /// The role of each context.
    public let roles: [BankRole]
    /// Counters and failures.
    public let counters: StressCounters
    /// How many accounts the bank opened with (numbers `0..<initialAccounts`).
    public let initialAccounts: Int
    /// Transfers favour the first few accounts, so that contexts collide.
    let hotAccounts: Int
    /// The next account number to open.
    let nextNumber: Atomic<Int64>
    /// The ID payloads of the latest root saves, for manual merges.
    let recentSaves = StrataLock<[ContextChanges]>([])
    /// Asynchronous blocks enqueued and not finished yet.
    public let pendingAsync = AtomicCounter()
    /// Chains child → main-queue parent → child, and how many of their parent blocks ran on
    /// the main thread (under `RunLoop.main`).
    public let mainQueueChains = AtomicCounter()
    /// See ``mainQueueChains``.
    public let mainQueueChainsOnMainThread = AtomicCounter()
    /// Re-entrant chains (child → parent → child) whose innermost block ran, of any parent.
    public let chainsCompleted = AtomicCounter()
    /// Chains that broke a property of re-entrancy (see ``chainRead(at:random:)``).
    public let chainViolations = AtomicCounter()
    /// Operations finished, by role (every role has an entry).
    public let operationsByRole: [BankRole: AtomicCounter]
    /// Transfers saved, by role (every role has an entry).
    public let transfersByRole: [BankRole: AtomicCounter]
    /// The negative control of the ledger check (off unless asked for).
    public let control: LedgerControl
    /// The contexts workers use (all by default; fewer to narrow a failure down).
    public let active: [Int]
    /// What each worker does right now, for the watchdog.
    let activity = StrataLock<[Int: String]>([:])
    /// The most attempts a transfer makes before giving up.
    static let maximumAttempts = 6

    /// Creates the workload over `tree` (built from ``BankTopology``).
    public init(
        tree: ContextTree, roles: [BankRole], counters: StressCounters, initialAccounts: Int, hotAccounts: Int = 8, active: [Int]? = nil,
        control: LedgerControl = LedgerControl(enabled: false)
    ) {
        self.control = control
        self.operationsByRole = Dictionary(uniqueKeysWithValues: BankRole.allCases.map { ($0, AtomicCounter()) })
        self.transfersByRole = Dictionary(uniqueKeysWithValues: BankRole.allCases.map { ($0, AtomicCounter()) })
        self.active = (active ?? Array(tree.nodes.indices)).filter { tree.nodes.indices.contains($0) }
        self.tree = tree
        self.roles = roles
        self.counters = counters
        self.initialAccounts = initialAccounts
        self.hotAccounts = max(2, min(hotAccounts, initialAccounts))
        self.nextNumber = Atomic(Int64(initialAccounts))
    }

    /// Records a root save's IDs for later manual merges (keeps the last 16).
    public func noteRootSave(_ changes: ContextChanges) {
        recentSaves.withLock { saves in
            saves.append(changes)
            if saves.count > 16 { saves.removeFirst(saves.count - 16) }
        }
    }

    /// What the workers were doing, one line each (for a watchdog report).
    public var activityReport: String {
        activity.withLock { $0.sorted { $0.key < $1.key }.map { "  worker \($0.key): \($0.value)" }.joined(separator: "\n") }
    }

    /// Runs operations on random contexts until `deadline`. Call from a thread that holds no
    /// context.
    public func runWorker(_ worker: Int, seed: UInt64, until deadline: DispatchTime) {
        var random = SeededGenerator(seed: seed)
        while DispatchTime.now() < deadline {
            guard !active.isEmpty else { return }
            let index = active[random.index(active.count)]
            let operation = chooseOperation(for: roles[index], at: index, random: &random)
            activity.withLock { $0[worker] = "\(operation) at \(tree.nodes[index].spec.name)" }
            perform(operation, at: index, random: &random)
            counters.operations.add()
            operationsByRole[roles[index]]?.add()
        }
        activity.withLock { $0[worker] = "done" }
    }

    /// The operations a worker can run.
    enum Operation: String {
        case transfer, asyncTransfer, openAccount, closeAccount, relabel
        case flush, read, chainRead, faultWalk, audit, advanceGeneration
        case merge, remoteMerge, reset, refresh
        case batchSweep, batchRelabel, batchOpen
    }

    func chooseOperation(for role: BankRole, at index: Int, random: inout SeededGenerator) -> Operation {
        let isRoot = tree.parent(of: index) == nil
        let roll = random.index(100)
        switch role {
        case .teller:
            if roll < 55 { return .transfer }
            if roll < 60 { return .asyncTransfer }
            if roll < 72 { return isRoot ? .read : .flush }
            if roll < 82 { return .read }
            if roll < 88 { return .faultWalk }
            if roll < 94 { return isRoot ? .merge : .chainRead }
            return tree.isLeaf(index) ? .reset : .refresh
        case .view:
            if roll < 30 { return .read }
            if roll < 50 { return .transfer }
            if roll < 75 { return .faultWalk }
            if roll < 90 { return .remoteMerge }
            return .refresh
        case .inspector:
            if roll < 40 { return .chainRead }
            if roll < 70 { return .read }
            if roll < 90 { return .faultWalk }
            return .reset
        case .auditor:
            return roll < 85 ? .audit : .advanceGeneration
        case .labeler:
            if roll < 5 { return .batchRelabel }
            if roll < 60 { return .relabel }
            if roll < 80 { return isRoot ? .read : .flush }
            return .read
        case .resetter:
            if roll < 40 { return .transfer }
            if roll < 55 { return .reset }
            if roll < 70 { return .refresh }
            if roll < 85 { return .merge }
            return .read
        case .importer:
            if roll < 20 { return .openAccount }
            if roll < 30 { return .closeAccount }
            if roll < 35 { return .batchOpen }
            if roll < 40 { return .batchSweep }
            if roll < 70 { return .transfer }
            if roll < 90 { return isRoot ? .read : .flush }
            return .read
        }
    }

    func perform(_ operation: Operation, at index: Int, random: inout SeededGenerator) {
        switch operation {
        case .transfer: transfer(at: index, random: &random)
        case .asyncTransfer: asyncTransfer(at: index, seed: random.next())
        case .openAccount: openAccount(at: index, random: &random)
        case .closeAccount: closeAccount(at: index, random: &random)
        case .relabel: relabel(at: index, random: &random)
        case .flush: flush(from: index)
        case .read: read(at: index, random: &random)
        case .chainRead: chainRead(at: index, random: &random)
        case .faultWalk: faultWalk(at: index, random: &random)
        case .audit: audit(at: index, advance: false)
        case .advanceGeneration: audit(at: index, advance: true)
        case .merge: manualMerge(at: index)
        case .remoteMerge: remoteMerge(at: index)
        case .reset: reset(at: index)
        case .refresh: refresh(at: index)
        case .batchSweep: batchSweep(at: index)
        case .batchRelabel: batchRelabel(at: index, random: &random)
        case .batchOpen: batchOpen(at: index)
        }
    }

    // MARK: Helpers shared by the operations

    /// Two different account numbers, often among the hot ones.
    func pickPair(_ random: inout SeededGenerator) -> (Int64, Int64) {
        let limit = random.chance(0.5) ? Int64(hotAccounts) : max(Int64(hotAccounts), nextNumber.load(ordering: .relaxed))
        let from = Int64(random.index(Int(limit)))
        var to = Int64(random.index(Int(limit) - 1))
        if to >= from { to += 1 }
        return (from, to)
    }

    /// Flags an account seen with a negative balance (in any context, any state).
    func inspect(_ account: Account, in context: ManagedObjectContext) {
        guard !account.isDeleted else { return }
        if account.balance < 0 {
            counters.negativeSightings.add()
            counters.fail("account \(account.number) seen with balance \(account.balance) in \(context.name ?? "?")")
        }
    }

    /// After a failed save: drops the context's changes and refreshes the objects in conflict,
    /// so a retry reads current values. Counts a parent that lost its children's work.
    func recover(_ context: ManagedObjectContext, index: Int, after error: any Error) {
        if !tree.isLeaf(index) { counters.parentRollbacks.add() }
        context.rollback()
        guard let error = error as? StrataError else { return }
        for conflict in error.conflicts {
            if let object = context.registeredObject(for: conflict.objectID) { context.refresh(object, mergeChanges: false) }
        }
    }
}
