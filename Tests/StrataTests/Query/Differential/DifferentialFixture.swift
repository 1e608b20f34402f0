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

    /// A region as plain values.
    struct Region {
        var name: String?
        var code: Int32?
    }

    /// A group as plain values; `region` indexes ``Data/regions``.
    struct Group {
        var name: String?
        var rank: Int64?
        var score: Double?
        var region: Int?
    }

    /// A tag as plain values.
    struct Tag {
        var label: String?
        var weight: Int64?
        var ratio: Double?
        var amount: Decimal?
    }

    /// An item as plain values; `group` indexes ``Data/groups``, `tags` and `links` index
    /// ``Data/tags``.
    struct Item {
        var idx: Int64
        var i16: Int16?
        var i32: Int32?
        var i64: Int64?
        var dbl: Double?
        var flt: Float?
        var dec: Decimal?
        var str: String?
        var alt: String?
        var flag: Bool?
        var day: Date?
        var group: Int?
        var tags: [Int] = []
        var links: Set<Int> = []
    }

    /// The fixture's data as plain Swift values, from which the stores are filled and from which
    /// the reference evaluator (`ReferencePredicates.swift`) computes its answers without Strata.
    struct Data {
        var regions: [Region] = []
        var groups: [Group] = []
        var items: [Item] = []
        var tags: [Tag] = []
    }

    /// The data for `seed`: the same seed gives the same data.
    static func data(seed: UInt64) -> Data {
        var random = QueryRandom(seed: seed ^ 0x5EED_DA7A)
        var data = Data()
        for index in 0..<regionCount {
            let name = index == 0 ? nil : random.pick(strings)
            let code = index == 1 ? nil : Int32(random.int(-3...3))
            data.regions.append(Region(name: name, code: code))
        }
        let regionIndexes = Array(0..<regionCount)
        for index in 0..<groupCount {
            let name = random.chance(0.1) ? nil : random.pick(strings)
            let rank = random.chance(0.1) ? nil : random.pick(int64s + [3, 4, 5])
            let score = random.chance(0.1) ? nil : random.pick(doubles)
            let region = index % 7 == 0 ? nil : random.pick(regionIndexes)
            data.groups.append(Group(name: name, rank: rank, score: score, region: region))
        }
        let groupIndexes = Array(0..<groupCount)
        for index in 0..<itemCount {
            var item = Item(idx: Int64(index))
            item.i16 =
                random.chance(0.15)
                ? nil : Int16(truncatingIfNeeded: random.pick(int64s.filter { $0 >= -32768 && $0 <= 32767 } + [Int64(Int16.min)] + (0..<10).map { _ in Int64(random.int(-50...50)) }))
            item.i32 = random.chance(0.15) ? nil : Int32(random.pick(int64s.filter { $0 >= Int64(Int32.min) && $0 <= Int64(Int32.max) } + (0..<10).map { _ in Int64(random.int(-50...50)) }))
            item.i64 = random.chance(0.15) ? nil : random.pick(int64s + (0..<10).map { _ in Int64(random.int(-50...50)) })
            item.dbl = random.chance(0.15) ? nil : (random.chance(0.03) ? .nan : random.pick(doubles + (0..<10).map { _ in Double(random.int(-400...400)) / 4 }))
            item.flt = random.chance(0.15) ? nil : random.pick(floats)
            item.dec = random.chance(0.15) ? nil : random.pick(decimals)
            item.str = random.chance(0.12) ? nil : random.pick(strings)
            item.alt = random.chance(0.3) ? nil : random.pick(strings)
            item.flag = random.chance(0.1) ? nil : random.chance(0.5)
            item.day = random.chance(0.2) ? nil : random.pick(dates)
            item.group = random.chance(0.12) ? nil : random.pick(groupIndexes)
            for _ in 0..<random.int(0...3) {
                var tag = Tag()
                tag.label = random.chance(0.1) ? nil : random.pick(labels)
                tag.weight = random.chance(0.1) ? nil : random.pick([Int64(0), 1, 2, 5, 10, -3, 100, Int64.max, Int64.min])
                tag.ratio = random.chance(0.1) ? nil : random.pick([0.0, -0.0, 0.5, 1.5, -2.0, 1e300, .infinity, 3.25])
                tag.amount = random.chance(0.1) ? nil : random.pick(decimals)
                item.tags.append(data.tags.count)
                data.tags.append(tag)
            }
            if !data.tags.isEmpty && random.chance(0.5) {
                let tagIndexes = Array(data.tags.indices)
                for _ in 0..<random.int(1...3) { item.links.insert(random.pick(tagIndexes)) }
            }
            data.items.append(item)
        }
        return data
    }

    /// Inserts `data`'s objects into `context` (not saved), in a fixed order, so two stores
    /// filled from the same data give their objects the same primary keys (an item's is its
    /// `idx` + 1).
    static func populate(_ context: ManagedObjectContext, model: ManagedObjectModel, data: Data) throws {
        guard let regionEntity = model.entitiesByName["Region"], let groupEntity = model.entitiesByName["Group"],
            let itemEntity = model.entitiesByName["Item"], let tagEntity = model.entitiesByName["Tag"]
        else { throw StrataError(code: StrataError.Code.coreData, message: "fixture model is incomplete") }
        var regions: [ManagedObject] = []
        for values in data.regions {
            let region = ManagedObject(entity: regionEntity, insertInto: context)
            region.setValue(values.name, forKey: "name")
            region.setValue(values.code, forKey: "code")
            regions.append(region)
        }
        var groups: [ManagedObject] = []
        for values in data.groups {
            let group = ManagedObject(entity: groupEntity, insertInto: context)
            group.setValue(values.name, forKey: "name")
            group.setValue(values.rank, forKey: "rank")
            group.setValue(values.score, forKey: "score")
            group.setValue(values.region.map { regions[$0] }, forKey: "region")
            groups.append(group)
        }
        var tags: [ManagedObject] = []
        for values in data.items {
            let item = ManagedObject(entity: itemEntity, insertInto: context)
            item.setValue(values.idx, forKey: "idx")
            item.setValue(values.i16, forKey: "i16")
            item.setValue(values.i32, forKey: "i32")
            item.setValue(values.i64, forKey: "i64")
            item.setValue(values.dbl, forKey: "dbl")
            item.setValue(values.flt, forKey: "flt")
            item.setValue(values.dec, forKey: "dec")
            item.setValue(values.str, forKey: "str")
            item.setValue(values.alt, forKey: "alt")
            item.setValue(values.flag, forKey: "flag")
            item.setValue(values.day, forKey: "day")
            item.setValue(values.group.map { groups[$0] }, forKey: "group")
            for index in values.tags {
                let tagValues = data.tags[index]
                let tag = ManagedObject(entity: tagEntity, insertInto: context)
                tag.setValue(tagValues.label, forKey: "label")
                tag.setValue(tagValues.weight, forKey: "weight")
                tag.setValue(tagValues.ratio, forKey: "ratio")
                tag.setValue(tagValues.amount, forKey: "amount")
                tag.setValue(item, forKey: "item")
                tags.append(tag)
            }
            if !values.links.isEmpty {
                item.setValue(Set(values.links.map { tags[$0] }), forKey: "links")
            }
        }
    }
}
