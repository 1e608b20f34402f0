import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Query generations")
struct QueryGenerationTests {
    @Test("a pinned context reads a consistent state while others save, and moves forward on request", arguments: TestStack.Kind.allCases)
    func pinning(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let entity = try #require(stack.model.entitiesByName["Person"])
        let writer = stack.newContext()
        func insert(_ count: Int) throws {
            try writer.performAndWait {
                for index in 0..<count {
                    let person = ManagedObject(entity: entity, insertInto: writer)
                    person.setValue("p\(index)", forKey: "name")
                }
                try writer.save()
            }
        }
        try insert(3)
        let reader = stack.newContext()
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(reader.queryGenerationToken != nil)
            #expect(try reader.count(for: request) == 3)
        }
        try insert(2)
        try reader.performAndWait {
            #expect(try reader.count(for: request) == 3)  // still the pinned state
            #expect(try reader.fetch(request).count == 3)
            try reader.setQueryGenerationFrom(.current)  // move forward
            #expect(try reader.count(for: request) == 5)
            try reader.setQueryGenerationFrom(nil)
            #expect(reader.queryGenerationToken == nil)
        }
        try insert(1)
        try reader.performAndWait { () throws -> Void in #expect(try reader.count(for: request) == 6) }
    }
}
