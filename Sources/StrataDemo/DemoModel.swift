import Foundation
import Strata

/// The demo's model: people in departments.
final class Department: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("budget") var budget: Decimal
}

final class Person: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("age") var age: Int16
    @Attribute("score") var score: Double
    @Attribute("email") var email: String?
    @Attribute("joined") var joined: Date
}

enum DemoModel {
    static func make() -> ManagedObjectModel {
        let department = EntityDescription(name: "Department", managedObjectClass: Department.self)
        let person = EntityDescription(name: "Person", managedObjectClass: Person.self)
        department.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "budget", type: .decimal, isOptional: false, defaultValue: Decimal(0)),
            RelationshipDescription(name: "people", destination: person, inverse: "department", toMany: true, deleteRule: .cascade),
        ]
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "age", type: .integer16, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "score", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "joined", type: .date, isOptional: false, defaultValue: Date(timeIntervalSinceReferenceDate: 0)),
            RelationshipDescription(name: "department", destination: department, inverse: "people", deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [department, person])
    }
}
