import Foundation
import Strata
import StrataTestSupport
import Testing

/// Objects known lower in a tree by their temporary IDs fire from wherever the object now lives:
/// a middle context that saved it up (and released its own copy) forwards the request to its
/// parent instead of reporting the row as missing.
@Suite("Faulting by temporary ID through a context tree")
struct TemporaryIDFaultingTests {
    @Test("a grandchild fires a temporary-ID fault after the middle context saved and released the object, before and after the root save")
    func throughReleasedMiddle() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let entity = try #require(stack.model.entitiesByName["Person"])
        let root = stack.newContext(name: "root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = root
        func grandchild() -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.parent = child
            return context
        }
        let writer = grandchild()
        let temporary: ManagedObjectID = try writer.performAndWait {
            let ann = ManagedObject(entity: entity, insertInto: writer)
            ann.setValue("Ann", forKey: "name")
            try writer.save()
            return ann.objectID
        }
        // The child pushes Ann into the root; its own (now unchanged) copy is released.
        try child.performAndWait { try child.save() }
        let before = grandchild()
        try before.performAndWait {
            let ann = before.object(with: temporary)
            try ann.fulfillFault()
            #expect(ann.value(forKey: "name") as? String == "Ann")
        }
        // The root writes it: the temporary ID now stands for a permanent one.
        try root.performAndWait { try root.save() }
        let after = grandchild()
        try after.performAndWait {
            let ann = after.object(with: temporary)
            try ann.fulfillFault()
            #expect(ann.value(forKey: "name") as? String == "Ann")
            #expect(!ann.objectID.isTemporaryID)
        }
    }
}
