import CStrataMemory

/// Cache-line prefetching for loops over many objects that were allocated long before the loop
/// and no longer sit in the processor's caches: a fetch's million decoded rows, a save's
/// changed objects. Each step of such a loop first touches an object (its reference count, a
/// field), and that touch waited for memory: a tenth of fetching a million rows. Asking for the
/// object some places ahead lets the load overlap with the work on the objects before it.
enum Prefetch {
    /// How many places ahead of the element a loop works on it asks for.
    static let distance = 8

    /// Asks the processor to start loading the first cache line of the object whose reference
    /// sits at `index` of `references` (a class reference or an optional one: one pointer).
    /// Does nothing past the end; a nil reference asks for address 0, which a prefetch ignores
    /// (it never faults). Reads the reference's bits in place, without retaining the object.
    /// Any thread (a hint: it changes no memory).
    @inline(__always)
    static func object<Reference>(in references: UnsafeBufferPointer<Reference>, at index: Int) {
        strata_prefetch_for_read(referenceBits(in: references, at: index))
    }

    /// The bits of the reference at `index` of `references` (a class reference or an optional
    /// one: one pointer), read in place without retaining the object; nil past the end or for a
    /// nil reference.
    @inline(__always)
    private static func referenceBits<Reference>(in references: UnsafeBufferPointer<Reference>, at index: Int) -> UnsafeRawPointer? {
        assert(MemoryLayout<Reference>.size == MemoryLayout<UnsafeRawPointer>.size, "Prefetch needs class references")
        guard index < references.count, let base = references.baseAddress else { return nil }
        return UnsafeRawPointer(base).load(fromByteOffset: index &* MemoryLayout<Reference>.stride, as: UnsafeRawPointer?.self)
    }

    /// Asks the processor to start loading the cache line at `address`. A hint that never
    /// faults; nil asks for address 0, which a prefetch ignores. Any thread.
    @inline(__always)
    static func address(_ address: UnsafeRawPointer?) {
        strata_prefetch_for_read(address)
    }

    /// The object whose reference sits at `index` of `references`, unretained, or nil past the
    /// end or for a nil reference: a loop reads fields of an object it asked for earlier to ask
    /// for what they point to. Valid while `references` holds the object. Any thread.
    @inline(__always)
    static func unretainedObject<Object: AnyObject>(in references: UnsafeBufferPointer<Object?>, at index: Int) -> Unmanaged<Object>? {
        referenceBits(in: references, at: index).map(Unmanaged<Object>.fromOpaque)
    }

    /// ``object(in:at:)`` for an array's element at `index`.
    @inline(__always)
    static func object<Reference>(in references: [Reference], at index: Int) {
        references.withUnsafeBufferPointer { object(in: $0, at: index) }
    }
}

extension Prefetch {
    /// Calls `body` with each object of `objects` in order, asking for each one ``distance``
    /// places ahead. Any thread (the objects' own rules apply to `body`).
    @inline(__always)
    static func forEach<Object: AnyObject>(_ objects: [Object], _ body: (Object) throws -> Void) rethrows {
        try objects.withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                object(in: buffer, at: index &+ distance)
                try body(buffer[index])
            }
        }
    }
}
