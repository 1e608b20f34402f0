import Foundation
import Strata
import StrataTestSupport
import Testing

/// Dictionary results: properties, key paths, expressions and aggregates, grouping, having,
/// distinct, order and limits, on both store kinds and with unsaved changes.
@Suite("Dictionary results")
struct DictionaryResultsTests {
    static let posix = Locale(identifier: "en_US_POSIX")

    func expression(_ name: String, _ format: String, _ type: AttributeType = .undefined) throws -> ExpressionDescription {
        ExpressionDescription(name: name, expression: try ObjectExpression(validatingFormat: format), resultType: type)
    }

    func fetch(_ context: ManagedObjectContext, _ entity: String, _ configure: (FetchRequest<NSDictionary>) throws -> Void) throws -> [NSDictionary] {
        let request = FetchRequest<NSDictionary>(entityName: entity)
        request.resultType = .dictionaryResultType
        try configure(request)
        return try context.fetch(request)
    }

    @Test("attribute names, to-one key paths and to-one relationships", arguments: TestStack.Kind.allCases)
    func properties(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let rows = try fetch(context, "Venue") { request in
                request.propertiesToFetch = ["name", "priceInfo.priceCategory", "location", "rating"]
                request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)]
                request.fetchLimit = 3
            }
            #expect(rows.map { $0["name"] as? String } == ["alpha", "boba guys", "Bubble Bee"])
            #expect(rows.map { $0["priceInfo.priceCategory"] as? String } == ["$$$", "$$", "$"])
            #expect(rows[0]["rating"] == nil)  // nil values are left out
            #expect((rows[2]["rating"] as? NSNumber)?.doubleValue == 4.5)
            let location = try #require(rows[0]["location"] as? ManagedObjectID)
            #expect(location.entityName == "Location")
            let object = try context.existingObject(with: location)
            #expect(object.value(forKey: "distance") as? Double == 100)
            // Without propertiesToFetch: every attribute.
            let all = try fetch(context, "Venue") { $0.predicate = ObjectPredicate(format: "name == 'Zen Tea'") }
            #expect(all.count == 1)
            #expect(Set(all[0].allKeys.compactMap { $0 as? String }) == ["name", "specialCount", "favorite", "rating", "price"])
            #expect((all[0]["price"] as? NSDecimalNumber) == NSDecimalNumber(string: "0.20", locale: Self.posix))
            #expect(all[0]["favorite"] as? Bool == false)
        }
    }

    @Test("aggregates: sum, count, min, max, average and arithmetic", arguments: TestStack.Kind.allCases)
    func aggregates(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let rows = try fetch(context, "Venue") { request in
                request.propertiesToFetch = [
                    try expression("total", "sum:(specialCount)"),
                    try expression("venues", "count:(name)"),
                    try expression("rated", "count:(rating)"),
                    try expression("lowest", "min:(rating)"),
                    try expression("highest", "max:(name)"),
                    try expression("mean", "average:(specialCount)"),
                    try expression("meanByHand", "sum:(specialCount) / count:(specialCount)"),
                    try expression("doubled", "sum:(specialCount) * 2"),
                    try expression("closest", "min:(location.distance)"),
                ]
            }
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect((row["total"] as? NSNumber)?.int64Value == 17)
            #expect((row["venues"] as? NSNumber)?.intValue == 7)
            #expect((row["rated"] as? NSNumber)?.intValue == 5)
            #expect((row["lowest"] as? NSNumber)?.doubleValue == 2.5)
            #expect(row["highest"] as? String == "Émile's")  // byte order: É sorts after ASCII
            #expect((row["mean"] as? NSNumber)?.doubleValue == 17.0 / 7.0)
            #expect((row["meanByHand"] as? NSNumber)?.doubleValue == 17.0 / 7.0)
            #expect((row["doubled"] as? NSNumber)?.int64Value == 34)
            #expect((row["closest"] as? NSNumber)?.doubleValue == 0.8)
            // Over no objects: one result; count and sum are 0, the others are absent.
            let none = try fetch(context, "Venue") { request in
                request.predicate = ObjectPredicate(format: "specialCount > 1000")
                request.propertiesToFetch = [try expression("total", "sum:(specialCount)"), try expression("n", "count:(name)"), try expression("top", "max:(rating)")]
            }
            #expect(none.count == 1)
            #expect((none.first?["total"] as? NSNumber)?.intValue == 0)
            #expect((none.first?["n"] as? NSNumber)?.intValue == 0)
            #expect(none.first?["top"] == nil)
        }
    }

    @Test("decimal sums and averages are exact", arguments: TestStack.Kind.allCases)
    func exactDecimals(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: VenueFixture.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(stack.model.entitiesByName["Venue"])
            for _ in 0..<10 {
                for price in ["0.1", "0.2"] {
                    let venue = ManagedObject(entity: entity, insertInto: context)
                    venue.setValue(Decimal(string: price, locale: Self.posix), forKey: "price")
                }
            }
            let big = ManagedObject(entity: entity, insertInto: context)
            big.setValue(Decimal(string: "12345678901234567890.123456789", locale: Self.posix), forKey: "price")
            try context.save()
            let rows = try fetch(context, "Venue") { request in
                request.propertiesToFetch = [try expression("total", "sum:(price)"), try expression("mean", "average:(price)"), try expression("top", "max:(price)")]
            }
            let row = try #require(rows.first)
            #expect((row["total"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "12345678901234567893.123456789", locale: Self.posix))
            #expect((row["mean"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "12345678901234567893.123456789", locale: Self.posix).map { $0 / 21 })
            #expect((row["top"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "12345678901234567890.123456789", locale: Self.posix))
            // The same sum as a predicate aggregate over a to-many is exact too.
            let typed = try fetch(context, "Venue") { request in
                request.predicate = ObjectPredicate(format: "price < 1")
                request.propertiesToFetch = [try expression("total", "sum:(price)", .decimal)]
            }
            #expect((typed.first?["total"] as? NSDecimalNumber)?.decimalValue == 3)
        }
    }

    @Test("averages of tiny decimals are not NaN (Foundation's division underflows)", arguments: TestStack.Kind.allCases)
    func tinyDecimals(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: VenueFixture.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let venue = try #require(stack.model.entitiesByName["Venue"])
            let category = ManagedObject(entity: try #require(stack.model.entitiesByName["Category"]), insertInto: context)
            for price in ["1e-100", "2e-100"] {
                let object = ManagedObject(entity: venue, insertInto: context)
                object.setValue(Decimal(string: price, locale: Self.posix), forKey: "price")
                object.setValue(category, forKey: "category")
            }
            try context.save()
            let rows = try fetch(context, "Venue") { $0.propertiesToFetch = [try expression("mean", "average:(price)")] }
            #expect((rows.first?["mean"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "1.5e-100", locale: Self.posix))
            let categories = FetchRequest<ManagedObject>(entityName: "Category")
            categories.predicate = ObjectPredicate(format: "venues.@avg.price < 1 AND venues.@avg.price > 0")
            #expect(try context.count(for: categories) == 1)
            categories.predicate = ObjectPredicate(format: "venues.@avg.price > 2")
            #expect(try context.count(for: categories) == 0)
        }
    }

    @Test("group by attributes, key paths and to-one relationships", arguments: TestStack.Kind.allCases)
    func grouping(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let byUnit = try fetch(context, "Employee") { request in
                request.propertiesToFetch = ["unit.title", try expression("payroll", "sum:(salary)"), try expression("days", "max:(vacationDays)")]
                request.propertiesToGroupBy = ["unit.title"]
            }
            #expect(byUnit.map { $0["unit.title"] as? String } == ["Field", "R&D"])
            #expect(byUnit.map { ($0["payroll"] as? NSDecimalNumber)?.stringValue } == ["4000.75", "6000.6"])
            #expect(byUnit.map { ($0["days"] as? NSNumber)?.intValue } == [20, 10])
            // Grouped by the relationship itself: the values are object IDs.
            let byObject = try fetch(context, "Employee") { request in
                request.propertiesToFetch = ["unit", try expression("n", "count:(name)")]
                request.propertiesToGroupBy = ["unit"]
            }
            #expect(byObject.count == 2)
            #expect(byObject.allSatisfy { $0["unit"] is ManagedObjectID })
            #expect(byObject.compactMap { ($0["n"] as? NSNumber)?.intValue }.sorted() == [3, 3])
            // Two keys, sorted by a fetched aggregate, descending.
            let twoKeys = try fetch(context, "Venue") { request in
                request.propertiesToFetch = ["category.name", "priceInfo.priceCategory", try expression("deals", "sum:(specialCount)")]
                request.propertiesToGroupBy = ["category.name", "priceInfo.priceCategory"]
                request.sortDescriptors = [ObjectSortDescriptor(key: "deals", ascending: false)]
            }
            #expect(twoKeys.map { ($0["deals"] as? NSNumber)?.intValue ?? -1 } == [7, 4, 3, 2, 1, 0])
            #expect(twoKeys.map { $0["category.name"] as? String } == ["Coffee", "Tea", "Tea", "Bakery", "Coffee", "Bakery"])
        }
    }

    @Test("havingPredicate by name, $variable and aggregate function", arguments: TestStack.Kind.allCases)
    func having(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for having in [
                ObjectPredicate(format: "headCount > 1"),
                ObjectPredicate(format: "$headCount > %@", 1),
                ObjectPredicate(format: "count:(name) >= 2"),
                ObjectPredicate(format: "%@ > 1", ObjectExpression(forVariable: "headCount")),
            ] {
                let rows = try fetch(context, "Employee") { request in
                    request.propertiesToFetch = ["department", try expression("headCount", "count:(department)")]
                    request.propertiesToGroupBy = ["department"]
                    request.havingPredicate = having
                }
                #expect(rows.map { $0["department"] as? String } == ["Engineering", "Sales"], "\(having)")
            }
            let rich = try fetch(context, "Employee") { request in
                request.propertiesToFetch = ["department"]
                request.propertiesToGroupBy = ["department"]
                request.havingPredicate = ObjectPredicate(format: "sum:(salary) > 3000 AND department != 'Support'")
            }
            #expect(rich.map { $0["department"] as? String } == ["Engineering", "Sales"])
        }
    }

    @Test("returnsDistinctResults, limits and offsets", arguments: TestStack.Kind.allCases)
    func distinct(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let categories = try fetch(context, "Venue") { request in
                request.propertiesToFetch = ["category.name"]
                request.returnsDistinctResults = true
            }
            #expect(categories.map { $0["category.name"] as? String } == ["Bakery", "Coffee", "Tea"])
            let pairs = try fetch(context, "Venue") { request in
                request.propertiesToFetch = ["priceInfo.priceCategory", "category.name"]
                request.returnsDistinctResults = true
                request.sortDescriptors = [ObjectSortDescriptor(key: "category.name", ascending: false)]
                request.fetchOffset = 1
                request.fetchLimit = 3
            }
            #expect(pairs.map { "\($0["category.name"] ?? "-")/\($0["priceInfo.priceCategory"] ?? "-")" } == ["Tea/$$", "Coffee/$", "Coffee/$$$"])
            let distances = try fetch(context, "Location") { request in
                request.propertiesToFetch = ["distance"]
                request.returnsDistinctResults = true
            }
            #expect(distances.count == 6)
        }
    }

    /// Core Data: "A value of YES is not supported in conjunction with the result type
    /// NSDictionaryResultType, including calculation of aggregate results (such as max and min).
    /// For dictionaries, the array returned from the fetch reflects the current state in the
    /// persistent store, and does not take into account any pending changes, insertions, or
    /// deletions in the context" (NSFetchRequest.includesPendingChanges). Strata matches that by
    /// default; `dictionaryResultsIncludePendingChanges` opts in to its in-memory overlay.
    @Test("dictionary results reflect the store, unless dictionaryResultsIncludePendingChanges opts in", arguments: TestStack.Kind.allCases)
    func pendingChanges(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(stack.model.entitiesByName["Venue"])
            let extra = ManagedObject(entity: entity, insertInto: context)
            extra.setValue("New", forKey: "name")
            extra.setValue(Int32(100), forKey: "specialCount")
            let zen = try #require(
                try context.fetch(
                    { () -> FetchRequest<ManagedObject> in
                        let request = FetchRequest<ManagedObject>(entityName: "Venue")
                        request.predicate = ObjectPredicate(format: "name == 'Zen Tea'")
                        return request
                    }()
                ).first)
            context.delete(zen)
            func total(_ pending: Bool, optIn: Bool, in context: ManagedObjectContext) throws -> Int? {
                try fetch(context, "Venue") { request in
                    request.propertiesToFetch = [try expression("total", "sum:(specialCount)")]
                    request.includesPendingChanges = pending
                    request.dictionaryResultsIncludePendingChanges = optIn
                }.first.flatMap { ($0["total"] as? NSNumber)?.intValue }
            }
            // The default, as Core Data: the saved rows only.
            #expect(try total(true, optIn: false, in: context) == 17)
            #expect(try total(false, optIn: false, in: context) == 17)
            #expect(try total(false, optIn: true, in: context) == 17)
            // The opt-in: the insert and the delete count.
            #expect(try total(true, optIn: true, in: context) == 17 + 100 - 4)
            // Plain rows follow the same rule.
            let names = try fetch(context, "Venue") { $0.propertiesToFetch = ["name"] }.compactMap { $0["name"] as? String }
            #expect(names.contains("Zen Tea") && !names.contains("New"))
            // A child context sees its parent's unsaved changes only with the opt-in.
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = context
            let childTotals = try child.performAndWait {
                (try total(true, optIn: false, in: child), try total(true, optIn: true, in: child))
            }
            #expect(childTotals.0 == 17)
            #expect(childTotals.1 == 113)
        }
    }

    @Test("mistakes are errors naming the entity and key")
    func errors() throws {
        let stack = try VenueFixture.stack(.sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            let toMany = try #require(throws: StrataError.self) {
                try fetch(context, "Category") { $0.propertiesToFetch = ["venues"] }
            }
            #expect(toMany.key == "venues")
            #expect(toMany.entityName == "Category")
            let ungrouped = try #require(throws: StrataError.self) {
                try fetch(context, "Employee") { request in
                    request.propertiesToFetch = ["name", try expression("n", "count:(name)")]
                }
            }
            #expect(ungrouped.key == "name")
            #expect(ungrouped.message.contains("propertiesToGroupBy"))
            let unknown = try #require(throws: StrataError.self) {
                try fetch(context, "Employee") { $0.propertiesToFetch = ["height"] }
            }
            #expect(unknown.key == "height")
            let sumOfText = try #require(throws: StrataError.self) {
                try fetch(context, "Employee") { $0.propertiesToFetch = [try expression("s", "sum:(name)")] }
            }
            #expect(sumOfText.message.contains("numbers"))
            let havingAlone = try #require(throws: StrataError.self) {
                try fetch(context, "Employee") { request in
                    request.propertiesToFetch = ["name"]
                    request.havingPredicate = ObjectPredicate(format: "name == 'x'")
                }
            }
            #expect(havingAlone.message.contains("propertiesToGroupBy"))
            let havingUngrouped = try #require(throws: StrataError.self) {
                try fetch(context, "Employee") { request in
                    request.propertiesToFetch = ["department"]
                    request.propertiesToGroupBy = ["department"]
                    request.havingPredicate = ObjectPredicate(format: "name == 'x'")
                }
            }
            #expect(havingUngrouped.key == "name")
            let unnamed = try #require(throws: StrataError.self) {
                try fetch(context, "Employee") { $0.propertiesToFetch = [ExpressionDescription()] }
            }
            #expect(unnamed.message.contains("no name"))
        }
    }
}
