import Foundation
import Strata
import StrataSQLite
import StrataTestSupport
import Testing

/// A typed fetch (`FetchRequest<T>`) hands its objects back as `[T]`. Core Data's
/// `fetch(_:)` returns `[ResultType]` and fails when a result is not of that type; Strata checks
/// the classes it noted while registering the fetched rows, once per class, and otherwise each
/// object.
@Suite("Typed fetch results")
struct TypedFetchResultTests {
    /// Ann and Cy (Employee) and Bo (Customer), saved and read back by a new context, so that
    /// the fetches below register store rows.
    func reopened() throws -> TestStack {
        let stack = try TestStack(model: GraphFixtures.company(), kind: .sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            for (name, isEmployee) in [("Ann", true), ("Bo", false), ("Cy", true)] {
                let person: Person = isEmployee ? Employee(context: context) : Customer(context: context)
                person.name = name
            }
            try context.save()
        }
        try stack.reopen()
        return stack
    }

    @Test("rows of one class come back typed as that class or an ancestor of it")
    func oneClass() throws {
        let stack = try reopened()
        let context = stack.newContext()
        try context.performAndWait {
            let employees = FetchRequest<Employee>(entityName: "Employee")
            employees.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let fetched = try context.fetch(employees)
            #expect(fetched.map(\.name) == ["Ann", "Cy"])

            let asPeople = FetchRequest<Person>(entityName: "Employee")
            asPeople.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            #expect(try context.fetch(asPeople).map(\.name) == ["Ann", "Cy"])

            let none = FetchRequest<Employee>(entityName: "Employee")
            none.predicate = ObjectPredicate(format: "name == 'Nobody'")
            #expect(try context.fetch(none).isEmpty)
        }
    }

    @Test("rows of several classes come back typed as their common ancestor, each as its own class")
    func severalClasses() throws {
        let stack = try reopened()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<Person>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let people = try context.fetch(request)
            #expect(people.map { String(describing: type(of: $0)) } == ["Employee", "Customer", "Employee"])
        }
    }

    @Test("a fetch whose rows are not all of the request's class throws, naming the class found")
    func wrongClass() throws {
        let stack = try reopened()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<Employee>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let error = try #require(throws: StrataError.self) { try context.fetch(request) }
            #expect(error.message.contains("Customer"))

            // Only the employees: every row is an Employee, so the typed fetch succeeds.
            request.predicate = ObjectPredicate(format: "name != 'Bo'")
            #expect(try context.fetch(request).map(\.name) == ["Ann", "Cy"])
        }
    }
}
