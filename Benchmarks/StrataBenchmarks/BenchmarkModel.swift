import Foundation
import Strata

/// The benchmark entity: five attributes of common types, `number` indexed.
final class Item: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("number") var number: Int64
    @Attribute("score") var score: Double
    @Attribute("flag") var flag: Bool
    @Attribute("created") var created: Date
}

final class Parent: ManagedObject {
    @Attribute("name") var name: String
}

final class Child: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("value") var value: Int64
}

enum BenchmarkModel {
    /// One model instance shared by every store of the run (a model freezes when first used).
    static let shared = make()

    static func make() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", managedObjectClass: Item.self)
        let number = AttributeDescription(name: "number", type: .integer64, isOptional: false, defaultValue: 0)
        number.isIndexed = true
        item.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            number,
            AttributeDescription(name: "score", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "flag", type: .boolean, isOptional: false, defaultValue: false),
            AttributeDescription(name: "created", type: .date, isOptional: false, defaultValue: Date(timeIntervalSinceReferenceDate: 0)),
        ]
        let parent = EntityDescription(name: "Parent", managedObjectClass: Parent.self)
        let child = EntityDescription(name: "Child", managedObjectClass: Child.self)
        parent.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "children", destination: child, inverse: "parent", toMany: true, deleteRule: .cascade),
        ]
        child.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "value", type: .integer64, isOptional: false, defaultValue: 0),
            RelationshipDescription(name: "parent", destination: parent, inverse: "children", deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [item, parent, child])
    }
}

extension Item {
    /// Sets every attribute to row `index` of the benchmark data set (`Datasets`), as the raw
    /// sides write it.
    @inline(__always)
    func fill(datasetRow index: Int) {
        name = Datasets.name(index)
        number = Datasets.number(index)
        score = Datasets.score(index)
        flag = Datasets.flag(index)
        created = Date(timeIntervalSinceReferenceDate: Datasets.created(index))
    }
}
