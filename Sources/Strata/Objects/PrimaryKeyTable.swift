/// One key space's entries of a context's identity map (`ObjectRegistry`), by number: pages of
/// 64 slots for numbers below 2^26, found by index in a directory, and a dictionary for other
/// numbers. Used only on its context's queue.
///
/// Pages are small and one allocation each because fetches rarely fill them: a `fetchLimit`
/// page sorted on anything but the primary key lands its objects on scattered numbers, one
/// page each (pages of 512 slots in two allocations cost such a fetch of 100 objects from a
/// million-row table 400 KB of zeroed memory). A page is released when its last entry goes and
/// kept for reuse, up to ``sparePageLimit`` of them, so a loop of fetches that each release
/// their objects does not allocate pages again.
///
/// The directory and the spare list hold their pages as `Unmanaged` references that own one
/// retain each (taken when a page is made, given back in `deinit` or when a page beyond the
/// spare limit goes): a page moves between them by plain stores. With strong references each
/// move retained the page and released the one it replaced, which at one page per object (the
/// scattered keys above) was about a third of registering and deregistering a fetched object
/// (perf of a `fetchLimit` 100 fetch sorted on an indexed attribute).
final class PrimaryKeyTable {
    typealias Entry = Unmanaged<ManagedObject>

    /// The slots of one page and, as its header, how many of them are in use.
    private final class Page: ManagedBuffer<Int, Entry?> {
        /// A page with every slot empty.
        static func make() -> Page {
            let page = unsafeDowncast(Page.create(minimumCapacity: PrimaryKeyTable.pageSize) { _ in 0 }, to: Page.self)
            page.withUnsafeMutablePointerToElements { $0.initialize(repeating: nil, count: PrimaryKeyTable.pageSize) }
            return page
        }

        /// How many slots are in use. Read and written through the header's address: the
        /// `header` property is a stored property of a class, so every `+= 1` through it paid the
        /// runtime's exclusivity check (perf: a third of the samples in `remove`).
        @inline(__always) var used: Int {
            get { withUnsafeMutablePointerToHeader { $0.pointee } }
            set { withUnsafeMutablePointerToHeader { $0.pointee = newValue } }
        }

        /// Empties every slot.
        func clear() {
            used = 0
            withUnsafeMutablePointerToElements { $0.update(repeating: nil, count: PrimaryKeyTable.pageSize) }
        }

        /// The entry in `slot`.
        @inline(__always) func entry(at slot: Int) -> Entry? {
            withUnsafeMutablePointerToElements { $0[slot] }
        }

        /// Puts `entry` in `slot` (a slot index below the page size); returns the entry it replaced.
        @inline(__always) func exchange(_ entry: Entry?, at slot: Int) -> Entry? {
            withUnsafeMutablePointerToElements { slots in
                let old = slots[slot]
                slots[slot] = entry
                return old
            }
        }
    }

    static let pageShift: Int64 = 6
    static let pageSize = 1 << pageShift
    /// Numbers below this many pages' worth are paged; others go to the dictionary.
    static let densePages: Int64 = 1 << 20
    /// Released pages kept for reuse (64 × about 530 bytes).
    static let sparePageLimit = 64

    // Like the registry, the table is confined to its context's queue; release builds skip
    // the runtime's exclusivity checks on its fields (see `ManagedObject`'s hot fields), debug
    // builds keep them.
    // `livePages`: how many pages the directory holds. `removeAll()` and `entries` walk the
    // directory only as far as its last live page (a table over a million keys has a directory
    // of 15,625 places, and a loop of small fetches each followed by a `reset()` finds the pages
    // gone already).
    // `pages` and `sparePages` own one retain of each page they hold (see the type's comment).
    #if DEBUG
    private var pages: [Unmanaged<Page>?] = []
    private var sparePages: [Unmanaged<Page>] = []
    private var sparse: [Int64: Entry] = [:]
    private var livePages = 0
    #else
    @exclusivity(unchecked) private var pages: [Unmanaged<Page>?] = []
    @exclusivity(unchecked) private var sparePages: [Unmanaged<Page>] = []
    @exclusivity(unchecked) private var sparse: [Int64: Entry] = [:]
    @exclusivity(unchecked) private var livePages = 0
    #endif

    deinit {
        for case let page? in pages { page.release() }
        for page in sparePages { page.release() }
    }

    @inline(__always) private static func isDense(_ number: Int64) -> Bool {
        number >= 0 && (number >> pageShift) < densePages
    }

    @inline(__always) private static func slot(of number: Int64) -> Int {
        Int(number) & (pageSize - 1)
    }

    /// The page at `pageIndex` of the directory, which keeps it alive. The look-ups of every
    /// fetched, faulted or deallocated object go through it without retaining and releasing
    /// the page.
    @inline(__always) private func page(at pageIndex: Int) -> Unmanaged<Page>? {
        guard pageIndex < pages.count else { return nil }
        return pages[pageIndex]
    }

    /// The object registered under `number`, if any.
    func object(at number: Int64) -> ManagedObject? {
        guard Self.isDense(number) else { return sparse[number]?.takeUnretainedValue() }
        guard let page = page(at: Int(number >> Self.pageShift)) else { return nil }
        return page._withUnsafeGuaranteedRef { $0.entry(at: Self.slot(of: number)) }?.takeUnretainedValue()
    }

    /// Stores `entry` under `number`; returns whether the slot was empty.
    func set(_ entry: Entry, at number: Int64) -> Bool {
        guard Self.isDense(number) else { return sparse.updateValue(entry, forKey: number) == nil }
        let pageIndex = Int(number >> Self.pageShift)
        if pageIndex >= pages.count {
            pages.append(contentsOf: repeatElement(nil, count: pageIndex - pages.count + 1))
        }
        let page: Unmanaged<Page>
        if let existing = self.page(at: pageIndex) {
            page = existing
        } else {
            // The spare's retain, or the new page's own, passes to the directory.
            page = sparePages.popLast() ?? Unmanaged.passRetained(Page.make())
            pages[pageIndex] = page
            livePages += 1
        }
        return page._withUnsafeGuaranteedRef { page in
            let wasEmpty = page.exchange(entry, at: Self.slot(of: number)) == nil
            if wasEmpty { page.used += 1 }
            return wasEmpty
        }
    }

    /// Clears the slot of `number` if it holds `entry`; returns whether it did.
    func remove(at number: Int64, ifItIs entry: Entry) -> Bool {
        guard Self.isDense(number) else {
            guard let current = sparse[number], current.toOpaque() == entry.toOpaque() else { return false }
            sparse[number] = nil
            return true
        }
        let pageIndex = Int(number >> Self.pageShift)
        guard let page = page(at: pageIndex) else { return false }
        let slot = Self.slot(of: number)
        let emptied: Bool? = page._withUnsafeGuaranteedRef { page in
            guard let current = page.entry(at: slot), current.toOpaque() == entry.toOpaque() else { return nil }
            _ = page.exchange(nil, at: slot)
            page.used -= 1
            return page.used == 0
        }
        guard let emptied else { return false }
        if emptied {
            // Every slot is empty.
            pages[pageIndex] = nil
            livePages -= 1
            retire(page, clearing: false)
        }
        return true
    }

    /// Forgets every entry, keeping the directory's storage and up to ``sparePageLimit`` pages.
    func removeAll() {
        sparse.removeAll()
        forEachLivePage { index, page in
            pages[index] = nil
            retire(page, clearing: true)
        }
        livePages = 0
        // The early stop relies on `livePages` counting the directory's pages (debug builds check).
        assert(!pages.contains { $0 != nil }, "PrimaryKeyTable: livePages missed a page of the directory")
    }

    /// Calls `body` with the index and page of each page the directory holds, in key order,
    /// and stops after the last of the `livePages` it counted on entry (`body` may clear the
    /// place it is given).
    @inline(__always) private func forEachLivePage(_ body: (Int, Unmanaged<Page>) -> Void) {
        var pagesLeft = livePages
        var index = 0
        while pagesLeft > 0 && index < pages.count {
            if let page = pages[index] {
                pagesLeft -= 1
                body(index, page)
            }
            index += 1
        }
    }

    /// Takes a page the directory no longer holds: its retain passes to the spares (emptied
    /// first when `clearing`; otherwise every slot must be empty already), or is given back when
    /// they are full.
    @inline(__always) private func retire(_ page: Unmanaged<Page>, clearing: Bool) {
        guard sparePages.count < Self.sparePageLimit else { return page.release() }
        if clearing { page._withUnsafeGuaranteedRef { $0.clear() } }
        sparePages.append(page)
    }

    /// Every entry (pages in key order, then the sparse ones). The directory is walked only as
    /// far as its last live page: a `reset()` after the objects of a fetch went (a loop of
    /// `fetchLimit` pages) finds none and walks nothing, where it walked all 15,625 places of a
    /// million-key directory, a tenth of such a fetch (docs/benchmarks.md).
    var entries: [Entry] {
        var result: [Entry] = []
        forEachLivePage { _, page in
            page._withUnsafeGuaranteedRef { page in
                for slot in 0..<Self.pageSize {
                    if let entry = page.entry(at: slot) { result.append(entry) }
                }
            }
        }
        result.append(contentsOf: sparse.values)
        return result
    }
}
