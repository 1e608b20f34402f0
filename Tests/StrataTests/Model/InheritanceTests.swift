import Foundation
import Strata
import StrataSQLite
import StrataTestSupport
import Testing

/// Entity inheritance: abstract entities, inherited properties, one table per root, fetches of
/// a super-entity, relationships whose destination is a super-entity.
@Suite("Entity inheritance")
struct InheritanceTests {
    /// Ann (Employee, salary 120), Bo (Customer, tier 2), Cy (Employee, salary 80); Bo and Cy
    /// report to Ann.
    func seeded(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = Employee(context: context)
            ann.name = "Ann"
            ann.salary = 120
            let bo = Customer(context: context)
            bo.name = "Bo"
            bo.tier = 2
            let cy = Employee(context: context)
            cy.name = "Cy"
            cy.salary = 80
            ann.reports = [bo, cy]
            try context.save()
        }
        return stack
    }

    @Test("inserting an abstract entity is an error")
    func abstractInsert() throws {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        try context.performAndWait {
            let person = try #require(stack.model.entitiesByName["Person"])
            #expect(person.isAbstract)
            let thrown = try #require(throws: StrataError.self) { try context.insertNewObject(of: person) }
            #expect(thrown.entityName == "Person" && thrown.message.contains("abstract"))
            #expect(throws: StrataError.self) { try EntityDescription.insertNewObject(forEntityName: "Person", into: context) }
            // APIs that cannot throw record it for the next save.
            _ = Person(context: context)
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.entityName == "Person" && error.message.contains("abstract"))
            context.rollback()
            _ = Employee(context: context)
            try context.save()
        }
    }

    @Test("sub-entities inherit their ancestors' properties")
    func inheritedProperties() throws {
        let model = GraphFixtures.company()
        let stack = try TestStack(model: model)
        let employee = try #require(model.entitiesByName["Employee"])
        let person = try #require(model.entitiesByName["Person"])
        #expect(employee.superentity === person)
        #expect(person.subentities.map(\.name).sorted() == ["Customer", "Employee"])
        #expect(employee.isKindOf(entity: person))
        #expect(Set(employee.propertiesByName.keys) == ["name", "friends", "manager", "reports", "salary", "department", "colleagues"])
        #expect(employee.relationshipsByName["manager"]?.destinationEntity === person)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = Employee(context: context)
            ann.setValue("Ann", forKey: "name")  // inherited, through KVC
            ann.salary = 10
            try context.save()
            context.reset()
            let again = try #require(try context.fetch(FetchRequest<Employee>(entityName: "Employee")).first)
            #expect(again.name == "Ann" && again.salary == 10)
        }
    }

    @Test("a fetch of the super-entity returns each object as its own sub-entity class", arguments: TestStack.Kind.allCases)
    func superEntityFetch(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        try stack.reopen()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<Person>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let people = try context.fetch(request)
            #expect(people.map(\.name) == ["Ann", "Bo", "Cy"])
            #expect(people.map { String(describing: type(of: $0)) } == ["Employee", "Customer", "Employee"])
            #expect(people.map(\.entity.name) == ["Employee", "Customer", "Employee"])
            #expect((people[1] as? Customer)?.tier == 2)

            // Predicates on inherited and own properties; a sub-entity fetch sees only its kind.
            let rich = FetchRequest<Employee>(entityName: "Employee")
            rich.predicate = ObjectPredicate(format: "salary > 100 AND name BEGINSWITH 'A'")
            #expect(try context.fetch(rich).map(\.name) == ["Ann"])
            #expect(try context.count(for: FetchRequest<Customer>(entityName: "Customer")) == 1)

            // includesSubentities = false: the abstract entity has no instances of its own.
            let own = FetchRequest<Person>(entityName: "Person")
            own.includesSubentities = false
            #expect(try context.fetch(own).isEmpty)
        }
    }

    @Test("unsaved objects of sub-entities are part of a super-entity fetch", arguments: TestStack.Kind.allCases)
    func pendingSubentities(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let dee = Customer(context: context)
            dee.name = "Dee"
            let request = FetchRequest<Person>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "name IN %@", ["Bo", "Dee"])
            let found = try context.fetch(request)
            #expect(Set(found.map(\.name)) == ["Bo", "Dee"])
            #expect(found.allSatisfy { $0 is Customer })
        }
    }

    @Test("a relationship to the super-entity gives faults of the right class without I/O")
    func relationshipToSuperEntity() throws {
        let stack = try seeded(.sqlite)
        try stack.reopen()
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<Employee>(entityName: "Employee")
            request.predicate = ObjectPredicate(format: "name == 'Ann'")
            request.returnsObjectsAsFaults = false
            let ann = try #require(try context.fetch(request).first)
            var reports: Set<Person> = []
            let loading = recorder.statements { reports = ann.reports }
            #expect(loading.count == 1)
            #expect(Set(reports.map { String(describing: type(of: $0)) }) == ["Customer", "Employee"])
            #expect(reports.allSatisfy { $0.isFault })
            let bo = try #require(reports.first { $0 is Customer })
            _ = bo.name
            var manager: Person?
            let none = recorder.statements { manager = bo.manager }
            #expect(none.isEmpty)
            #expect(manager === ann)
        }
    }

    @Test("one table per inheritance root, with an entity code column")
    func tableLayout() throws {
        let stack = try seeded(.sqlite)
        try stack.reopen()
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        var tables: [String] = []
        try connection.makeStatement("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").forEachRow { tables.append($0.text(at: 0) ?? "") }
        #expect(tables.contains("ZPERSON"))
        #expect(!tables.contains("ZEMPLOYEE") && !tables.contains("ZCUSTOMER"))
        var codes: [String: Int64] = [:]
        try connection.makeStatement("SELECT ZNAME, Z_ENT FROM ZPERSON").forEachRow { codes[$0.text(at: 0) ?? ""] = $0.int64(at: 1) }
        #expect(codes.count == 3)
        #expect(codes["Ann"] == codes["Cy"])
        #expect(codes["Ann"] != codes["Bo"])
        // The manager foreign key records the destination's entity code too.
        var managerCodes: [Int64] = []
        try connection.makeStatement("SELECT ZMANAGER_ENT FROM ZPERSON WHERE ZMANAGER IS NOT NULL").forEachRow { managerCodes.append($0.int64(at: 0)) }
        #expect(managerCodes == [codes["Ann"] ?? -1, codes["Ann"] ?? -1])
    }
}
