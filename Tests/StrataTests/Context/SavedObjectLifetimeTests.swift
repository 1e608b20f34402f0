import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data: a context holds its changed objects strongly and its unchanged ones weakly
/// (`retainsRegisteredObjects` is false by default), so once a save makes objects unchanged
/// they live only as long as the app holds them.
@Suite("Saved objects' lifetime")
struct SavedObjectLifetimeTests {
    @Test("objects a save made unchanged are released when the app lets go of them", arguments: TestStack.Kind.allCases)
    func savedObjectsReleased(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.ownersAndPets(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            weak var inserted: ManagedObject?
            weak var updated: ManagedObject?
            do {
                let owner = ManagedObject(entity: stack.model.entitiesByName["Owner"]!, insertInto: context)
                owner.setValue("first", forKey: "name")
                try context.save()
                owner.setValue("second", forKey: "name")
                let other = ManagedObject(entity: stack.model.entitiesByName["Owner"]!, insertInto: context)
                other.setValue("other", forKey: "name")
                inserted = other
                updated = owner
                try context.save()
                #expect(!context.hasChanges)
            }
            #expect(inserted == nil)
            #expect(updated == nil)
            #expect(context.registeredObjects.isEmpty)
        }
    }
}
