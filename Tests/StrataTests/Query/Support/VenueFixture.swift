import Foundation
import Strata
import StrataTestSupport

/// The model of the fetch-request examples in published Core Data learning notes ("Bubble Tea
/// Finder" of Core Data by Tutorials, and an "Employee Directory"): venues with a price category,
/// a location and a category; employees in departments. Small and fixed, so tests can state
/// exact answers.
enum VenueFixture {
    static func model() -> ManagedObjectModel {
        let venue = EntityDescription(name: "Venue")
        let priceInfo = EntityDescription(name: "PriceInfo")
        let location = EntityDescription(name: "Location")
        let category = EntityDescription(name: "Category")
        let employee = EntityDescription(name: "Employee")
        let department = EntityDescription(name: "Department")
        venue.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "specialCount", type: .integer32, isOptional: false, defaultValue: Int32(0)),
            AttributeDescription(name: "favorite", type: .boolean, isOptional: false, defaultValue: false),
            AttributeDescription(name: "rating", type: .double),
            AttributeDescription(name: "price", type: .decimal),
            RelationshipDescription(name: "priceInfo", destination: priceInfo, inverse: "venues"),
            RelationshipDescription(name: "location", destination: location, inverse: "venue"),
            RelationshipDescription(name: "category", destination: category, inverse: "venues"),
        ]
        priceInfo.properties = [
            AttributeDescription(name: "priceCategory", type: .string),
            RelationshipDescription(name: "venues", destination: venue, inverse: "priceInfo", toMany: true),
        ]
        location.properties = [
            AttributeDescription(name: "address", type: .string),
            AttributeDescription(name: "distance", type: .double),
            RelationshipDescription(name: "venue", destination: venue, inverse: "location"),
        ]
        category.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "venues", destination: venue, inverse: "category", toMany: true),
        ]
        employee.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "department", type: .string),
            AttributeDescription(name: "salary", type: .decimal),
            AttributeDescription(name: "vacationDays", type: .integer16, isOptional: false, defaultValue: Int16(0)),
            RelationshipDescription(name: "unit", destination: department, inverse: "staff"),
        ]
        department.properties = [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "staff", destination: employee, inverse: "unit", toMany: true),
        ]
        return ManagedObjectModel(entities: [venue, priceInfo, location, category, employee, department])
    }

    /// (name, specialCount, price category, distance, category, rating, price)
    static let venues: [(String, Int32, String, Double, String, Double?, String)] = [
        ("Bubble Bee", 3, "$", 12.5, "Tea", 4.5, "3.10"),
        ("boba guys", 0, "$$", 0.8, "Tea", nil, "5.25"),
        ("Café 10", 7, "$", 40, "Coffee", 3.0, "2.20"),
        ("Café 2", 1, "$$$", 3.2, "Coffee", 4.0, "7.05"),
        ("Émile's", 2, "$", 7.75, "Bakery", 5.0, "0.10"),
        ("Zen Tea", 4, "$$", 0.8, "Tea", 2.5, "0.20"),
        ("alpha", 0, "$$$", 100, "Bakery", nil, "12.00"),
    ]

    /// (name, department, salary, vacation days, department entity title)
    static let employees: [(String, String, String, Int16, String)] = [
        ("Ann", "Engineering", "1000.10", 10, "R&D"),
        ("Bo", "Engineering", "2000.20", 5, "R&D"),
        ("Cy", "Sales", "1500.00", 20, "Field"),
        ("Dee", "Engineering", "3000.30", 0, "R&D"),
        ("Eve", "Support", "800.05", 12, "Field"),
        ("Fay", "Sales", "1700.70", 8, "Field"),
    ]

    /// A stack of `kind` holding the fixture, saved.
    static func stack(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try populate(context, model: stack.model)
            try context.save()
        }
        return stack
    }

    static func populate(_ context: ManagedObjectContext, model: ManagedObjectModel) throws {
        func entity(_ name: String) throws -> EntityDescription {
            guard let entity = model.entitiesByName[name] else { throw StrataError(code: StrataError.Code.coreData, message: "no entity \(name)") }
            return entity
        }
        var prices: [String: ManagedObject] = [:]
        var categories: [String: ManagedObject] = [:]
        for (name, specials, priceCategory, distance, categoryName, rating, price) in venues {
            let venue = ManagedObject(entity: try entity("Venue"), insertInto: context)
            venue.setValue(name, forKey: "name")
            venue.setValue(specials, forKey: "specialCount")
            venue.setValue(rating, forKey: "rating")
            venue.setValue(Decimal(string: price, locale: Locale(identifier: "en_US_POSIX")), forKey: "price")
            if prices[priceCategory] == nil {
                let info = ManagedObject(entity: try entity("PriceInfo"), insertInto: context)
                info.setValue(priceCategory, forKey: "priceCategory")
                prices[priceCategory] = info
            }
            venue.setValue(prices[priceCategory], forKey: "priceInfo")
            let location = ManagedObject(entity: try entity("Location"), insertInto: context)
            location.setValue(distance, forKey: "distance")
            location.setValue("\(name) street", forKey: "address")
            venue.setValue(location, forKey: "location")
            if categories[categoryName] == nil {
                let category = ManagedObject(entity: try entity("Category"), insertInto: context)
                category.setValue(categoryName, forKey: "name")
                categories[categoryName] = category
            }
            venue.setValue(categories[categoryName], forKey: "category")
        }
        var departments: [String: ManagedObject] = [:]
        for (name, department, salary, days, title) in employees {
            let employee = ManagedObject(entity: try entity("Employee"), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(department, forKey: "department")
            employee.setValue(Decimal(string: salary, locale: Locale(identifier: "en_US_POSIX")), forKey: "salary")
            employee.setValue(days, forKey: "vacationDays")
            if departments[title] == nil {
                let unit = ManagedObject(entity: try entity("Department"), insertInto: context)
                unit.setValue(title, forKey: "title")
                departments[title] = unit
            }
            employee.setValue(departments[title], forKey: "unit")
        }
    }
}
