import Foundation
import Strata
import StrataTestSupport
import Testing

/// `BatchDeleteRequest` through `execute(_:)` (issue #14, item 3), on both stores. Core Data's
/// facts come from Apple's NSBatchDeleteRequest and NSBatchDeleteResult documentation and the
/// Core Data Batch Programming Guide ("Implementing Batch Deletes"): the delete runs in the store
/// without loading objects, from a fetch request or from object IDs of one entity (mixing
/// entities is an error), skips validation, leaves contexts as they are (merge the deleted IDs
/// with `mergeChanges(fromRemoteContextSave:into:)`), and returns a status, a count or the IDs.
/// The delete rules (NSDeleteRule: cascade, nullify, deny, no action) are those a context
/// applies; the issue asks that the rows and links left equal those of the same deletes through
/// a context, which is what most tests here compare.
@Suite("Batch delete requests")
struct BatchDeleteTests {
    /// Department ⇄ Employee (cascade / nullify), Employee ⇄ Badge (cascade / nullify),
    /// Department ⇄ Project (many-to-many, nullify both ways), Department.head ⇄ Employee.headOf
    /// (one-to-one, nullify), Department.budget ⇄ Budget.department (deny / nullify),
    /// Employee.mentor (to-one without inverse), Contractor a sub-entity of Employee, and
    /// Project.tags (to-many without inverse, a join table).
    static func model() -> ManagedObjectModel {
        let department = EntityDescription(name: "Department")
        let employee = EntityDescription(name: "Employee")
        let contractor = EntityDescription(name: "Contractor")
        let badge = EntityDescription(name: "Badge")
        let project = EntityDescription(name: "Project")
        let budget = EntityDescription(name: "Budget")
        let tag = EntityDescription(name: "Tag")
        employee.subentities = [contractor]
        func name() -> AttributeDescription { AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "") }
        department.properties = [
            name(),
            RelationshipDescription(name: "employees", destination: employee, inverse: "department", toMany: true, deleteRule: .cascade),
            RelationshipDescription(name: "projects", destination: project, inverse: "departments", toMany: true),
            RelationshipDescription(name: "head", destination: employee, inverse: "headOf"),
            RelationshipDescription(name: "budget", destination: budget, inverse: "department", deleteRule: .deny),
        ]
        employee.properties = [
            name(),
            RelationshipDescription(name: "department", destination: department, inverse: "employees"),
            RelationshipDescription(name: "headOf", destination: department, inverse: "head"),
            RelationshipDescription(name: "badges", destination: badge, inverse: "owner", toMany: true, deleteRule: .cascade),
            RelationshipDescription(name: "mentor", destination: employee),
        ]
        contractor.properties = [AttributeDescription(name: "agency", type: .string)]
        badge.properties = [name(), RelationshipDescription(name: "owner", destination: employee, inverse: "badges")]
        project.properties = [
            name(),
            RelationshipDescription(name: "departments", destination: department, inverse: "projects", toMany: true),
            RelationshipDescription(name: "tags", destination: tag, toMany: true),
        ]
        budget.properties = [name(), RelationshipDescription(name: "department", destination: department, inverse: "budget")]
        tag.properties = [name()]
        return ManagedObjectModel(entities: [department, employee, contractor, badge, project, budget, tag])
    }

    /// A seeded graph: 5 departments (d0…d4; d4 has a budget), 20 employees (every fourth a
    /// contractor) spread over them with mentors, 2 badges each, 6 projects over random
    /// departments with tags, and heads for d0…d2.
    static func seed(_ stack: TestStack, seed: UInt64 = 7) throws {
        var random = SeededRandom(seed: seed)
        let context = stack.newContext()
        try context.performAndWait {
            func insert(_ entity: String, _ name: String) -> ManagedObject {
                let object = ManagedObject(entity: stack.model.entitiesByName[entity]!, insertInto: context)
                object.setValue(name, forKey: "name")
                return object
            }
            let departments = (0..<5).map { insert("Department", "d\($0)") }
            insert("Budget", "b4").setValue(departments[4], forKey: "department")
            let tags = (0..<3).map { insert("Tag", "t\($0)") }
            var employees: [ManagedObject] = []
            for index in 0..<20 {
                let employee = insert(index % 4 == 3 ? "Contractor" : "Employee", "e\(index)")
                employee.setValue(departments[Int(random.next() % 5)], forKey: "department")
                if let mentor = employees.randomElement(using: &random) { employee.setValue(mentor, forKey: "mentor") }
                for badge in 0..<2 { insert("Badge", "e\(index)b\(badge)").setValue(employee, forKey: "owner") }
                employees.append(employee)
            }
            for (index, department) in departments.prefix(3).enumerated() {
                department.setValue(employees[index * 5], forKey: "head")
            }
            for index in 0..<6 {
                let project = insert("Project", "p\(index)")
                let members = departments.filter { _ in random.next() % 2 == 0 }
                project.setValue(Set(members), forKey: "departments")
                project.setValue(Set(tags.filter { _ in random.next() % 2 == 0 }), forKey: "tags")
            }
            try context.save()
        }
    }

    /// Every row and link in the store, as text, read by a fresh context: "Entity name" for
    /// each row, "name.relationship → names" for each relationship.
    static func contents(_ stack: TestStack) throws -> [String] {
        let context = stack.newContext()
        return try context.performAndWait {
            var lines: [String] = []
            for entity in ["Department", "Employee", "Badge", "Project", "Budget", "Tag"] {
                let request = FetchRequest<ManagedObject>(entityName: entity)
                for object in try context.fetch(request) {
                    let name = object.value(forKey: "name") as? String ?? "?"
                    lines.append("\(object.entity.name) \(name)")
                    for relationship in object.entity.relationshipsByName.values {
                        let value = object.value(forKey: relationship.name)
                        let names: [String]
                        if let set = value as? Set<ManagedObject> {
                            names = set.map { $0.value(forKey: "name") as? String ?? "?" }.sorted()
                        } else if let target = value as? ManagedObject {
                            names = [target.value(forKey: "name") as? String ?? "?"]
                        } else {
                            names = []
                        }
                        lines.append("\(name).\(relationship.name) → \(names.joined(separator: ","))")
                    }
                }
            }
            return lines.sorted()
        }
    }

    /// The same delete done through a context: fetch, `delete(_:)` each object, save.
    static func deleteThroughContext(_ stack: TestStack, _ request: FetchRequest<ManagedObject>) throws {
        let context = stack.newContext()
        try context.performAndWait {
            for object in try context.fetch(request) { context.delete(object) }
            try context.save()
        }
    }

    static func request(_ entity: String, _ format: String) -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: entity)
        request.predicate = ObjectPredicate(format: format)
        return request
    }

    static func batchDelete(_ stack: TestStack, _ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        let context = stack.newContext()
        return try context.performAndWait { try #require(try context.execute(request) as? BatchDeleteResult) }
    }

    /// Core Data: a context's delete applies each relationship's delete rule (NSDeleteRule:
    /// cascade deletes the destinations, nullify clears the inverse, no action leaves it);
    /// the issue asks the batch delete to leave the same rows and links.
    @Test(
        "cascade and nullify leave the rows and links a context's deletes leave",
        arguments: TestStack.Kind.allCases,
        [
            ("Department", "name IN {'d0', 'd2'}"), ("Employee", "name IN {'e0', 'e3', 'e7', 'e12'}"), ("Project", "name BEGINSWITH 'p'"), ("Badge", "name ENDSWITH 'b1'"),
            ("Employee", "department.name == 'd1'"), ("Contractor", "TRUEPREDICATE"), ("Tag", "name == 't1'"),
        ])
    func sameAsContext(kind: TestStack.Kind, delete: (entity: String, predicate: String)) throws {
        let batch = try TestStack(model: Self.model(), kind: kind)
        let reference = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(batch)
        try Self.seed(reference)
        #expect(try Self.contents(batch) == Self.contents(reference))
        try Self.deleteThroughContext(reference, Self.request(delete.entity, delete.predicate))
        let request = BatchDeleteRequest(fetchRequest: Self.request(delete.entity, delete.predicate))
        request.resultType = .resultTypeCount
        let result = try Self.batchDelete(batch, request)
        let before = try Self.contents(try Self.seededCopy(kind))
        let rowsBefore = before.filter { !$0.contains("→") }.count
        let rowsAfter = try Self.contents(batch).filter { !$0.contains("→") }.count
        #expect(rowsAfter < rowsBefore)
        #expect(result.result as? Int == rowsBefore - rowsAfter)  // cascaded rows are counted
        #expect(try Self.contents(batch) == Self.contents(reference))
    }

    static func seededCopy(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        return stack
    }

    /// Core Data: the deny rule refuses deleting an object while its relationship holds an
    /// object (NSDeleteRule.denyDeleteRule); the issue: the whole batch fails, naming the
    /// relationship, and nothing is deleted.
    @Test("deny fails the whole request, naming the relationship; nothing is deleted", arguments: TestStack.Kind.allCases)
    func denyRefuses(kind: TestStack.Kind) throws {
        let stack = try Self.seededCopy(kind)
        let before = try Self.contents(stack)
        let request = BatchDeleteRequest(fetchRequest: Self.request("Department", "TRUEPREDICATE"))
        let context = stack.newContext()
        let error = try #require(throws: StrataError.self) { try context.performAndWait { try context.execute(request) } }
        #expect(error.code == StrataError.Code.validationRelationshipDeniedDelete)
        #expect(error.key == "budget")
        #expect(error.message.contains("d4") || error.entityName == "Department")
        #expect(try Self.contents(stack) == before)
        // The same delete through a context fails at save with the same code.
        let reference = try Self.seededCopy(kind)
        let saveError = try #require(throws: StrataError.self) { try Self.deleteThroughContext(reference, Self.request("Department", "TRUEPREDICATE")) }
        #expect(saveError.code == StrataError.Code.validationRelationshipDeniedDelete || saveError.allErrors.contains { $0.code == StrataError.Code.validationRelationshipDeniedDelete })
        // Deleting the budget's department together with the budget first is fine.
        _ = try Self.batchDelete(stack, BatchDeleteRequest(fetchRequest: Self.request("Budget", "TRUEPREDICATE")))
        let result = try Self.batchDelete(stack, BatchDeleteRequest(fetchRequest: Self.request("Department", "name == 'd4'")))
        #expect(result.result as? Bool == true)
        #expect(try !Self.contents(stack).contains("Department d4"))
    }

    /// Core Data: NSBatchDeleteRequest(objectIDs:) deletes the objects of those IDs; "mixing
    /// entity types results in an error when you execute the request".
    @Test("from object IDs of one entity; IDs of two entities are an error", arguments: TestStack.Kind.allCases)
    func fromObjectIDs(kind: TestStack.Kind) throws {
        let stack = try Self.seededCopy(kind)
        let reference = try Self.seededCopy(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let badges = try context.fetch(Self.request("Badge", "name BEGINSWITH 'e1'")).map(\.objectID)
            let employee = try #require(try context.fetch(Self.request("Employee", "name == 'e2'")).first)
            let mixed = BatchDeleteRequest(objectIDs: badges + [employee.objectID])
            let error = try #require(throws: StrataError.self) { try context.execute(mixed) }
            #expect(error.message.contains("one entity"))
            let request = BatchDeleteRequest(objectIDs: badges)
            request.resultType = .resultTypeObjectIDs
            let result = try #require(try context.execute(request) as? BatchDeleteResult)
            #expect(Set(result.result as? [ManagedObjectID] ?? []) == Set(badges))
            // Deleting them again: the rows are gone, nothing is deleted.
            let again = BatchDeleteRequest(objectIDs: badges)
            again.resultType = .resultTypeCount
            #expect((try context.execute(again) as? BatchDeleteResult)?.result as? Int == 0)
        }
        try Self.deleteThroughContext(reference, Self.request("Badge", "name BEGINSWITH 'e1'"))
        #expect(try Self.contents(stack) == Self.contents(reference))
    }

    /// Core Data: the fetch request's predicate, sort descriptors, fetchLimit and offset
    /// choose the objects (NSBatchDeleteRequest(fetchRequest:)); its result type does not matter.
    @Test("fetchLimit and sort descriptors choose the rows; IDs cover cascaded rows", arguments: TestStack.Kind.allCases)
    func windowedFetch(kind: TestStack.Kind) throws {
        let stack = try Self.seededCopy(kind)
        let reference = try Self.seededCopy(kind)
        func window() -> FetchRequest<ManagedObject> {
            let request = Self.request("Employee", "name BEGINSWITH 'e1'")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: false)]
            request.fetchLimit = 3
            request.fetchOffset = 1
            return request
        }
        let ids = window().copy(as: ManagedObjectID.self)
        ids.resultType = .managedObjectIDResultType
        let request = BatchDeleteRequest(fetchRequest: ids)
        request.resultType = .resultTypeObjectIDs
        let result = try Self.batchDelete(stack, request)
        let deleted = try #require(result.result as? [ManagedObjectID])
        #expect(deleted.count == 9)  // e18, e17, e16 and their two badges each
        #expect(Set(deleted.map(\.entity.name)) == ["Employee", "Badge"])
        try Self.deleteThroughContext(reference, window())
        #expect(try Self.contents(stack) == Self.contents(reference))
    }

    /// Core Data: a batch delete leaves contexts as they are; merging the deleted IDs with
    /// mergeChanges(fromRemoteContextSave:into:) turns registered objects into deleted ones
    /// ("Implementing Batch Deletes": update your application after execution).
    @Test("merging the result: deleted objects and partners that lost one", arguments: TestStack.Kind.allCases)
    func merging(kind: TestStack.Kind) throws {
        let stack = try Self.seededCopy(kind)
        let viewer = stack.newContext(name: "viewer")
        let (department, employee) = try viewer.performAndWait {
            let employee = try #require(try viewer.fetch(Self.request("Employee", "name == 'e5'")).first)
            let department = try #require(employee.value(forKey: "headOf") as? ManagedObject)
            _ = (department.value(forKey: "employees") as? Set<ManagedObject>)?.count
            return (department, employee)
        }
        let request = BatchDeleteRequest(objectIDs: [employee.objectID])
        request.mergesChangesIntoContexts = true
        _ = try Self.batchDelete(stack, request)
        viewer.performAndWait {}  // the merge was queued on the viewer's queue
        viewer.performAndWait {
            #expect(employee.isDeleted)
            #expect(department.value(forKey: "head") == nil)
            let names = (department.value(forKey: "employees") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String } ?? []
            #expect(!names.contains("e5"))
        }
    }

    /// Core Data: a context holding an edited copy of a row that changed in the store gets a
    /// merge conflict (NSMergeConflict) at save under the error merge policy. A partner that
    /// lost a deleted row was changed by the delete.
    @Test("a partner that lost a row conflicts with a stale edited copy", arguments: TestStack.Kind.allCases)
    func partnerVersionBumped(kind: TestStack.Kind) throws {
        let stack = try Self.seededCopy(kind)
        let editor = stack.newContext()
        editor.mergePolicy = .error
        try editor.performAndWait {
            let department = try #require(try editor.fetch(Self.request("Department", "name == 'd0'")).first)
            department.setValue("renamed", forKey: "name")
        }
        _ = try Self.batchDelete(stack, BatchDeleteRequest(fetchRequest: Self.request("Employee", "name == 'e0'")))  // d0's head
        let error = editor.performAndWait { () -> StrataError? in
            do {
                try editor.save()
                return nil
            } catch {
                return error as? StrataError
            }
        }
        #expect(error?.code == StrataError.Code.managedObjectMerge)
    }

    /// Core Data: a fault whose row is gone either becomes a deleted object with nil values
    /// (shouldDeleteInaccessibleFaults true, the default) or throws when it fires (false).
    @Test("faults of batch-deleted rows follow shouldDeleteInaccessibleFaults", arguments: TestStack.Kind.allCases, [true, false])
    func inaccessibleFaults(kind: TestStack.Kind, deleteInaccessible: Bool) throws {
        let stack = try Self.seededCopy(kind)
        let reader = stack.newContext()
        reader.shouldDeleteInaccessibleFaults = deleteInaccessible
        let ids: [ManagedObjectID] = try reader.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Badge")
            request.resultType = .managedObjectIDResultType
            return try reader.fetch(request)
        }
        _ = try Self.batchDelete(stack, BatchDeleteRequest(fetchRequest: Self.request("Employee", "TRUEPREDICATE")))  // cascades to every badge
        try reader.performAndWait {
            let fault = reader.object(with: ids[0])
            if deleteInaccessible {
                try fault.fulfillFault()
                #expect(fault.isDeleted)
                #expect(fault.value(forKey: "name") == nil)
            } else {
                let error = try #require(throws: StrataError.self) { try fault.fulfillFault() }
                #expect(error.code == StrataError.Code.managedObjectReferentialIntegrity)
            }
        }
    }

    /// Core Data: batch deletes skip validation (Batch Programming Guide, "Validation Rules").
    /// Bad requests still fail before anything is deleted.
    @Test("unknown entity, malformed predicate and unsaved objects are errors", arguments: TestStack.Kind.allCases)
    func badRequests(kind: TestStack.Kind) throws {
        let stack = try Self.seededCopy(kind)
        let before = try Self.contents(stack)
        let context = stack.newContext()
        try context.performAndWait {
            #expect(throws: StrataError.self) { try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Nope"))) }
            #expect(throws: StrataError.self) { try context.execute(BatchDeleteRequest(fetchRequest: Self.request("Badge", "nope == 1"))) }
            let unsaved = ManagedObject(entity: stack.model.entitiesByName["Tag"]!, insertInto: context)
            #expect(throws: StrataError.self) { try context.execute(BatchDeleteRequest(objectIDs: [unsaved.objectID])) }
            let empty = BatchDeleteRequest(objectIDs: [])
            empty.resultType = .resultTypeCount
            let result = try context.execute(empty) as? BatchDeleteResult
            #expect(result?.result as? Int == 0)
        }
        #expect(try Self.contents(stack) == before)
    }

    /// Core Data: a cascade is followed recursively, and each object is deleted once (cycles
    /// included), as a context's `delete(_:)` follows it (NSDeleteRule.cascadeDeleteRule).
    @Test("a long cascade chain and a cascade cycle", arguments: TestStack.Kind.allCases)
    func chainsAndCycles(kind: TestStack.Kind) throws {
        let node = EntityDescription(name: "Node")
        node.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "next", destination: node, inverse: "previous", deleteRule: .cascade),
            RelationshipDescription(name: "previous", destination: node, inverse: "next", deleteRule: .cascade),
        ]
        let stack = try TestStack(model: ManagedObjectModel(entities: [node]), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            // A chain of 60 and a separate ring of 5 (the last points back to the first).
            var chain: [ManagedObject] = []
            for index in 0..<60 {
                let object = ManagedObject(entity: node, insertInto: context)
                object.setValue("c\(index)", forKey: "name")
                if let last = chain.last { last.setValue(object, forKey: "next") }
                chain.append(object)
            }
            var ring: [ManagedObject] = []
            for index in 0..<5 {
                let object = ManagedObject(entity: node, insertInto: context)
                object.setValue("r\(index)", forKey: "name")
                if let last = ring.last { last.setValue(object, forKey: "next") }
                ring.append(object)
            }
            ring[4].setValue(ring[0], forKey: "next")
            try context.save()
            let middle = BatchDeleteRequest(fetchRequest: Self.request("Node", "name == 'c30'"))
            middle.resultType = .resultTypeCount
            #expect((try context.execute(middle) as? BatchDeleteResult)?.result as? Int == 60)  // both ways along the chain
            let ringDelete = BatchDeleteRequest(fetchRequest: Self.request("Node", "name == 'r2'"))
            ringDelete.resultType = .resultTypeCount
            #expect((try context.execute(ringDelete) as? BatchDeleteResult)?.result as? Int == 5)
        }
        let reader = stack.newContext()
        let remaining = try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Node")) }
        #expect(remaining == 0)
    }
}
