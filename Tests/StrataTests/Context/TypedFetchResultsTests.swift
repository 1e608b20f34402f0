import Foundation
import Strata
import StrataTestSupport
import Testing

/// The element type of a fetch's results. Core Data returns the objects of the fetched entity
/// and its sub-entities, each an instance of its own entity's class, and a typed request
/// (`NSFetchRequest<Employee>`) only works when every result is of that class. Strata hands the
/// objects array over as `[T]` after checking each distinct class once, so these tests pin down
/// that mixed classes, the base class and mismatches behave as with a cast per object.
@Suite("Typed fetch results")
struct TypedFetchResultsTests {
    /// Ann and Cy (Employee), Bo (Customer); all three are Persons.
    func seeded() throws -> TestStack {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        try context.performAndWait {
            for (name, isEmployee) in [("Ann", true), ("Bo", false), ("Cy", true)] {
                let person: Person = isEmployee ? Employee(context: context) : Customer(context: context)
                person.name = name
            }
            try context.save()
        }
        return stack
    }

    func sortedByName<T>(_ request: FetchRequest<T>) -> FetchRequest<T> {
        request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
        return request
    }

    @Test("a super-entity fetch typed as the common superclass returns every object with its own class")
    func mixedClasses() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let people = try context.fetch(sortedByName(FetchRequest<Person>(entityName: "Person")))
            #expect(people.map(\.name) == ["Ann", "Bo", "Cy"])
            #expect(people.map { String(describing: type(of: $0)) } == ["Employee", "Customer", "Employee"])
            // The array is usable as [Person]: mutation and appending keep its element type.
            var copy = people
            copy.append(people[0])
            copy.removeFirst()
            #expect(copy.map(\.name) == ["Bo", "Cy", "Ann"])
        }
    }

    @Test("results typed as ManagedObject, or as the sub-entity's own class, need no conversion")
    func baseAndExactClass() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let objects = try context.fetch(sortedByName(FetchRequest<ManagedObject>(entityName: "Person")))
            #expect(objects.map { $0.value(forKey: "name") as? String } == ["Ann", "Bo", "Cy"])
            let employees = try context.fetch(sortedByName(FetchRequest<Employee>(entityName: "Employee")))
            #expect(employees.map(\.name) == ["Ann", "Cy"])
            let anyObjects = try context.fetch(sortedByName(FetchRequest<AnyObject>(entityName: "Person")))
            #expect(anyObjects.count == 3 && anyObjects.allSatisfy { $0 is Person })
            // Rows of one class typed as an ancestor of it (one check of the class the fetch noted).
            let employeesAsPeople = try context.fetch(sortedByName(FetchRequest<Person>(entityName: "Employee")))
            #expect(employeesAsPeople.map(\.name) == ["Ann", "Cy"])
        }
    }

    @Test("a request typed as a class some results do not have throws, naming the entity")
    func mismatchThrows() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            // Bo is a Customer: the results of Person are not all Employees.
            let thrown = try #require(throws: StrataError.self) { try context.fetch(FetchRequest<Employee>(entityName: "Person")) }
            #expect(thrown.entityName == "Person" && thrown.message.contains("Customer"))
            // A super-entity fetch whose rows are all of the request's class succeeds.
            let onlyEmployees = sortedByName(FetchRequest<Employee>(entityName: "Person"))
            onlyEmployees.predicate = ObjectPredicate(format: "name != 'Bo'")
            #expect(try context.fetch(onlyEmployees).map(\.name) == ["Ann", "Cy"])
            // An empty result is an empty array of any element type.
            let none = FetchRequest<Employee>(entityName: "Person")
            none.predicate = ObjectPredicate(format: "name == 'nobody'")
            #expect(try context.fetch(none).isEmpty)
        }
    }
}
