import Foundation
import Strata
import StrataTestSupport
import Testing

/// `evaluate(with:)` on managed objects (faults, realized objects, unsaved objects and unsaved
/// edits) selects what a fetch selects, on both store kinds: aggregates over to-many key paths
/// and `MATCHES` on text with line breaks.
@Suite("Predicate evaluation on objects")
struct PredicateEvaluationTests {
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let tag = EntityDescription(name: "Tag")
        item.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "text", type: .string),
            {
                let scratch = AttributeDescription(name: "scratch", type: .integer64)
                scratch.isTransient = true
                return scratch
            }(),
            RelationshipDescription(name: "tags", destination: tag, inverse: "item", toMany: true),
        ]
        tag.properties = [
            AttributeDescription(name: "weight", type: .integer64),
            AttributeDescription(name: "ratio", type: .double),
            AttributeDescription(name: "amount", type: .decimal),
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "item", destination: item, inverse: "tags"),
        ]
        return ManagedObjectModel(entities: [item, tag])
    }

    /// Tags per item: (weight, ratio, amount, label); nil values are left unset.
    typealias TagValues = (weight: Int64?, ratio: Double?, amount: String?, label: String?)
    static let fixture: [(name: String, tags: [TagValues])] = [
        ("A", [(5, 0.5, "1.25", "b"), (6, 2.5, "1.25", "a")]),  // sum 11, max 6, avg 5.5
        ("B", [(11, nil, "0.1", "c")]),  // sum 11, max 11
        ("C", []),  // no tags: sum 0, avg/min/max nil, count 0
        ("D", [(5, 1.0, nil, "b"), (5, 1.0, nil, "b")]),  // equal values count twice: sum 10
        ("E", [(nil, nil, nil, nil)]),  // one tag, all nil: sum 0, max nil, count 1
        ("F", [(Int64.max, -1.5, "-2", "z"), (1, nil, nil, "a")]),  // overflowing sum: a double
    ]

    /// Aggregate predicates and the items they select (by the Core Data rules: `@sum` of nothing
    /// is 0; `@avg`, `@min`, `@max` of nothing are nil; nil values are skipped; `@count` counts
    /// members).
    static let aggregateCases: [(format: String, expected: Set<String>)] = [
        ("tags.@sum.weight > 10", ["A", "B", "F"]),
        ("tags.@max.weight == 11", ["B"]),
        ("tags.@sum.weight == 11", ["A", "B"]),
        ("tags.@sum.weight == 10", ["D"]),
        ("tags.@sum.weight == 0", ["C", "E"]),
        ("tags.@sum.weight > 9223372036854775807", ["F"]),
        ("tags.@avg.weight == 5.5", ["A"]),
        ("tags.@avg.weight == nil", ["C", "E"]),
        ("tags.@avg.weight == 0", []),
        ("tags.@min.weight == 5", ["A", "D"]),
        ("tags.@min.weight == nil", ["C", "E"]),
        ("tags.@max.weight == nil", ["C", "E"]),
        ("tags.@max.weight != nil AND tags.@max.weight < 10", ["A", "D"]),
        ("tags.@count == 0", ["C"]),
        ("tags.@count == 1", ["B", "E"]),
        ("tags.@count == 2", ["A", "D", "F"]),
        ("tags.@sum.ratio == 3.0", ["A"]),
        ("tags.@sum.ratio == 0", ["B", "C", "E"]),
        ("tags.@avg.ratio == 1.5", ["A"]),
        ("tags.@max.ratio > 1", ["A"]),
        ("tags.@min.ratio < 0", ["F"]),
        ("tags.@sum.amount == 2.5", ["A"]),
        ("tags.@max.amount == 0.1", ["B"]),
        ("tags.@min.amount < 0", ["F"]),
        ("tags.@max.label == 'c'", ["B"]),
        ("tags.@min.label == 'a'", ["A", "F"]),
        ("sum:(tags.weight) == 11 AND count:(tags) == 1", ["B"]),
        ("tags.@sum.weight > 10 AND NOT (tags.@max.weight == 11)", ["A", "F"]),
    ]

    static func populate(_ context: ManagedObjectContext, _ model: ManagedObjectModel) throws {
        let itemEntity = try #require(model.entitiesByName["Item"])
        let tagEntity = try #require(model.entitiesByName["Tag"])
        for (name, tags) in fixture {
            let item = ManagedObject(entity: itemEntity, insertInto: context)
            item.setValue(name, forKey: "name")
            for values in tags {
                let tag = ManagedObject(entity: tagEntity, insertInto: context)
                tag.setValue(values.weight, forKey: "weight")
                tag.setValue(values.ratio, forKey: "ratio")
                tag.setValue(values.amount.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }, forKey: "amount")
                tag.setValue(values.label, forKey: "label")
                tag.setValue(item, forKey: "item")
            }
        }
    }

    static func items(_ context: ManagedObjectContext, predicate: ObjectPredicate? = nil, asFaults: Bool = true) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = predicate
        request.returnsObjectsAsFaults = asFaults
        return try context.fetch(request)
    }

    static func names(_ objects: [ManagedObject], matching predicate: ObjectPredicate) -> Set<String> {
        Set(objects.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String })
    }

    @Test("aggregates over a to-many: evaluate(with:) on faults, realized and unsaved objects agrees with the fetch", arguments: TestStack.Kind.allCases)
    func aggregates(kind: TestStack.Kind) throws {
        let model = Self.model()
        let stack = try TestStack(model: model, kind: kind)
        // Unsaved objects (the context has never saved).
        let unsaved = stack.newContext(name: "unsaved")
        try unsaved.performAndWait {
            try Self.populate(unsaved, model)
            let objects = try Self.items(unsaved)
            #expect(objects.count == Self.fixture.count)
            for (format, expected) in Self.aggregateCases {
                let predicate = ObjectPredicate(format: format)
                #expect(Self.names(objects, matching: predicate) == expected, "unsaved, \(kind): \(format)")
                // A fetch over the unsaved objects selects the same.
                let fetched = Set(try Self.items(unsaved, predicate: predicate).compactMap { $0.value(forKey: "name") as? String })
                #expect(fetched == expected, "fetch over unsaved objects, \(kind): \(format)")
            }
            try unsaved.save()
        }
        for format in Self.aggregateCases.map(\.format) {
            // Each predicate on objects that are faults, with their to-many not loaded.
            let context = stack.newContext(name: "faults")
            try context.performAndWait {
                let predicate = ObjectPredicate(format: format)
                let expected = Set(Self.aggregateCases.first { $0.format == format }?.expected ?? [])
                let fetched = Set(try Self.items(context, predicate: predicate).compactMap { $0.value(forKey: "name") as? String })
                #expect(fetched == expected, "fetch, \(kind): \(format)")
                context.reset()
                let faults = try Self.items(context, asFaults: true)
                #expect(faults.allSatisfy { $0.isFault }, "\(kind)")
                var matched: Set<String> = []
                for object in faults where predicate.evaluate(with: object) {
                    matched.insert(object.value(forKey: "name") as? String ?? "?")
                }
                #expect(matched == expected, "faults, \(kind): \(format)")
                // The same objects, now realized with their tags loaded.
                for object in faults { _ = (object.value(forKey: "tags") as? Set<ManagedObject>)?.map { $0.value(forKey: "weight") } }
                #expect(Self.names(faults, matching: predicate) == expected, "realized, \(kind): \(format)")
                // Turned back into faults.
                for object in faults { context.refresh(object, mergeChanges: false) }
                #expect(Self.names(faults, matching: predicate) == expected, "refreshed, \(kind): \(format)")
            }
        }
        // Unsaved edits to fetched objects count: C gains a tag of weight 11; A loses its 6.
        let edited = stack.newContext(name: "edited")
        try edited.performAndWait {
            let objects = try Self.items(edited, asFaults: false)
            let byName = Dictionary(uniqueKeysWithValues: objects.map { ($0.value(forKey: "name") as? String ?? "?", $0) })
            let tagEntity = try #require(model.entitiesByName["Tag"])
            let tag = ManagedObject(entity: tagEntity, insertInto: edited)
            tag.setValue(Int64(11), forKey: "weight")
            let c: ManagedObject = try #require(byName["C"])
            tag.setValue(c, forKey: "item")
            let a = try #require(byName["A"])
            let six = try #require((a.value(forKey: "tags") as? Set<ManagedObject>)?.first { $0.value(forKey: "weight") as? Int64 == 6 })
            edited.delete(six)
            a.mutableSetValue(forKey: "tags").remove(six)
            let predicate = ObjectPredicate(format: "tags.@max.weight == 11")
            #expect(Self.names(objects, matching: predicate) == ["B", "C"], "\(kind)")
            #expect(Self.names(objects, matching: ObjectPredicate(format: "tags.@sum.weight == 5")) == ["A"], "\(kind)")
            let fetched = Set(try Self.items(edited, predicate: predicate).compactMap { $0.value(forKey: "name") as? String })
            #expect(fetched == ["B", "C"], "fetch with pending changes, \(kind)")
        }
    }

    @Test("evaluate(with:) on a managed object: the errors a fetch throws, transient attributes by key-value coding")
    func managedObjectErrors() throws {
        let model = Self.model()
        let stack = try TestStack(model: model, kind: .inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.populate(context, model)
            let objects = try Self.items(context)
            let b = try #require(objects.first { $0.value(forKey: "name") as? String == "B" })
            // A key the entity lacks and a type mismatch throw as in a fetch (and are false).
            #expect(throws: StrataError.self) { try ObjectPredicate(format: "height > 2").evaluate(throwingWith: b) }
            #expect(throws: StrataError.self) { try ObjectPredicate(format: "name > 3").evaluate(throwingWith: b) }
            #expect(!ObjectPredicate(format: "tags.@sum.label > 3").evaluate(with: b))
            // Substitution variables.
            #expect(try ObjectPredicate(format: "tags.@sum.weight == $W").evaluate(throwingWith: b, substitutionVariables: ["W": 11]))
            #expect(try !ObjectPredicate(format: "tags.@sum.weight == $W").evaluate(throwingWith: b, substitutionVariables: ["W": 12]))
            // A fetch cannot read a transient attribute; evaluate(with:) still can.
            b.setValue(Int64(7), forKey: "scratch")
            #expect(ObjectPredicate(format: "scratch == 7 AND tags.@sum.weight == 11").evaluate(with: b))
            #expect(!ObjectPredicate(format: "scratch == 8").evaluate(with: b))
            // One predicate on objects of two entities: each is resolved against its own.
            let tagB = try #require((b.value(forKey: "tags") as? Set<ManagedObject>)?.first)
            let onTags = ObjectPredicate(format: "weight == 11 AND item.name == 'B'")
            #expect(try onTags.evaluate(throwingWith: tagB))
            #expect(throws: StrataError.self) { try onTags.evaluate(throwingWith: b) }
            #expect(try onTags.evaluate(throwingWith: tagB))
            let allTags = objects.flatMap { Array(($0.value(forKey: "tags") as? Set<ManagedObject>) ?? []) }
            let otherTag = try #require(allTags.first { $0.value(forKey: "weight") as? Int64 == 5 })
            #expect(try !onTags.evaluate(throwingWith: otherTag))
            // `now()` is read at each evaluation, not when the predicate was first resolved.
            #expect(ObjectPredicate(format: "now() > %@ AND tags.@count == 1", Date(timeIntervalSinceNow: -60)).evaluate(with: b))
            // Aggregates over collections that are not a managed object's relationship.
            let tags = try #require(b.value(forKey: "tags") as? Set<ManagedObject>)
            #expect(ObjectPredicate(format: "SELF.@sum.weight == 11 AND SELF.@count == 1").evaluate(with: tags))
            let d = try #require(objects.first { $0.value(forKey: "name") as? String == "D" })
            let dTags = try #require(d.value(forKey: "tags") as? Set<ManagedObject>)
            #expect(ObjectPredicate(format: "SELF.@sum.weight == 10 AND SELF.@max.weight == 5").evaluate(with: dTags))
        }
        let order: [String: Any] = ["lines": [["price": 3, "qty": 2], ["price": 4], ["price": 3]], "empty": [[String: Any]]()]
        #expect(ObjectPredicate(format: "lines.@sum.price == 10 AND lines.@max.price == 4 AND lines.@min.price == 3").evaluate(with: order))
        #expect(ObjectPredicate(format: "lines.@count == 3 AND lines.@sum.qty == 2 AND lines.@avg.qty == 2").evaluate(with: order))
        #expect(ObjectPredicate(format: "empty.@sum.price == 0 AND empty.@avg.price == nil AND empty.@max.price == nil AND empty.@count == 0").evaluate(with: order))
    }

    // MARK: MATCHES

    static let texts: [String] = ["line\nbreak", "one line", "abc\n", "ab\ncd", "ab", "x\r\ny", "Line\nBreak"]

    /// Patterns (passed as arguments, so `\n` is the regular expression's escape) and the texts
    /// they match: the whole text must match; `^`/`$` also match at line breaks; `.` matches a
    /// line break.
    static let matchCases: [(pattern: String, options: String, expected: Set<String>)] = [
        ("line.break", "", ["line\nbreak"]),
        ("line", "", []),
        (".*", "", Set(texts)),
        ("line$\\n^break", "", ["line\nbreak"]),
        ("^line$.^break$", "", ["line\nbreak"]),
        ("abc$", "", []),
        ("abc$\\n", "", ["abc\n"]),
        ("abc.", "", ["abc\n"]),
        ("ab$|ab\\ncd", "", ["ab\ncd", "ab"]),
        ("a|ab", "", ["ab"]),
        ("[a-z]+$\\n^[a-z]+", "", ["line\nbreak", "ab\ncd"]),
        ("x.*y", "", ["x\r\ny"]),
        ("line.break", "[c]", ["line\nbreak", "Line\nBreak"]),
        ("(?-s)line.break", "", []),
        ("(?-m)line$\\nbreak", "", []),
    ]

    @Test("MATCHES: ^ and $ match at line breaks, . matches a line break, the whole string must match", arguments: TestStack.Kind.allCases)
    func matchesWithLineBreaks(kind: TestStack.Kind) throws {
        let model = Self.model()
        let stack = try TestStack(model: model, kind: kind)
        let itemEntity = try #require(model.entitiesByName["Item"])
        let setup = stack.newContext()
        try setup.performAndWait {
            for text in Self.texts {
                let item = ManagedObject(entity: itemEntity, insertInto: setup)
                item.setValue(text, forKey: "name")
                item.setValue(text, forKey: "text")
            }
            // Before saving: a fetch over the unsaved objects and evaluate(with:) on them.
            let unsaved = try Self.items(setup)
            for (pattern, options, expected) in Self.matchCases {
                let predicate = ObjectPredicate(format: "text MATCHES\(options) %@", pattern)
                #expect(Self.names(unsaved, matching: predicate) == expected, "unsaved, \(kind): \(pattern)")
                let fetched = Set(try Self.items(setup, predicate: predicate).compactMap { $0.value(forKey: "text") as? String })
                #expect(fetched == expected, "fetch over unsaved objects, \(kind): \(pattern)")
            }
            try setup.save()
        }
        let context = stack.newContext()
        try context.performAndWait {
            let objects = try Self.items(context)
            for (pattern, options, expected) in Self.matchCases {
                let predicate = ObjectPredicate(format: "text MATCHES\(options) %@", pattern)
                // The store's engine (SQL for SQLite).
                let fetched = Set(try Self.items(context, predicate: predicate).compactMap { $0.value(forKey: "text") as? String })
                #expect(fetched == expected, "fetch, \(kind): \(pattern)")
                #expect(Self.names(objects, matching: predicate) == expected, "evaluate(with:), \(kind): \(pattern)")
                // Plain strings as SELF.
                #expect(Set(Self.texts.filter { ObjectPredicate(format: "SELF MATCHES\(options) %@", pattern).evaluate(with: $0) }) == expected, "SELF, \(kind): \(pattern)")
            }
        }
    }

    @Test("an attribute's regularExpression validates as MATCHES does")
    func regularExpressionValidation() throws {
        let model = ManagedObjectModel(entities: [
            {
                let entity = EntityDescription(name: "Note")
                let body = AttributeDescription(name: "body", type: .string)
                body.regularExpression = "^[a-z]+$\\n^[a-z]+$"
                entity.properties = [body]
                return entity
            }()
        ])
        let stack = try TestStack(model: model, kind: .inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(model.entitiesByName["Note"])
            let note = ManagedObject(entity: entity, insertInto: context)
            note.setValue("two\nlines", forKey: "body")
            try context.save()
            note.setValue("one line", forKey: "body")
            #expect(throws: StrataError.self) { try context.save() }
        }
    }
}
