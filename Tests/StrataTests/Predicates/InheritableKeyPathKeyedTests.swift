import Foundation
import Strata
import StrataTestSupport
import Testing

/// A person, whose class employees inherit from (so it cannot be `KeyPathKeyed`).
class TablePerson: ManagedObject, InheritableKeyPathKeyed {
    @Attribute("name") var name: String
    @Relationship("unit") var unit: TableUnit?

    class var inheritableKeyPathKeys: [AnyKeyPath: String] { [\TablePerson.unit?.name: "unit.name"] }
}

/// An employee: its own table, with key paths of its own type.
final class TableEmployee: TablePerson {
    @Attribute("salary") var salary: Int64

    override class var inheritableKeyPathKeys: [AnyKeyPath: String] {
        [\TableEmployee.unit?.name: "unit.name", \TableEmployee.unit?.code: "unit.code"]
    }
}

/// A unit people belong to.
final class TableUnit: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("code") var code: Int64
}

/// Key-path tables of classes that are not final (`InheritableKeyPathKeyed`), as generated
/// code declares them for an entity with subentities.
@Suite("InheritableKeyPathKeyed")
struct InheritableKeyPathKeyedTests {
    static func model() -> ManagedObjectModel {
        let person = EntityDescription(name: "TablePerson", managedObjectClass: TablePerson.self)
        let employee = EntityDescription(name: "TableEmployee", managedObjectClass: TableEmployee.self)
        let unit = EntityDescription(name: "TableUnit", managedObjectClass: TableUnit.self)
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "unit", destinationEntityName: "TableUnit", inverse: "people", deleteRule: .nullify),
        ]
        employee.properties = [AttributeDescription(name: "salary", type: .integer64, isOptional: false, defaultValue: Int64(0))]
        person.subentities = [employee]
        unit.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "code", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            RelationshipDescription(name: "people", destinationEntityName: "TablePerson", inverse: "unit", toMany: true, deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [person, employee, unit])
    }

    // Core Data: NSSortDescriptor(keyPath: \Person.department?.name) sorts by "department.name"
    // whatever the class's place in its hierarchy.
    @Test("a class's own table, a subclass's override, probing for one-step key paths")
    func keys() throws {
        #expect(try ObjectSortDescriptor(\TablePerson.unit?.name).key == "unit.name")
        #expect(try ObjectSortDescriptor(\TableEmployee.unit?.name).key == "unit.name")
        #expect(try ObjectSortDescriptor(\TableEmployee.unit?.code).key == "unit.code")
        #expect(try ObjectSortDescriptor(\TableEmployee.salary).key == "salary")  // probed
        #expect(try ObjectSortDescriptor(\TablePerson.name).key == "name")  // probed
        #expect(throws: StrataError.self) { try ObjectSortDescriptor(\TablePerson.unit?.code) }  // in no table
    }

    @Test("sorting through a to-one of a class with subclasses", arguments: TestStack.Kind.allCases)
    func sorting(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            var units: [TableUnit] = []
            for (index, name) in ["Sales", "Audit", "Ops"].enumerated() {
                let unit = TableUnit(context: context)
                unit.name = name
                unit.code = Int64(3 - index)
                units.append(unit)
            }
            for (index, unit) in units.enumerated() {
                let person = TablePerson(context: context)
                person.name = "person \(index)"
                person.unit = unit
                let employee = TableEmployee(context: context)
                employee.name = "employee \(index)"
                employee.unit = unit
            }
            try context.save()
        }
        let people = try FetchRequest<TablePerson>(predicate: nil, sortDescriptors: [ObjectSortDescriptor(\TablePerson.unit?.name), ObjectSortDescriptor(\TablePerson.name)])
        let employees = try FetchRequest<TableEmployee>(predicate: nil, sortDescriptors: [ObjectSortDescriptor(\TableEmployee.unit?.code)])
        let reader = stack.newContext()
        let (peopleNames, employeeNames) = try reader.performAndWait { (try reader.fetch(people).map(\.name), try reader.fetch(employees).map(\.name)) }
        #expect(peopleNames == ["employee 1", "person 1", "employee 2", "person 2", "employee 0", "person 0"])
        #expect(employeeNames == ["employee 2", "employee 1", "employee 0"])
    }
}
