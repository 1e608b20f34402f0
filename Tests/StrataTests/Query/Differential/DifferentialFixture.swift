import Foundation
import Strata
import StrataTestSupport

/// The model and data of the differential tests: `Item` rows with one attribute of every
/// comparable type, a to-one chain `group.region`, a one-to-many `tags` and a many-to-many
/// `links`. Values are drawn from pools full of edge cases: NULLs, accents (composed and
/// decomposed), mixed case, emoji, Int64 limits, ±infinity, -0.0, NaN, tiny and huge doubles
/// and decimals.
enum DifferentialFixture {
    static let itemCount = 2_000
    static let groupCount = 400
    static let regionCount = 8

    static func model() -> ManagedObjectModel {
        let region = EntityDescription(name: "Region")
        let group = EntityDescription(name: "Group")
        let item = EntityDescription(name: "Item")
        let tag = EntityDescription(name: "Tag")
        region.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "code", type: .integer32),
            RelationshipDescription(name: "groups", destination: group, inverse: "region", toMany: true),
        ]
        group.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "rank", type: .integer64),
            AttributeDescription(name: "score", type: .double),
            RelationshipDescription(name: "region", destination: region, inverse: "groups"),
            RelationshipDescription(name: "items", destination: item, inverse: "group", toMany: true),
        ]
        item.properties = [
            AttributeDescription(name: "idx", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "i16", type: .integer16),
            AttributeDescription(name: "i32", type: .integer32),
            AttributeDescription(name: "i64", type: .integer64),
            AttributeDescription(name: "dbl", type: .double),
            AttributeDescription(name: "flt", type: .float),
            AttributeDescription(name: "dec", type: .decimal),
            AttributeDescription(name: "str", type: .string),
            AttributeDescription(name: "alt", type: .string),
            AttributeDescription(name: "flag", type: .boolean),
            AttributeDescription(name: "day", type: .date),
            RelationshipDescription(name: "group", destination: group, inverse: "items"),
            RelationshipDescription(name: "tags", destination: tag, inverse: "item", toMany: true),
            RelationshipDescription(name: "links", destination: tag, inverse: "linkedBy", toMany: true),
        ]
        tag.properties = [
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "weight", type: .integer64),
            AttributeDescription(name: "ratio", type: .double),
            AttributeDescription(name: "amount", type: .decimal),
            RelationshipDescription(name: "item", destination: item, inverse: "tags"),
            RelationshipDescription(name: "linkedBy", destination: item, inverse: "links", toMany: true),
        ]
        return ManagedObjectModel(entities: [region, group, item, tag])
    }

    // MARK: Value pools (shared by the data and the predicate generator)

    static let strings: [String] = [
        "", " ", "a", "A", "ab", "abc", "ABC", "Abc", "abd", "b", "B", "z", "Z", "émile", "Émile", "EMILE", "emile",
        "e\u{301}mile", "E\u{301}MILE", "straße", "STRASSE", "strasse", "ﬁle", "file", "FILE", "file2", "file10", "File02",
        "naïve", "NAÏVE", "naive", "😀", "a😀b", "😀😀", "👍🏽", "日本語", "日本", "Ǆ", "ǅ", "ǆ", "İstanbul", "istanbul",
        "ß", "ẞ", "x%y", "x_y", "a*b", "a?c", "\\", "'", "\"", "O'Brien", "tab\there", "line\nbreak", "Ωmega", "ωmega",
        "ÅNGSTRÖM", "ångström", "ça", "ÇA", "résumé", "RESUME", "café", "cafe\u{301}", "Zoë", "ZOE", "0", "10", "9", "-1",
    ]

    static let int64s: [Int64] = [
        0, 1, -1, 2, 7, 42, -42, 100, 1000, -1000, 32767, -32768, 2_147_483_647, -2_147_483_648,
        Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 9_007_199_254_740_992, 9_007_199_254_740_993,
        -9_007_199_254_740_993,
    ]

    static let doubles: [Double] = [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.1, 2.5, 42.0, 100.25, 1e-300, -1e-300, Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, 1e300, -1e300,
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.infinity, -Double.infinity,
        9_007_199_254_740_992.0, 9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 9_223_372_036_854_774_784.0,
        2_147_483_647.0, 32767.5, 1e16, 1e-7,
    ]

    static let floats: [Float] = [0, -0.0, 1.5, -2.25, 0.1, Float.greatestFiniteMagnitude, Float.leastNonzeroMagnitude, .infinity, -.infinity, 16_777_216]

    static let decimalTexts: [String] = [
        "0", "1", "-1", "0.1", "0.25", "2.5", "42", "-42.5", "0.33333333333333333333333333333333333333",
        "123456789012345678901234567890123456789", "-98765432109876543210987654321", "1e100", "-1e100", "1e-100",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "0.000001",
    ]

    static let decimals: [Decimal] = decimalTexts.compactMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }

    static let dates: [Date] = [
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1), Date(timeIntervalSinceReferenceDate: 1),
        Date(timeIntervalSinceReferenceDate: 86_400.5), Date(timeIntervalSinceReferenceDate: 700_000_000),
        Date(timeIntervalSinceReferenceDate: -978_307_200), Date.distantPast, Date.distantFuture,
    ]

    static let labels: [String] = ["red", "Red", "RÉD", "réd", "green", "blue", "😀", "", "b\u{301}lue", "Straße", "x"]

    // MARK: Data

    /// Inserts the fixture's objects into `context` (not saved). The same seed gives the same
    /// objects in the same order, so two stores filled from it get the same primary keys.
    static func populate(_ context: ManagedObjectContext, model: ManagedObjectModel, seed: UInt64) throws {
        var random = QueryRandom(seed: seed ^ 0x5EED_DA7A)
        guard let regionEntity = model.entitiesByName["Region"], let groupEntity = model.entitiesByName["Group"],
            let itemEntity = model.entitiesByName["Item"], let tagEntity = model.entitiesByName["Tag"]
        else { throw StrataError(code: StrataError.Code.coreData, message: "fixture model is incomplete") }
        var regions: [ManagedObject] = []
        for index in 0..<regionCount {
            let region = ManagedObject(entity: regionEntity, insertInto: context)
            region.setValue(index == 0 ? nil : random.pick(strings), forKey: "name")
            region.setValue(index == 1 ? nil : Int32(random.int(-3...3)), forKey: "code")
            regions.append(region)
        }
        var groups: [ManagedObject] = []
        for index in 0..<groupCount {
            let group = ManagedObject(entity: groupEntity, insertInto: context)
            group.setValue(random.chance(0.1) ? nil : random.pick(strings), forKey: "name")
            group.setValue(random.chance(0.1) ? nil : random.pick(int64s + [3, 4, 5]), forKey: "rank")
            group.setValue(random.chance(0.1) ? nil : random.pick(doubles), forKey: "score")
            group.setValue(index % 7 == 0 ? nil : random.pick(regions), forKey: "region")
            groups.append(group)
        }
        var tags: [ManagedObject] = []
        for index in 0..<itemCount {
            let item = ManagedObject(entity: itemEntity, insertInto: context)
            item.setValue(Int64(index), forKey: "idx")
            item.setValue(
                random.chance(0.15)
                    ? nil : Int16(truncatingIfNeeded: random.pick(int64s.filter { $0 >= -32768 && $0 <= 32767 } + [Int64(Int16.min)] + (0..<10).map { _ in Int64(random.int(-50...50)) })),
                forKey: "i16")
            item.setValue(
                random.chance(0.15) ? nil : Int32(random.pick(int64s.filter { $0 >= Int64(Int32.min) && $0 <= Int64(Int32.max) } + (0..<10).map { _ in Int64(random.int(-50...50)) })), forKey: "i32")
            item.setValue(random.chance(0.15) ? nil : random.pick(int64s + (0..<10).map { _ in Int64(random.int(-50...50)) }), forKey: "i64")
            let double: Double? = random.chance(0.15) ? nil : (random.chance(0.03) ? .nan : random.pick(doubles + (0..<10).map { _ in Double(random.int(-400...400)) / 4 }))
            item.setValue(double, forKey: "dbl")
            item.setValue(random.chance(0.15) ? nil : random.pick(floats), forKey: "flt")
            item.setValue(random.chance(0.15) ? nil : random.pick(decimals), forKey: "dec")
            item.setValue(random.chance(0.12) ? nil : random.pick(strings), forKey: "str")
            item.setValue(random.chance(0.3) ? nil : random.pick(strings), forKey: "alt")
            item.setValue(random.chance(0.1) ? nil : random.chance(0.5), forKey: "flag")
            item.setValue(random.chance(0.2) ? nil : random.pick(dates), forKey: "day")
            item.setValue(random.chance(0.12) ? nil : random.pick(groups), forKey: "group")
            for _ in 0..<random.int(0...3) {
                let tag = ManagedObject(entity: tagEntity, insertInto: context)
                tag.setValue(random.chance(0.1) ? nil : random.pick(labels), forKey: "label")
                tag.setValue(random.chance(0.1) ? nil : random.pick([Int64(0), 1, 2, 5, 10, -3, 100, Int64.max, Int64.min]), forKey: "weight")
                tag.setValue(random.chance(0.1) ? nil : random.pick([0.0, -0.0, 0.5, 1.5, -2.0, 1e300, .infinity, 3.25]), forKey: "ratio")
                tag.setValue(random.chance(0.1) ? nil : random.pick(decimals), forKey: "amount")
                tag.setValue(item, forKey: "item")
                tags.append(tag)
            }
            if !tags.isEmpty && random.chance(0.5) {
                var linked = Set<ManagedObject>()
                for _ in 0..<random.int(1...3) { linked.insert(random.pick(tags)) }
                item.setValue(linked, forKey: "links")
            }
        }
    }
}
