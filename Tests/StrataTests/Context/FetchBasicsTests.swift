import Foundation
import Strata
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Fetching (basic)")
struct FetchBasicsTests {
    func people(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let names = ["Ann", "bo", "Cy", "Dee", "émile", "Fay", "gus", "Hal"]
            for (index, name) in names.enumerated() {
                let person = ManagedObject(entity: try #require(stack.model.entitiesByName["Person"]), insertInto: context)
                person.setValue(name, forKey: "name")
                person.setValue(20 + index * 5, forKey: "age")
                person.setValue(index % 3 == 0 ? nil : Double(index) * 1.5, forKey: "score")
            }
            try context.save()
        }
        return stack
    }

    func names(_ context: ManagedObjectContext, _ configure: (FetchRequest<ManagedObject>) -> Void) throws -> [String] {
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        configure(request)
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
    }

    @Test("predicates, sorting, limit and offset", arguments: TestStack.Kind.allCases)
    func basics(kind: TestStack.Kind) throws {
        let stack = try people(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            #expect(try names(context) { $0.predicate = ObjectPredicate(format: "age > %@", 40) } == ["Fay", "gus", "Hal"])
            #expect(try names(context) { $0.predicate = ObjectPredicate(format: "age >= 30 AND age <= 40") } == ["Cy", "Dee", "émile"])
            #expect(try names(context) { $0.predicate = ObjectPredicate(format: "age < 25 OR NOT (age < 50)") } == ["Ann", "gus", "Hal"])
            #expect(try names(context) { $0.predicate = ObjectPredicate(format: "score == nil") } == ["Ann", "Dee", "gus"])
            #expect(try names(context) { $0.predicate = ObjectPredicate(format: "NOT (score > 5)") } == ["Ann", "bo", "Cy", "Dee", "gus"])
            #expect(try names(context) { $0.predicate = ObjectPredicate(format: "name BEGINSWITH[cd] %@", "E") } == ["émile"])
            #expect(
                try names(context) {
                    $0.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: false, comparator: .caseInsensitive)]
                } == ["émile", "Hal", "gus", "Fay", "Dee", "Cy", "bo", "Ann"])
            #expect(
                try names(context) {
                    $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
                    $0.fetchLimit = 3
                    $0.fetchOffset = 2
                } == ["Fay", "émile", "Dee"])
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "age > 30")
            #expect(try context.count(for: request) == 5)
            request.fetchLimit = 2
            #expect(try context.count(for: request) == 2)
            let ids = FetchRequest<ManagedObjectID>(entityName: "Person")
            ids.resultType = .managedObjectIDResultType
            #expect(try context.fetch(ids).count == 8)
            let count = FetchRequest<NSNumber>(entityName: "Person")
            count.resultType = .countResultType
            #expect(try context.fetch(count).first?.intValue == 8)
        }
    }

    @Test("a table of one entity: each of its rows is that entity's whatever its Z_ENT holds, in fetches as in counts")
    func tableOfOneEntity() throws {
        // Core Data's SQLite store selects a constant in place of Z_ENT for an entity without
        // sub-entities (`SELECT 0, t0.Z_PK, t0.Z_OPT, …` in its SQL debug log): the rows of the
        // entity's table are its rows. Counts never filtered on the column there either, so a
        // fetch of rows, a fetch of IDs and a count agree.
        let stack = try people(.sqlite)
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        try connection.execute("UPDATE ZPERSON SET Z_ENT = 999 WHERE ZNAME = 'Cy'")
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            #expect(try context.count(for: request) == 8)
            let people = try context.fetch(request)
            #expect(people.count == 8)
            let cy = try #require(people.first { $0.value(forKey: "name") as? String == "Cy" })
            #expect(cy.entity.name == "Person")
            #expect(cy.value(forKey: "age") as? Int64 == 30)
            let ids = FetchRequest<ManagedObjectID>(entityName: "Person")
            ids.resultType = .managedObjectIDResultType
            #expect(try context.fetch(ids).contains(cy.objectID))
        }
        // Rows read by key (a batched fetch loads each batch of faults by its keys) are the
        // entity's too: the store does not read their Z_ENT either.
        let batchedContext = stack.newContext()
        try batchedContext.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 3
            let people = try batchedContext.fetch(request)
            let ages = people.compactMap { $0.value(forKey: "name") as? String == "Cy" ? $0.value(forKey: "age") as? Int64 : nil }
            #expect(ages == [30])
            #expect(people.allSatisfy { $0.entity.name == "Person" && !$0.isFault })
        }
    }

    @Test("unsaved changes are part of results, counts and sorts", arguments: TestStack.Kind.allCases)
    func pendingChanges(kind: TestStack.Kind) throws {
        let stack = try people(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(stack.model.entitiesByName["Person"])
            let newcomer = ManagedObject(entity: entity, insertInto: context)
            newcomer.setValue("Zed", forKey: "name")
            newcomer.setValue(99, forKey: "age")
            let ann = try #require(
                try context.fetch(
                    { () -> FetchRequest<ManagedObject> in
                        let r = FetchRequest<ManagedObject>(entityName: "Person")
                        r.predicate = ObjectPredicate(format: "name == 'Ann'")
                        return r
                    }()
                ).first)
            ann.setValue(98, forKey: "age")
            let hal = try #require(try names(context) { $0.predicate = ObjectPredicate(format: "name == 'Hal'") }.first)
            #expect(hal == "Hal")
            let halObject = try #require(
                try context.fetch(
                    { () -> FetchRequest<ManagedObject> in
                        let r = FetchRequest<ManagedObject>(entityName: "Person")
                        r.predicate = ObjectPredicate(format: "name == 'Hal'")
                        return r
                    }()
                ).first)
            context.delete(halObject)
            #expect(
                try names(context) {
                    $0.predicate = ObjectPredicate(format: "age > 40")
                    $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
                } == ["Zed", "Ann", "gus", "Fay"])
            #expect(
                try names(context) {
                    $0.predicate = ObjectPredicate(format: "age > 40")
                    $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
                    $0.fetchLimit = 2
                    $0.fetchOffset = 1
                } == ["Ann", "gus"])
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "age > 40")
            #expect(try context.count(for: request) == 4)
            request.includesPendingChanges = false
            #expect(try context.count(for: request) == 3)
        }
    }

    @Test("a malformed predicate, an unknown key and a type mismatch throw at fetch")
    func predicateErrors() throws {
        let stack = try people(.sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            let malformed = try #require(throws: StrataError.self) {
                try names(context) { $0.predicate = ObjectPredicate(format: "age > > 3") }
            }
            #expect(malformed.offset == 6)
            #expect(malformed.sourceExcerpt?.contains("^") == true)
            let unknown = try #require(throws: StrataError.self) {
                try names(context) { $0.predicate = ObjectPredicate(format: "height > 3") }
            }
            #expect(unknown.entityName == "Person")
            #expect(unknown.key == "height")
            let mismatch = try #require(throws: StrataError.self) {
                try names(context) { $0.predicate = ObjectPredicate(format: "name > 3") }
            }
            #expect(mismatch.key == "name")
            #expect(mismatch.message.contains("string"))
        }
    }
}
