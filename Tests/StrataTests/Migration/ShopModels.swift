import Foundation
import Strata
import StrataTestSupport

/// Three versions of a small model, written as a bundle, that exercise each lightweight change:
/// v1 → v2 renames `Item.title` to `name` (renaming identifier) and makes it required with a
/// default, widens `count` (Integer 16 → 64), `price` (Integer 32 → Double) and `weight`
/// (Float → Double), adds `rating` (required, default 3) and `memo` (optional), removes `note`
/// and the `Obsolete` entity, adds `Label`, and turns the to-one `owner` into the to-many
/// `owners`; v2 → v3 turns `owners` back into the to-one `owner`.
enum ShopModels {
    static let v1 = """
        <entity name="Item">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="count" attributeType="Integer 16" defaultValueString="0"/>
            <attribute name="price" optional="YES" attributeType="Integer 32"/>
            <attribute name="weight" optional="YES" attributeType="Float"/>
            <attribute name="note" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person"/>
        </entity>
        <entity name="Person">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
        </entity>
        <entity name="Obsolete">
            <attribute name="x" optional="YES" attributeType="String"/>
        </entity>
        """

    static let v2 = """
        <entity name="Item">
            <attribute name="name" attributeType="String" defaultValueString="untitled" elementID="title"/>
            <attribute name="count" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="price" optional="YES" attributeType="Double"/>
            <attribute name="weight" optional="YES" attributeType="Double"/>
            <attribute name="rating" attributeType="Integer 16" defaultValueString="3"/>
            <attribute name="memo" optional="YES" attributeType="String"/>
            <relationship name="owners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person" elementID="owner"/>
        </entity>
        <entity name="Person">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owners" inverseEntity="Item"/>
        </entity>
        <entity name="Label">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    static let v3 = """
        <entity name="Item">
            <attribute name="name" attributeType="String" defaultValueString="untitled" elementID="title"/>
            <attribute name="count" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="price" optional="YES" attributeType="Double"/>
            <attribute name="weight" optional="YES" attributeType="Double"/>
            <attribute name="rating" attributeType="Integer 16" defaultValueString="3"/>
            <attribute name="memo" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person" elementID="owners"/>
        </entity>
        <entity name="Person">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
        </entity>
        <entity name="Label">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    /// The bundle `Shop.xcdatamodeld` with versions "Shop 1", "Shop 2", "Shop 3", `current`
    /// being the current one; returns the bundle's URL.
    static func bundle(in scratch: ModelFileScratch, current: Int) throws -> URL {
        for (number, body) in [v1, v2, v3].enumerated() {
            try scratch.writeVersion(ModelFileScratch.model(body), name: "Shop \(number + 1)", bundle: "Shop")
        }
        return try scratch.writeCurrentVersion("Shop \(current).xcdatamodel", bundle: "Shop")
    }

    /// Seeds a v1 store: two people, three items (one without a title, one without an owner),
    /// one Obsolete row. Returns the number of items.
    static func seedV1(_ model: ManagedObjectModel, at url: URL, options: [String: any Sendable] = [:]) throws {
        try MigrationHarness.with(model, at: url, options: options) { context in
            let ann = try EntityDescription.insertNewObject(forEntityName: "Person", into: context)
            ann.setValue("Ann", forKey: "name")
            let bob = try EntityDescription.insertNewObject(forEntityName: "Person", into: context)
            bob.setValue("Bob", forKey: "name")
            let values: [(String?, Int16, Int32?, Float?, ManagedObject?)] = [
                ("lamp", 2, 1999, 1.5, ann), (nil, 7, nil, nil, bob), ("desk", 32000, 250, 30.25, nil),
            ]
            for (title, count, price, weight, owner) in values {
                let item = try EntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(title, forKey: "title")
                item.setValue(count, forKey: "count")
                item.setValue(price, forKey: "price")
                item.setValue(weight, forKey: "weight")
                item.setValue("n-\(count)", forKey: "note")
                item.setValue(owner, forKey: "owner")
            }
            let obsolete = try EntityDescription.insertNewObject(forEntityName: "Obsolete", into: context)
            obsolete.setValue("gone", forKey: "x")
            try context.save()
        }
    }
}
