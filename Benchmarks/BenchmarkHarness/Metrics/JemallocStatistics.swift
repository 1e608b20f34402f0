import CJemalloc

/// Process-wide allocation counters read from jemalloc's `mallctl` statistics.
///
/// Counts come from the merged arena statistics (`stats.arenas.4096.*`), so allocations made on
/// any thread are included. jemalloc folds a thread's cache statistics into the arenas only when
/// that cache fills, flushes or the thread exits; the harness flushes the calling thread's cache
/// before each reading, so work done on the measuring thread (and on threads that finished) is exact,
/// while work still sitting in another live thread's cache is counted slightly later.
final class JemallocStatistics {
    /// A reading of the cumulative counters.
    struct Counters: Equatable {
        /// Cumulative number of allocation requests (small + large).
        var mallocCount: UInt64
        /// Cumulative bytes requested, rounded up to jemalloc size classes.
        var bytesAllocated: UInt64
        /// Live heap bytes at the time of the reading (`stats.allocated`), process-wide.
        var liveBytes: UInt64 = 0
    }

    /// Why the statistics cannot be used, when they cannot.
    private(set) var unavailableReason: String?
    /// Whether jemalloc's thread caches are enabled (`opt.tcache`); nil if unknown.
    /// With them on, allocations of other live threads are counted only when their caches flush;
    /// start the process with `MALLOC_CONF=tcache:false` for exact multi-threaded counts.
    private(set) var threadCacheEnabled: Bool?
    /// jemalloc's `opt.lg_extent_max_active_fit` (how large a run of freed pages it splits for a
    /// smaller request: 2^n times it at most); nil if unknown. It decides whether a fetch reuses
    /// the pages the previous one freed (docs/benchmarks.md, "The allocator").
    private(set) var extentFitLog2: Int?
    /// Why the per-thread heap peak (`thread.peak.*`, jemalloc ≥ 5.3) cannot be used, when it cannot.
    private(set) var threadPeakUnavailableReason: String?

    private let epochMIB = ManagementIdentifier()
    private let flushMIB = ManagementIdentifier()
    private let smallRequestsMIB = ManagementIdentifier()
    private let largeRequestsMIB = ManagementIdentifier()
    private let binRequestsMIB = ManagementIdentifier()
    private let lextentRequestsMIB = ManagementIdentifier()
    private let liveBytesMIB = ManagementIdentifier()
    private let peakResetMIB = ManagementIdentifier()
    private let peakReadMIB = ManagementIdentifier()
    private var binSizes: [UInt64] = []
    private var lextentSizes: [UInt64] = []
    /// Scratch space for `mallctlbymib` reads, allocated once so that reading allocates nothing
    /// (which would otherwise be counted in the measurement).
    private let valueBuffer = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
    private let lengthBuffer = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    /// Resolves all `mallctl` names once and checks that jemalloc really serves `malloc`.
    init() {
        do {
            try resolve()
            try checkActive()
        } catch {
            unavailableReason = error.reason
            threadPeakUnavailableReason = error.reason
            return
        }
        do {
            try resolve(peakResetMIB, "thread.peak.reset")
            try resolve(peakReadMIB, "thread.peak.read")
        } catch {
            threadPeakUnavailableReason = error.reason
        }
    }

    deinit {
        valueBuffer.deallocate()
        lengthBuffer.deallocate()
    }

    /// Whether readings can be taken.
    var isAvailable: Bool { unavailableReason == nil }

    /// Whether the calling thread's heap peak can be reset and read.
    var isThreadPeakAvailable: Bool { threadPeakUnavailableReason == nil }

    /// Makes the calling thread's current live heap (bytes it allocated minus bytes it freed) the
    /// zero of ``readThreadPeak()``.
    func resetThreadPeak() {
        guard isThreadPeakAvailable else { return }
        _ = mallctlbymib(peakResetMIB.components, peakResetMIB.count, nil, nil, nil, 0)
    }

    /// The highest live heap of the calling thread since ``resetThreadPeak()``, in bytes above its
    /// level at the reset (jemalloc updates it every 64 KiB of allocation and on this read).
    func readThreadPeak() -> UInt64? {
        guard isThreadPeakAvailable else { return nil }
        return readUInt64(peakReadMIB)
    }

    /// Flushes the calling thread's cache, refreshes jemalloc's statistics and reads the counters.
    func read() -> Counters? {
        guard isAvailable else { return nil }
        _ = mallctlbymib(flushMIB.components, flushMIB.count, nil, nil, nil, 0)
        guard refreshEpoch() else { return nil }
        guard let small = readUInt64(smallRequestsMIB), let large = readUInt64(largeRequestsMIB) else { return nil }
        var bytes: UInt64 = 0
        for index in binSizes.indices {
            binRequestsMIB.components[4] = index
            guard let requests = readUInt64(binRequestsMIB) else { return nil }
            bytes &+= requests &* binSizes[index]
        }
        for index in lextentSizes.indices {
            lextentRequestsMIB.components[4] = index
            guard let requests = readUInt64(lextentRequestsMIB) else { return nil }
            bytes &+= requests &* lextentSizes[index]
        }
        guard let live = readUInt64(liveBytesMIB) else { return nil }
        return Counters(mallocCount: small &+ large, bytesAllocated: bytes, liveBytes: live)
    }

    // MARK: - Setup

    private struct SetupError: Error {
        let reason: String
    }

    private func resolve() throws(SetupError) {
        try resolve(epochMIB, "epoch")
        try resolve(flushMIB, "thread.tcache.flush")
        try resolve(smallRequestsMIB, "stats.arenas.4096.small.nrequests")
        try resolve(largeRequestsMIB, "stats.arenas.4096.large.nrequests")
        try resolve(binRequestsMIB, "stats.arenas.4096.bins.0.nrequests")
        try resolve(lextentRequestsMIB, "stats.arenas.4096.lextents.0.nrequests")
        try resolve(liveBytesMIB, "stats.allocated")
        guard binRequestsMIB.count > 4, lextentRequestsMIB.count > 4 else {
            throw SetupError(reason: "unexpected jemalloc statistics layout")
        }
        let binCount = try readUInt32(name: "arenas.nbins")
        let lextentCount = try readUInt32(name: "arenas.nlextents")
        binSizes = try sizes(pattern: "arenas.bin.0.size", count: Int(binCount))
        lextentSizes = try sizes(pattern: "arenas.lextent.0.size", count: Int(lextentCount))
        guard refreshEpoch() else { throw SetupError(reason: "mallctl(\"epoch\") failed") }
        var enabled = false
        var length = MemoryLayout<Bool>.size
        threadCacheEnabled = mallctl("opt.tcache", &enabled, &length, nil, 0) == 0 ? enabled : nil
        var fit = 0
        length = MemoryLayout<Int>.size
        extentFitLog2 = mallctl("opt.lg_extent_max_active_fit", &fit, &length, nil, 0) == 0 ? fit : nil
    }

    /// Reads `arenas.<kind>.<j>.size` for j in 0..<count.
    private func sizes(pattern: String, count: Int) throws(SetupError) -> [UInt64] {
        let sizeMIB = ManagementIdentifier()
        try resolve(sizeMIB, pattern)
        var result: [UInt64] = []
        for index in 0..<count {
            sizeMIB.components[2] = index
            var value = 0
            var length = MemoryLayout<Int>.size
            let status = mallctlbymib(sizeMIB.components, sizeMIB.count, &value, &length, nil, 0)
            guard status == 0 else { throw SetupError(reason: "mallctl size lookup failed (error \(status))") }
            result.append(UInt64(value))
        }
        return result
    }

    /// Verifies that `malloc` is served by jemalloc (linking it does not guarantee interposition).
    private func checkActive() throws(SetupError) {
        let probeSize = 4_096
        guard let before = readThreadAllocated() else {
            throw SetupError(reason: "mallctl(\"thread.allocated\") failed; jemalloc statistics disabled")
        }
        guard let pointer = malloc(probeSize) else { throw SetupError(reason: "malloc failed") }
        let usable = malloc_usable_size(pointer)
        free(pointer)
        guard let after = readThreadAllocated(), after &- before >= UInt64(min(usable, probeSize)) else {
            throw SetupError(reason: "jemalloc is linked but is not the active allocator")
        }
    }

    // MARK: - mallctl helpers

    /// Translates `name` into `identifier`'s components.
    private func resolve(_ identifier: ManagementIdentifier, _ name: String) throws(SetupError) {
        var length = ManagementIdentifier.capacity
        let status = mallctlnametomib(name, identifier.components, &length)
        guard status == 0 else {
            throw SetupError(reason: "mallctl name \"\(name)\" unavailable (error \(status)); jemalloc not active or built without statistics")
        }
        identifier.count = length
    }

    private func refreshEpoch() -> Bool {
        var newEpoch: UInt64 = 1
        var currentEpoch: UInt64 = 0
        var length = MemoryLayout<UInt64>.size
        return mallctlbymib(epochMIB.components, epochMIB.count, &currentEpoch, &length, &newEpoch, MemoryLayout<UInt64>.size) == 0
    }

    /// Reads a 64-bit statistic through preallocated buffers (no Swift allocation).
    private func readUInt64(_ identifier: ManagementIdentifier) -> UInt64? {
        valueBuffer.pointee = 0
        lengthBuffer.pointee = MemoryLayout<UInt64>.size
        let status = mallctlbymib(identifier.components, identifier.count, valueBuffer, lengthBuffer, nil, 0)
        return status == 0 ? valueBuffer.pointee : nil
    }

    private func readUInt32(name: String) throws(SetupError) -> UInt32 {
        var value: UInt32 = 0
        var length = MemoryLayout<UInt32>.size
        let status = mallctl(name, &value, &length, nil, 0)
        guard status == 0 else { throw SetupError(reason: "mallctl(\"\(name)\") failed (error \(status))") }
        return value
    }

    private func readThreadAllocated() -> UInt64? {
        var value: UInt64 = 0
        var length = MemoryLayout<UInt64>.size
        return mallctl("thread.allocated", &value, &length, nil, 0) == 0 ? value : nil
    }
}

/// A `mallctl` management information base (a pre-parsed name), stored outside Swift arrays so that
/// changing a component and reading allocates nothing.
private final class ManagementIdentifier {
    /// Maximum number of components.
    static let capacity = 8
    /// The components (owned).
    let components: UnsafeMutablePointer<Int>
    /// Number of valid components.
    var count = 0

    init() {
        components = UnsafeMutablePointer<Int>.allocate(capacity: Self.capacity)
        components.initialize(repeating: 0, count: Self.capacity)
    }

    deinit {
        components.deallocate()
    }
}
