import Foundation
import Strata
import StrataTestSupport
import Testing

/// Fetched properties: a fetch request whose predicate uses $FETCH_SOURCE, evaluated lazily,
/// not kept in sync until the object is refreshed.
@Suite("Fetched properties")
struct FetchedPropertyTests {
    /// Sales: Ann (150), Bo (90), Cy (100); Ops: Dee (200).
    func seeded(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let sales = Department(context: context)
            sales.name = "Sales"
            let ops = Department(context: context)
            ops.name = "Ops"
            for (name, salary, department) in [("Ann", 150, sales), ("Bo", 90, sales), ("Cy", 100, sales), ("Dee", 200, ops)] {
                let employee = Employee(context: context)
                employee.name = name
                employee.salary = Int64(salary)
                employee.department = department
            }
            try context.save()
        }
        return stack
    }

    func names(_ value: Any?) -> [String] {
        (value as? [ManagedObject] ?? []).map { $0.value(forKey: "name") as? String ?? "?" }
    }

    func employee(_ name: String, in context: ManagedObjectContext) throws -> Employee {
        let request = FetchRequest<Employee>(entityName: "Employee")
        request.predicate = ObjectPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    @Test("$FETCH_SOURCE and key paths from it ($FETCH_SOURCE.department)", arguments: TestStack.Kind.allCases)
    func fetchSource(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        try stack.reopen()
        let context = stack.newContext()
        try context.performAndWait {
            let bo = try employee("Bo", in: context)
            #expect(names(bo.value(forKey: "colleagues")) == ["Ann", "Cy"])
            let sales = try #require(bo.department)
            #expect(names(sales.value(forKey: "wellPaid")) == ["Ann", "Cy"])
            let dee = try employee("Dee", in: context)
            #expect(names(dee.value(forKey: "colleagues")).isEmpty)
            // A source without a department: the key path's nil value compares as nil.
            let eve = Employee(context: context)
            eve.name = "Eve"
            let loners = names(eve.value(forKey: "colleagues"))
            #expect(loners.isEmpty)
        }
    }

    @Test("evaluated lazily and kept until the object is refreshed, as in Core Data")
    func lazyAndStale() throws {
        let stack = try seeded(.sqlite)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<Department>(entityName: "Department")
            request.predicate = ObjectPredicate(format: "name == 'Sales'")
            request.returnsObjectsAsFaults = false
            let sales = try #require(try context.fetch(request).first)
            // Nothing runs until the property is read; then one fetch.
            var first: Any?
            let evaluating = recorder.statements { first = sales.value(forKey: "wellPaid") }
            #expect(evaluating.count == 1)
            #expect(names(first) == ["Ann", "Cy"])
            // A change is not reflected: the result is kept, with no new query.
            let bo = try employee("Bo", in: context)
            bo.salary = 500
            var second: Any?
            let cached = recorder.statements { second = sales.value(forKey: "wellPaid") }
            #expect(cached.isEmpty)
            #expect(names(second) == ["Ann", "Cy"])
            try context.save()
            #expect(names(sales.value(forKey: "wellPaid")) == ["Ann", "Cy"])
            // Refreshing the object evaluates it again.
            context.refresh(sales, mergeChanges: false)
            #expect(names(sales.value(forKey: "wellPaid")) == ["Ann", "Bo", "Cy"])
        }
    }

    @Test("a fetched property is read-only")
    func readOnly() throws {
        let stack = try seeded(.inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            let bo = try employee("Bo", in: context)
            bo.setValue([], forKey: "colleagues")
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.key == "colleagues" && error.message.contains("read-only"))
        }
    }
}
