import Foundation

/// Query generations: reading a consistent state of the store while others save.
extension ManagedObjectContext {
    /// The generation the context reads from, or `nil` when it reads the latest state.
    /// Thread-safe: read it from any thread; pin the context with ``setQueryGenerationFrom(_:)`` on
    /// its queue.
    public var queryGenerationToken: QueryGenerationToken? {
        pinnedGeneration.withLock { $0?.token }
    }

    /// Pins the context to the store's current state (`.current`), moves it forward to the
    /// current state (`.current` again), or unpins it (`nil`). While pinned, fetches and faults
    /// see the stores as they were when pinned, whatever other contexts save; the context's own
    /// saves move it to the state right after them. Registered objects keep their values; call
    /// `refreshAllObjects()` to re-read them in the new generation. Only root contexts can be
    /// pinned (a child reads through its parent). Call on the context's queue.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        checkAccess("setQueryGenerationFrom(_:)")
        guard let token else {
            let old = pinnedGeneration.withLock { current -> PinnedGeneration? in
                defer { current = nil }
                return current
            }
            old?.release()
            return
        }
        guard parent == nil, let coordinator = persistentStoreCoordinator else {
            throw StrataError(code: StrataError.Code.coreData, message: "Only a root context (with a coordinator, not a parent) can be pinned to a query generation")
        }
        if token != .current && token != queryGenerationToken {
            throw StrataError(code: StrataError.Code.coreData, message: "Only the current generation (QueryGenerationToken.current) or the context's own token can be used")
        }
        if token == queryGenerationToken { return }
        let generation = try coordinator.pinCurrentGeneration()
        let old = pinnedGeneration.withLock { current -> PinnedGeneration? in
            defer { current = generation }
            return current
        }
        old?.release()
    }

    /// After a root save, a pinned context moves to the state right after its save.
    func advancePinnedGenerationAfterSave() {
        guard pinnedGeneration.withLock({ $0 != nil }), let coordinator = persistentStoreCoordinator,
            let generation = try? coordinator.pinCurrentGeneration()
        else { return }
        let old = pinnedGeneration.withLock { current -> PinnedGeneration? in
            defer { current = generation }
            return current
        }
        old?.release()
    }
}
