import Foundation
import Strata
import StrataTestSupport
import Testing

/// The SQL the SQLite store runs for predicates, sorts and dictionary fetches: joins for to-one
/// paths, EXISTS for quantifiers, sub-selects for aggregates, Strata's functions and collations,
/// and every value bound (never pasted into the SQL text).
@Suite("Predicate SQL")
struct PredicateSQLTests {
    func statements(_ stack: TestStack, _ context: ManagedObjectContext, _ body: () throws -> Void) throws -> String {
        let recorder = stack.recordSQL()
        try context.performAndWait { _ = try recorder.statements(during: body) }
        return recorder.recorded.filter { $0.hasPrefix("SELECT") }.joined(separator: "\n")
    }

    @Test("predicates compile to joins, EXISTS, sub-selects, functions and collations with bound values")
    func predicateSQL() throws {
        let stack = try VenueFixture.stack(.sqlite)
        let context = stack.newContext()
        let cases: [(String, [Any], [String])] = [
            ("priceInfo.priceCategory == %@", ["$$$$"], ["LEFT JOIN \"ZPRICEINFO\"", " IS ?"]),
            ("specialCount > %@", [123_456], ["IS NOT NULL AND", "> ?"]),
            ("rating > %@", [4.25], ["typeof("]),
            ("name BEGINSWITH[cd] %@", ["zz-unique"], ["strata_match(1,", ", ?, 3)"]),
            ("name ==[cd] %@", ["zz-unique"], ["COLLATE STRATA_FOLD_CD IS ?"]),
            ("price < %@", [Decimal(string: "98.7", locale: Locale(identifier: "en_US_POSIX")) ?? 0], ["COLLATE STRATA_DECIMAL <"]),
            ("ANY category.venues.name == %@", ["zz-unique"], ["EXISTS (SELECT 1 FROM"]),
            ("ALL category.venues.specialCount > %@", [424_242], ["NOT EXISTS", "(NOT"]),
            ("category.venues.@sum.price > %@", [777], ["strata_dsum("]),
            ("category.venues.@count > %@", [31_337], ["SELECT COUNT(*) FROM"]),
            // Integer + - * is SQLite's own arithmetic (the same rules as the registered
            // function); anything else calls the function.
            ("specialCount + %@ > 3", [55_555], ["(t0.\"ZSPECIALCOUNT\" + ?)"]),
            ("specialCount / %@ > 3", [55_555], ["strata_fn("]),
            ("name IN %@", [["zz-a", "zz-b"]], ["IN (?, ?)"]),
        ]
        for (format, arguments, fragments) in cases {
            let sql = try statements(stack, context) {
                let request = FetchRequest<ManagedObjectID>(entityName: "Venue")
                request.resultType = .managedObjectIDResultType
                request.predicate = ObjectPredicate(format: format, argumentArray: arguments)
                _ = try context.fetch(request)
            }
            for fragment in fragments { #expect(sql.contains(fragment), "\(format): \(sql)") }
            // The values are parameters, not SQL text.
            let values: [Any] = arguments.flatMap { argument -> [Any] in (argument as? [String]).map { $0 } ?? [argument] }
            for argument in values {
                #expect(!sql.contains("\(argument)"), "\(format) pasted \(argument): \(sql)")
            }
        }
        let sorted = try statements(stack, context) {
            let request = FetchRequest<ManagedObjectID>(entityName: "Venue")
            request.resultType = .managedObjectIDResultType
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)]
            request.fetchLimit = 3
            _ = try context.fetch(request)
        }
        #expect(sorted.contains("ORDER BY t0.\"ZNAME\" COLLATE STRATA_LOCALIZED ASC, t0.Z_PK ASC LIMIT ? OFFSET ?"), "\(sorted)")
    }

    @Test("a dictionary fetch is one SELECT with GROUP BY, HAVING and ORDER BY")
    func dictionarySQL() throws {
        let stack = try VenueFixture.stack(.sqlite)
        let context = stack.newContext()
        let sql = try statements(stack, context) {
            let request = FetchRequest<NSDictionary>(entityName: "Employee")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["department", ExpressionDescription(name: "payroll", expression: try ObjectExpression(validatingFormat: "sum:(salary)"))]
            request.propertiesToGroupBy = ["department"]
            request.havingPredicate = ObjectPredicate(format: "payroll > %@", 31_415)
            request.returnsDistinctResults = true
            _ = try context.fetch(request)
        }
        #expect(sql.components(separatedBy: "\n").count == 1)
        for fragment in ["SELECT DISTINCT", "strata_dsum(", "GROUP BY", "HAVING", "ORDER BY"] {
            #expect(sql.contains(fragment), "\(sql)")
        }
        #expect(!sql.contains("31415"))
    }
}
