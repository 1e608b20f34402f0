import Foundation
import Strata
import Testing

/// Core Data makes one managed object per fetched row (a fault until its values are read), so
/// the size of that object is paid once per row by every fetch. Strata keeps what most objects
/// never use out of the object (`Objects/ObjectSideRecord.swift`, `Objects/ToManyLists.swift`)
/// so that it stays small; these tests fail when a stored property added to `ManagedObject`
/// pushes it, and the subclasses apps write, into a larger size class of the allocator.
///
/// The size is the one the Swift runtime allocates: the instance size in the class's metadata
/// (on Linux, without Objective-C interoperability, a 32-bit field 24 bytes into the metadata).
@Suite("The size of a managed object")
struct ObjectSizeTests {
    /// A subclass like the benchmarks' `Item`: five typed attributes.
    final class FiveAttributes: ManagedObject {
        @Attribute("name") var name: String
        @Attribute("number") var number: Int64
        @Attribute("score") var score: Double
        @Attribute("flag") var flag: Bool
        @Attribute("created") var created: Date
    }

    #if !canImport(ObjectiveC)
    /// The bytes the runtime allocates for an instance of `type` (header included).
    static func instanceSize(of type: AnyClass) -> Int {
        Int(unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 24, as: UInt32.self))
    }

    @Test("ManagedObject is 112 bytes, header included")
    func baseSize() {
        #expect(Self.instanceSize(of: ManagedObject.self) == 112)
    }

    @Test("an object with five @Attribute properties fits the allocator's 192-byte class")
    func subclassSize() {
        // Each `@Attribute` keeps its key (a 16-byte string).
        #expect(Self.instanceSize(of: FiveAttributes.self) == 112 + 5 * 16)
    }
    #endif
}
