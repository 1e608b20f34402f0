import Foundation
import Strata
import StrataTestSupport
import Testing

/// Delete rules: applied when delete(_:) runs, deny checked again at save.
@Suite("Delete rules")
struct DeleteRuleTests {
    /// Company "Acme" with department "Sales" (employees Ann, Bo; Ann manages Bo; Ann and Bo are
    /// friends) and customer "Cy".
    func seeded(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let acme = Company(context: context)
            acme.name = "Acme"
            let sales = Department(context: context)
            sales.name = "Sales"
            sales.company = acme
            let ann = Employee(context: context)
            ann.name = "Ann"
            let bo = Employee(context: context)
            bo.name = "Bo"
            sales.employees = [ann, bo]
            bo.manager = ann
            ann.friends = [bo]
            let cy = Customer(context: context)
            cy.name = "Cy"
            cy.company = acme
            try context.save()
        }
        return stack
    }

    func one<T: ManagedObject>(_ type: T.Type, _ entity: String, named name: String, in context: ManagedObjectContext) throws -> T {
        let request = FetchRequest<T>(entityName: entity)
        request.predicate = ObjectPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    func count(_ entity: String, in stack: TestStack) throws -> Int {
        let context = stack.newContext()
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }

    @Test("nullify removes the deleted object from its partners at once", arguments: TestStack.Kind.allCases)
    func nullify(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = try one(Employee.self, "Employee", named: "Ann", in: context)
            let bo = try one(Employee.self, "Employee", named: "Bo", in: context)
            let sales = try one(Department.self, "Department", named: "Sales", in: context)
            context.delete(ann)
            #expect(ann.isDeleted)
            #expect(sales.employees == [bo])  // Employee.department: nullify
            #expect(bo.manager == nil)  // Person.reports: nullify
            #expect(bo.friends.isEmpty)  // Person.friends: nullify
            #expect(context.updatedObjects == [sales, bo])
            try context.save()
        }
        try stack.reopen()
        let context2 = stack.newContext()
        try context2.performAndWait {
            let bo = try one(Employee.self, "Employee", named: "Bo", in: context2)
            #expect(bo.manager == nil && bo.friends.isEmpty)
            #expect(bo.department?.employees == [bo])
        }
        #expect(try count("Employee", in: stack) == 1)
    }

    @Test("cascade deletes partners recursively; the rest of the graph lets go of them", arguments: TestStack.Kind.allCases)
    func cascade(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let sales = try one(Department.self, "Department", named: "Sales", in: context)
            let acme = try one(Company.self, "Company", named: "Acme", in: context)
            let employees = sales.employees
            context.delete(sales)
            #expect(employees.count == 2 && employees.allSatisfy { $0.isDeleted })
            #expect(acme.departments.isEmpty)
            #expect(context.deletedObjects == Set<ManagedObject>(employees).union([sales]))
            try context.save()
        }
        try stack.reopen()
        #expect(try count("Employee", in: stack) == 0)
        #expect(try count("Department", in: stack) == 0)
        #expect(try count("Company", in: stack) == 1)
    }

    @Test("deny: save fails with 1600 naming the object and relationship; nothing changes; fixed and saved", arguments: TestStack.Kind.allCases)
    func deny(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let acme = try one(Company.self, "Company", named: "Acme", in: context)
            let sales = try one(Department.self, "Department", named: "Sales", in: context)
            context.delete(acme)
            #expect(acme.isDeleted)
            #expect(sales.company === acme)  // deny leaves the partners alone
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.validationRelationshipDeniedDelete)
            #expect(error.entityName == "Company")
            #expect(error.key == "departments")
            #expect(error.objectID == acme.objectID)
            #expect(error.message.contains("departments"))
            // The store did not change; the context kept its changes.
            #expect(context.deletedObjects.contains(acme))
            #expect(try count("Company", in: stack) == 1)
            // Deny is checked at save: deleting the departments too makes the save pass.
            context.delete(sales)
            try context.save()
        }
        try stack.reopen()
        #expect(try count("Company", in: stack) == 0)
        #expect(try count("Employee", in: stack) == 0)
        #expect(try count("Customer", in: stack) == 1)
    }

    @Test("deny passes while the relationship is empty", arguments: TestStack.Kind.allCases)
    func denyEmpty(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let empty = Company(context: context)
            try context.save()
            context.delete(empty)
            try context.save()
        }
        #expect(try count("Company", in: stack) == 0)
    }

    @Test("noAction leaves a dangling reference, as in Core Data", arguments: TestStack.Kind.allCases)
    func noAction(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        let (cyID, acmeID) = try context.performAndWait {
            let acme = Company(context: context)
            let cy = Customer(context: context)
            cy.company = acme
            try context.save()
            context.delete(acme)
            #expect(cy.company === acme)  // still points at the deleted company
            #expect(cy.company?.isDeleted == true)
            #expect(!cy.isUpdated)
            try context.save()
            return (cy.objectID, acme.objectID)
        }
        try stack.reopen()
        // IDs of the old coordinator's store do not name objects of the reopened one: go by URI.
        let cyURI = cyID.uriRepresentation()
        let acmeURI = acmeID.uriRepresentation()
        let reader = stack.newContext()
        try reader.performAndWait {
            let cyNow = try #require(stack.coordinator.managedObjectID(forURIRepresentation: cyURI))
            let acmeNow = try #require(stack.coordinator.managedObjectID(forURIRepresentation: acmeURI))
            let cy = try #require(reader.object(with: cyNow) as? Customer)
            // The foreign key still holds the deleted company's ID: a dangling reference.
            #expect(cy.objectIDs(forRelationshipNamed: "company") == [acmeNow])
            let dangling = cy.company
            #expect(dangling?.objectID == acmeNow)
            _ = dangling?.value(forKey: "name")  // firing it finds no row
            #expect(dangling?.isDeleted == true)
        }
    }

    @Test("deleting an object that was never saved simply removes it")
    func deleteInserted() throws {
        let stack = try seeded(.sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            let sales = try one(Department.self, "Department", named: "Sales", in: context)
            let dee = Employee(context: context)
            dee.department = sales
            context.delete(dee)
            #expect(context.insertedObjects.isEmpty)
            #expect(!sales.employees.contains(dee))
            try context.save()
        }
        #expect(try count("Employee", in: stack) == 2)
    }

    @Test("cascade over cycles and diamonds deletes each object once", arguments: TestStack.Kind.allCases)
    func cyclesAndDiamonds(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Chore.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let chores = (0..<6).map { index -> Chore in
                let chore = Chore(context: context)
                chore.setValue("c\(index)", forKey: "name")
                return chore
            }
            func link(_ a: Int, _ b: Int) { chores[a].mutableSetValue(forKey: "subchores").add(chores[b]) }
            // Diamond 0 → {1, 2} → 3, cycle 3 → 0, and 3 → 4; 5 is unrelated.
            link(0, 1)
            link(0, 2)
            link(1, 3)
            link(2, 3)
            link(3, 0)
            link(3, 4)
            try context.save()
            context.reset()
        }
        let deleter = stack.newContext()
        try deleter.performAndWait {
            let request = FetchRequest<Chore>(entityName: "Chore")
            request.predicate = ObjectPredicate(format: "name == 'c1'")
            let start = try #require(try deleter.fetch(request).first)
            deleter.delete(start)
            let deleted = deleter.deletedObjects.compactMap { $0 as? Chore }
            #expect(Set(deleted.map { $0.value(forKey: "name") as? String ?? "?" }) == ["c0", "c1", "c2", "c3", "c4"])
            #expect(deleted.allSatisfy { $0.deletions == 1 })
            try deleter.save()
        }
        #expect(try count("Chore", in: stack) == 1)
    }

    @Test("a cascade through a long chain does not overflow the stack", arguments: TestStack.Kind.allCases)
    func longChain(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Chore.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            var previous: Chore?
            var first: Chore?
            for _ in 0..<3_000 {
                let chore = Chore(context: context)
                previous?.mutableSetValue(forKey: "subchores").add(chore)
                previous = chore
                if first == nil { first = chore }
            }
            try context.save()
            if let first { context.delete(first) }
            #expect(context.deletedObjects.count == 3_000)
            try context.save()
        }
        #expect(try count("Chore", in: stack) == 0)
    }

    @Test("a cascade loads partners in batches, not one query per object")
    func batchedCascade() throws {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        try context.performAndWait {
            let sales = Department(context: context)
            sales.name = "Sales"
            for index in 0..<30 {
                let employee = Employee(context: context)
                employee.name = "e\(index)"
                employee.department = sales
            }
            try context.save()
        }
        let recorder = stack.recordSQL()
        let deleter = stack.newContext()
        try deleter.performAndWait {
            let request = FetchRequest<Department>(entityName: "Department")
            request.returnsObjectsAsFaults = false
            let sales = try #require(try deleter.fetch(request).first)
            let statements = recorder.statements { deleter.delete(sales) }
            // Employee IDs, their values, then each of their to-manys (friends, reports) once.
            #expect(statements.count <= 4, "\(statements.joined(separator: "\n"))")
            #expect(deleter.deletedObjects.count == 31)
        }
    }
}

/// A chore with sub-chores: a many-to-many whose `subchores` side cascades (so deletes can meet
/// diamonds and cycles). Counts its `prepareForDeletion()` calls.
final class Chore: ManagedObject {
    var deletions = 0

    override func prepareForDeletion() { deletions += 1 }

    static func model() -> ManagedObjectModel {
        let chore = EntityDescription(name: "Chore", managedObjectClass: Chore.self)
        chore.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "subchores", destination: chore, inverse: "parents", toMany: true, deleteRule: .cascade),
            RelationshipDescription(name: "parents", destination: chore, inverse: "subchores", toMany: true, deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [chore])
    }
}
