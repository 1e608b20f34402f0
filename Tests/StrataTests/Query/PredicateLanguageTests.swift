import Foundation
import Strata
import StrataTestSupport
import Testing

/// The language itself: builders, canonical descriptions, objects and object IDs as values,
/// `evaluate(with:)` on managed objects and dictionaries.
@Suite("Predicate language")
struct PredicateLanguageTests {
    @Test("builders and canonical descriptions")
    func builders() throws {
        let adults = ObjectPredicate(format: "age >= %@", 18)
        let member = ObjectPredicate(format: "isMember == YES")
        #expect(ObjectPredicate.or([adults, member]).description == "age >= 18 OR isMember == YES")
        #expect(ObjectPredicate.not(.and([adults, member])).description == "NOT (age >= 18 AND isMember == YES)")
        #expect(ObjectPredicate.and([]).description == "TRUEPREDICATE")
        #expect(ObjectPredicate.or([]).description == "FALSEPREDICATE")
        #expect(ObjectPredicate(value: false).description == "FALSEPREDICATE")
        #expect(ObjectPredicate.key("name", equals: "Ann").description == "name == \"Ann\"")
        let compared = ObjectPredicate.comparison(
            ObjectExpression(forKeyPath: "name"), .beginsWith, ObjectExpression(forConstantValue: "é"),
            options: [.caseInsensitive, .diacriticInsensitive])
        #expect(compared == ObjectPredicate(format: "name BEGINSWITH[cd] 'é'"))
        let none = ObjectPredicate.comparison(ObjectExpression(forKeyPath: "tags.label"), .equalTo, ObjectExpression(forConstantValue: "x"), modifier: .none)
        #expect(none.description == "NONE tags.label == \"x\"")
        #expect(ObjectPredicate(format: "a = 1 && !(b <> nil)").description == "a == 1 AND NOT b != nil")
        // Spellings parse to one canonical form.
        for (format, canonical) in [
            ("a =< 1 || b => 2", "a <= 1 OR b >= 2"),
            ("a IN %@", "a IN {1, 2}"),
            ("a between {1, 5}", "a BETWEEN {1, 5}"),
            ("SOME tags.weight > 1", "ANY tags.weight > 1"),
            ("#and == 'x'", "#and == \"x\""),
            ("name like[c] 'a*?'", "name LIKE[c] \"a*?\""),
            ("sum:(items.price) > 2.5", "sum:(items.price) > 2.5"),
            ("SUBQUERY(items, $i, $i.price > 3).@count == 0", "SUBQUERY(items, $i, $i.price > 3).@count == 0"),
            ("FUNCTION(a, 'modulus:by:', 7) == 1", "FUNCTION(a, \"modulus:by:\", 7) == 1"),
            ("a == -9223372036854775807 - 1", "a == (-9223372036854775807 - 1)"),
            ("d == CAST(0, 'NSDate')", "d == CAST(0.0, \"NSDate\")"),
        ] as [(String, String)] {
            let predicate = ObjectPredicate(format: format, argumentArray: [[1, 2]])
            #expect(predicate.description == canonical, "\(format)")
            #expect(try ObjectPredicate(validatingFormat: predicate.predicateFormat) == predicate, "\(format)")
        }
        // Every constant type prints back to itself.
        let values: [Any] = [
            Int64.min, Int64.max, -0.0, Double.infinity, Double.nan, Double.leastNonzeroMagnitude, 1e300, Decimal(string: "-12.3400") ?? 0, "q\"u\\o\nte\u{1}",
            Date(timeIntervalSinceReferenceDate: 12.5), Data([0, 1, 255]), UUID(), URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"),
            true, [1, 2] as [Int], Set(["x", "y"]),
        ]
        for value in values {
            let predicate = ObjectPredicate(format: "v == %@", value)
            #expect(predicate.syntaxError == nil, "\(value)")
            #expect(try ObjectPredicate(validatingFormat: predicate.predicateFormat) == predicate, "\(predicate)")
        }
    }

    @Test("objects and object IDs as values", arguments: TestStack.Kind.allCases)
    func objects(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            func venues(_ format: String, _ arguments: [Any]) throws -> [String] {
                let request = FetchRequest<ManagedObject>(entityName: "Venue")
                request.predicate = ObjectPredicate(format: format, argumentArray: arguments)
                request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
                return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
            }
            let categories = FetchRequest<ManagedObject>(entityName: "Category")
            categories.predicate = ObjectPredicate(format: "name == 'Coffee'")
            let coffee = try #require(try context.fetch(categories).first)
            #expect(try venues("category == %@", [coffee]) == ["Café 10", "Café 2"])
            #expect(try venues("category == %@", [coffee.objectID]) == ["Café 10", "Café 2"])
            #expect(try venues("category != %@ AND category.name BEGINSWITH 'T'", [coffee]) == ["Bubble Bee", "Zen Tea", "boba guys"])
            let bakeryVenues = try venues("category.name == 'Bakery'", [])
            #expect(bakeryVenues == ["alpha", "Émile's"])
            let objects = try context.fetch(
                { () -> FetchRequest<ManagedObject> in
                    let request = FetchRequest<ManagedObject>(entityName: "Venue")
                    request.predicate = ObjectPredicate(format: "category.name == 'Bakery'")
                    return request
                }())
            #expect(try venues("SELF IN %@", [objects]) == ["alpha", "Émile's"])
            #expect(try venues("NOT (SELF IN %@) AND specialCount > 3", [Set(objects)]) == ["Café 10", "Zen Tea"])
            #expect(try venues("ANY category.venues == %@", [objects[0]]).count == 2)
            // An unsaved object matches nothing stored, and itself in memory.
            let entity = try #require(stack.model.entitiesByName["Category"])
            let fresh = ManagedObject(entity: entity, insertInto: context)
            #expect(try venues("category == %@", [fresh]) == [])
        }
    }

    @Test("evaluate(with:) on managed objects and dictionaries")
    func evaluate() throws {
        let stack = try VenueFixture.stack(.inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Venue")
            request.predicate = ObjectPredicate(format: "name == 'Émile\\'s' AND name == %@", "Émile's")
            let emile = try #require(try context.fetch(request).first)
            #expect(ObjectPredicate(format: "name BEGINSWITH[cd] 'emi'").evaluate(with: emile))
            #expect(ObjectPredicate(format: "priceInfo.priceCategory == '$' AND location.distance < 10").evaluate(with: emile))
            #expect(ObjectPredicate(format: "ANY category.venues.name == 'alpha'").evaluate(with: emile))
            #expect(ObjectPredicate(format: "category.venues.@count == 2").evaluate(with: emile))
            #expect(!ObjectPredicate(format: "specialCount > 2").evaluate(with: emile))
        }
        let dictionary: [String: Any] = ["name": "Émile", "age": 41, "tags": ["a", "b"], "address": ["city": "Paris"], "score": Double.nan]
        #expect(ObjectPredicate(format: "name BEGINSWITH[cd] 'emi' AND age BETWEEN {40, 50}").evaluate(with: dictionary))
        #expect(ObjectPredicate(format: "address.city ==[c] 'PARIS'").evaluate(with: dictionary))
        #expect(ObjectPredicate(format: "ANY tags == 'b' AND tags.@count == 2").evaluate(with: dictionary))
        #expect(!ObjectPredicate(format: "score > 0 OR score < 0 OR score == 0").evaluate(with: dictionary))
        #expect(ObjectPredicate(format: "missing == nil").evaluate(with: dictionary))
        #expect(ObjectPredicate(format: "SELF BEGINSWITH 'ab'").evaluate(with: "abc"))
        #expect(ObjectPredicate(format: "SELF IN {1, 2, 3}").evaluate(with: 2))
    }
}
