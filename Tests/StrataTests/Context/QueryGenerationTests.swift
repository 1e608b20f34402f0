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

    /// A company store with department "Sales" (Ann, salary 100; Bo, 50), a reader pinned to
    /// that state, and then a save that renames Sales and Ann, raises Ann to 200 and adds Cy
    /// (10) to Sales. The writer keeps its objects, so the row cache holds the new rows.
    struct PinnedCompany {
        let stack: TestStack
        let writer: ManagedObjectContext
        let reader: ManagedObjectContext
        let salesID: ManagedObjectID
        let annID: ManagedObjectID

        init(kind: TestStack.Kind) throws {
            let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
            let writer = stack.newContext()
            writer.retainsRegisteredObjects = true
            let ids = try writer.performAndWait {
                let sales = Department(context: writer)
                sales.name = "Sales"
                for (name, salary) in [("Ann", Int64(100)), ("Bo", 50)] {
                    let employee = Employee(context: writer)
                    employee.name = name
                    employee.salary = salary
                    employee.department = sales
                }
                try writer.save()
                let ann = try #require(sales.employees.first { $0.name == "Ann" })
                return (sales: sales.objectID, ann: ann.objectID)
            }
            let reader = stack.newContext()
            try reader.performAndWait { try reader.setQueryGenerationFrom(.current) }
            try writer.performAndWait {
                let sales = try #require(try writer.existingObject(with: ids.sales) as? Department)
                let ann = try #require(try writer.existingObject(with: ids.ann) as? Employee)
                sales.name = "Sales & Marketing"
                ann.name = "Ann B."
                ann.salary = 200
                let cy = Employee(context: writer)
                cy.name = "Cy"
                cy.salary = 10
                cy.department = sales
                try writer.save()
            }
            self.stack = stack
            self.writer = writer
            self.reader = reader
            self.salesID = ids.sales
            self.annID = ids.ann
        }
    }

    /// What a context sees through every kind of read: Ann and Sales by firing faults, Sales'
    /// employees by loading the to-many, the employees' names by a fetch, a `fetch` with
    /// `fetchBatchSize` (batch faulting) and `fetchBatched`, their number by a count and the sum
    /// of their salaries by a dictionary fetch. Call on the context's queue; resets the context.
    struct Reads: Equatable {
        var annName = ""
        var annSalary: Int64 = 0
        var salesName = ""
        var salesMembers: [String] = []
        var fetched: [String] = []
        var batchFaulted: [String] = []
        var batchWalked: [String] = []
        var counted = 0
        var totalSalary: Int64 = 0

        init(annName: String, annSalary: Int64, salesName: String, employees: [String], totalSalary: Int64) {
            (self.annName, self.annSalary, self.salesName) = (annName, annSalary, salesName)
            (salesMembers, fetched, batchFaulted, batchWalked) = (employees, employees, employees, employees)
            counted = employees.count
            self.totalSalary = totalSalary
        }

        init(through context: ManagedObjectContext, company: PinnedCompany) throws {
            context.reset()  // nothing registered: every read below goes to the parent store
            let ann = try #require(context.object(with: company.annID) as? Employee)
            #expect(ann.isFault)
            annName = ann.name
            annSalary = ann.salary
            let sales = try #require(context.object(with: company.salesID) as? Department)
            salesName = sales.name
            salesMembers = sales.employees.map(\.name).sorted()
            context.reset()
            let employees = FetchRequest<Employee>(entityName: "Employee")
            employees.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            fetched = try context.fetch(employees).map(\.name)
            counted = try context.count(for: employees)
            let totals = FetchRequest<NSDictionary>(entityName: "Employee")
            totals.resultType = .dictionaryResultType
            totals.propertiesToFetch = [ExpressionDescription(name: "total", expression: try ObjectExpression(validatingFormat: "sum:(salary)"), resultType: .undefined)]
            totalSalary = (try context.fetch(totals).first?["total"] as? NSNumber)?.int64Value ?? -1
            context.reset()
            employees.fetchBatchSize = 1
            let faults = try context.fetch(employees)
            #expect(faults.allSatisfy { $0.isFault })
            batchFaulted = faults.map(\.name)
            context.reset()
            batchWalked = try context.fetchBatched(employees).map(\.name)
            context.reset()
        }
    }

    static let pinnedState = Reads(annName: "Ann", annSalary: 100, salesName: "Sales", employees: ["Ann", "Bo"], totalSalary: 150)
    static let currentState = Reads(annName: "Ann B.", annSalary: 200, salesName: "Sales & Marketing", employees: ["Ann B.", "Bo", "Cy"], totalSalary: 260)

    @Test("every read of a pinned context sees the pinned generation: faults, fetches, counts, dictionaries, to-manys, batches", arguments: TestStack.Kind.allCases)
    func everyReadIsPinned(kind: TestStack.Kind) throws {
        // Core Data: a context pinned with setQueryGenerationFrom(_:) reads the store as it was
        // when pinned — fetches, counts and the faults it fires alike — until it moves forward
        // or unpins. Strata: the generation travels in each read's ReadOptions, set by
        // PinnedParentStore; a pinned read never takes the row cache's (newer) rows.
        let company = try PinnedCompany(kind: kind)
        let reader = company.reader
        try reader.performAndWait {
            #expect(try Reads(through: reader, company: company) == Self.pinnedState)
            try reader.setQueryGenerationFrom(.current)  // move forward
            #expect(try Reads(through: reader, company: company) == Self.currentState)
        }
        let unpinned = company.stack.newContext()
        try unpinned.performAndWait { () throws -> Void in #expect(try Reads(through: unpinned, company: company) == Self.currentState) }
    }

    @Test("a child of a pinned context reads the pinned generation through it", arguments: TestStack.Kind.allCases)
    func childReadsThroughPinnedParent(kind: TestStack.Kind) throws {
        // Core Data: only a root context is pinned; its child contexts read through it and see
        // its generation. Strata: the parent passes the child's ReadOptions on to its own parent
        // store, which (pinned) sets the generation in them.
        let company = try PinnedCompany(kind: kind)
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = company.reader
        try child.performAndWait { () throws -> Void in #expect(try Reads(through: child, company: company) == Self.pinnedState) }
    }
}
