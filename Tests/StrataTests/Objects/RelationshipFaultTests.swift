import Foundation
import Strata
import StrataTestSupport
import Testing

/// Relationship faults, asserted on the SQL the store runs.
@Suite("Relationship faults")
struct RelationshipFaultTests {
    /// Department "Sales" with employees e0…e9, and a school with one student in three courses.
    func seeded() throws -> (TestStack, ManagedObjectID, ManagedObjectID) {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        let ids = try context.performAndWait {
            let sales = Department(context: context)
            sales.name = "Sales"
            var first: Employee?
            for index in 0..<10 {
                let employee = Employee(context: context)
                employee.name = "e\(index)"
                employee.department = sales
                if first == nil { first = employee }
            }
            try context.save()
            return (sales.objectID, first?.objectID ?? sales.objectID)
        }
        return (stack, ids.0, ids.1)
    }

    @Test("a to-one gives a fault of the destination without touching the store")
    func toOneFault() throws {
        let (stack, salesID, employeeID) = try seeded()
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let employee = try #require(try context.existingObject(with: employeeID) as? Employee)
            var department: Department?
            let statements = recorder.statements { department = employee.department }
            #expect(statements.isEmpty)
            let fault = try #require(department)
            #expect(fault.objectID == salesID)
            #expect(fault.isFault)
            // Touching a property fires it: one query.
            let firing = recorder.statements { _ = fault.name }
            #expect(firing.count == 1)
            #expect(!fault.isFault)
            #expect(fault.name == "Sales")
        }
    }

    @Test("a to-many loads on first access in one query, then never again")
    func toManyFault() throws {
        let (stack, salesID, _) = try seeded()
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let sales = try #require(try context.existingObject(with: salesID) as? Department)
            var employees: Set<Employee> = []
            let first = recorder.statements { employees = sales.employees }
            #expect(first.count == 1, "\(first)")
            #expect(first.first?.contains("ZDEPARTMENT") == true)
            #expect(employees.count == 10)
            #expect(employees.allSatisfy { $0.isFault })  // the members' values are not loaded
            let again = recorder.statements {
                _ = sales.employees
                _ = sales.mutableSetValue(forKey: "employees").count
                _ = sales.objectIDs(forRelationshipNamed: "employees")
            }
            #expect(again.isEmpty)
        }
    }

    @Test("a proxy's count loads the IDs only; a many-to-many loads in one query")
    func proxyAndJoinTable() throws {
        let stack = try TestStack(model: GraphFixtures.school())
        let context = stack.newContext()
        let studentID = try context.performAndWait {
            let student = Student(context: context)
            for index in 0..<3 {
                let course = Course(context: context)
                course.title = "c\(index)"
                student.$courses.add(course)
            }
            try context.save()
            return student.objectID
        }
        let recorder = stack.recordSQL()
        let reader = stack.newContext()
        reader.performAndWait {
            let student = reader.object(with: studentID)
            let proxy = student.mutableSetValue(forKey: "courses")
            var count = 0
            let counting = recorder.statements { count = proxy.count }
            #expect(count == 3 && counting.count == 1)
            let reading = recorder.statements { _ = proxy.allObjects }
            #expect(reading.isEmpty)
            #expect(proxy.allObjects.allSatisfy { $0.isFault })
        }
    }

    @Test("objects fetched as faults can read a to-many before any attribute", arguments: TestStack.Kind.allCases)
    func toManyOfFetchedFault(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let sales = Department(context: context)
            sales.name = "Sales"
            Employee(context: context).department = sales
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let sales = try #require(try reader.fetch(FetchRequest<Department>(entityName: "Department")).first)
            #expect(sales.isFault)
            #expect(sales.employees.count == 1)
            #expect(sales.name == "Sales")
            #expect(sales.employees.count == 1)  // still loaded after the fault fired
        }
    }
}
