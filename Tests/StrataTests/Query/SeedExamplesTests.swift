import Foundation
import Strata
import StrataTestSupport
import Testing

/// The fetch-request examples of published Core Data learning notes (on Core Data by Tutorials,
/// and "NSFetchRequest 神奇の存在"), ported to Strata and run on both store kinds.
@Suite("Seed examples")
struct SeedExamplesTests {
    @Test("count of venues with priceInfo.priceCategory == %@", arguments: TestStack.Kind.allCases)
    func cheapVenueCount(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let cheapVenuePredicate = ObjectPredicate(format: "priceInfo.priceCategory == %@", "$")
            // Method 1: a count result type.
            let fetchRequest = FetchRequest<NSNumber>(entityName: "Venue")
            fetchRequest.resultType = .countResultType
            fetchRequest.predicate = cheapVenuePredicate
            let results = try context.fetch(fetchRequest)
            #expect(results.count == 1)
            #expect(results.first?.intValue == 3)
            // Method 2: count(for:).
            let expensive = FetchRequest<ManagedObject>(entityName: "Venue")
            expensive.predicate = ObjectPredicate(format: "priceInfo.priceCategory == %@", "$$$")
            #expect(try context.count(for: expensive) == 2)
        }
    }

    @Test("sum: of specialCount as a dictionary result", arguments: TestStack.Kind.allCases)
    func sumOfDeals(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let fetchRequest = FetchRequest<NSDictionary>(entityName: "Venue")
            fetchRequest.resultType = .dictionaryResultType
            let sumExpressionDesc = ExpressionDescription()
            sumExpressionDesc.name = "sumDeals"
            let specialCountExp = ObjectExpression(forKeyPath: "specialCount")
            sumExpressionDesc.expression = ObjectExpression(forFunction: "sum:", arguments: [specialCountExp])
            sumExpressionDesc.expressionResultType = .integer32
            fetchRequest.propertiesToFetch = [sumExpressionDesc]
            let results = try context.fetch(fetchRequest)
            let resultDict = try #require(results.first)
            #expect(results.count == 1)
            #expect((resultDict["sumDeals"] as? NSNumber)?.intValue == 17)
            #expect(resultDict["sumDeals"] as? Int == 17)
        }
    }

    @Test("head count per department with propertiesToGroupBy", arguments: TestStack.Kind.allCases)
    func headCountPerDepartment(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let expressionDescription = ExpressionDescription()
            expressionDescription.name = "headCount"
            expressionDescription.expression = ObjectExpression(forFunction: "count:", arguments: [ObjectExpression(forKeyPath: "department")])
            let fetchRequest = FetchRequest<NSDictionary>(entityName: "Employee")
            fetchRequest.propertiesToFetch = ["department", expressionDescription]
            fetchRequest.propertiesToGroupBy = ["department"]
            fetchRequest.resultType = .dictionaryResultType
            let fetchResults = try context.fetch(fetchRequest)
            let pairs = fetchResults.map { ($0["department"] as? String ?? "?", ($0["headCount"] as? NSNumber)?.intValue ?? -1) }
            #expect(pairs.map(\.0) == ["Engineering", "Sales", "Support"])
            #expect(pairs.map(\.1) == [3, 2, 1])
        }
    }

    @Test("sorted by location.distance and by name with localized standard compare", arguments: TestStack.Kind.allCases)
    func sortDescriptors(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            let nameSortDescriptor = ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)
            let distanceSortDescriptor = ObjectSortDescriptor(key: "location.distance", ascending: true)
            func names(_ sorts: [ObjectSortDescriptor]) throws -> [String] {
                let fetchRequest = FetchRequest<ManagedObject>(entityName: "Venue")
                fetchRequest.sortDescriptors = sorts
                return try context.fetch(fetchRequest).compactMap { $0.value(forKey: "name") as? String }
            }
            #expect(try names([nameSortDescriptor]) == ["alpha", "boba guys", "Bubble Bee", "Café 2", "Café 10", "Émile's", "Zen Tea"])
            #expect(try names([nameSortDescriptor.reversedSortDescriptor]) == ["Zen Tea", "Émile's", "Café 10", "Café 2", "Bubble Bee", "boba guys", "alpha"])
            // Ties on distance (0.8) keep insertion (primary-key) order.
            #expect(try names([distanceSortDescriptor]) == ["boba guys", "Zen Tea", "Café 2", "Émile's", "Bubble Bee", "Café 10", "alpha"])
            #expect(try names([distanceSortDescriptor, nameSortDescriptor.reversedSortDescriptor]) == ["Zen Tea", "boba guys", "Café 2", "Émile's", "Bubble Bee", "Café 10", "alpha"])
        }
    }
}
