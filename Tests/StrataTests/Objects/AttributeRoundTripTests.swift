import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Attribute types round-trip through the store")
struct AttributeRoundTripTests {
    struct Values: Sendable {
        var int16: Int16 = 0
        var int32: Int32 = 0
        var int64: Int64 = 0
        var decimal: Decimal?
        var double: Double = 0
        var float: Float = 0
        var string: String?
        var flag = false
        var date: Date?
        var data: Data?
        var uuid: UUID?
        var url: URL?
        var color: Color?
    }

    static let bigBlob = Data((0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    static let cases: [(String, Values)] = [
        (
            "minimums",
            Values(
                int16: .min, int32: .min, int64: .min, decimal: Decimal(string: "-99999999999999999999999999999999999999"), double: -.greatestFiniteMagnitude, float: -.greatestFiniteMagnitude,
                string: "", flag: false, date: Date(timeIntervalSince1970: -2_208_988_800), data: Data(), uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                url: URL(string: "file:///"), color: Color(red: 0, green: 0, blue: 0))
        ),
        (
            "maximums",
            Values(
                int16: .max, int32: .max, int64: .max, decimal: Decimal(string: "12345678901234567890.123456789012345678"), double: .greatestFiniteMagnitude, float: .greatestFiniteMagnitude,
                string: String(repeating: "long ✓ ", count: 200_000), flag: true, date: Date(timeIntervalSinceReferenceDate: 252_423_993_599), data: bigBlob, uuid: UUID(),
                url: URL(string: "https://example.org/a/b?c=d&e=%20#frag"), color: Color(red: 1, green: 0.5, blue: 0.25))
        ),
        ("special doubles", Values(double: .infinity, float: -.infinity, string: "e\u{301}mile 👩‍👩‍👧‍👦 ﷽", date: Date(timeIntervalSinceReferenceDate: -0.5))),
        ("negative zero", Values(decimal: Decimal(string: "0.000000000000000000000000000000000001"), double: -0.0, float: -0.0, string: "\u{0000}nul and \u{FFFF}")),
        ("nan", Values(double: .nan, float: .nan)),
    ]

    func store(_ values: Values, in context: ManagedObjectContext) {
        let sample = Sample(context: context)
        sample.name = "sample"
        sample.int16 = values.int16
        sample.int32 = values.int32
        sample.int64 = values.int64
        sample.decimal = values.decimal
        sample.double = values.double
        sample.float = values.float
        sample.string = values.string
        sample.flag = values.flag
        sample.date = values.date
        sample.data = values.data
        sample.uuid = values.uuid
        sample.url = values.url
        sample.color = values.color
    }

    func check(_ sample: Sample, _ values: Values) {
        #expect(sample.int16 == values.int16)
        #expect(sample.int32 == values.int32)
        #expect(sample.int64 == values.int64)
        #expect(sample.decimal == values.decimal)
        if values.double.isNaN {
            #expect(sample.double.isNaN)
        } else {
            #expect(sample.double == values.double)
            #expect(sample.double.sign == values.double.sign)
        }
        if values.float.isNaN {
            #expect(sample.float.isNaN)
        } else {
            #expect(sample.float == values.float)
            #expect(sample.float.sign == values.float.sign)
        }
        #expect(sample.string == values.string)
        #expect(sample.string?.unicodeScalars.elementsEqual(values.string?.unicodeScalars ?? "".unicodeScalars) ?? (values.string == nil))
        #expect(sample.flag == values.flag)
        #expect(sample.date == values.date)
        #expect(sample.data == values.data)
        #expect(sample.uuid == values.uuid)
        #expect(sample.url == values.url)
        #expect(sample.color == values.color)
    }

    @Test("save, close, reopen, fetch", arguments: TestStack.Kind.allCases)
    func roundTrip(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.allTypes(), kind: kind)
        // PostgreSQL text cannot hold U+0000: the PostgreSQL store refuses such a string with a
        // clear error (PostgreSQLStoreTests), so that case is left out there.
        for (label, values) in Self.cases where !(kind == .postgreSQL && values.string?.unicodeScalars.contains("\u{0}") == true) {
            let writer = stack.newContext(name: "writer")
            try writer.performAndWait {
                store(values, in: writer)
                try writer.save()
            }
            try stack.reopen()
            let reader = stack.newContext(name: "reader")
            try reader.performAndWait {
                // Without sort descriptors, results come in insertion (primary key) order.
                let all = try reader.fetch(FetchRequest<Sample>(entityName: "Sample"))
                let sample = try #require(all.last, "\(label)")
                check(sample, values)
            }
        }
    }

    @Test("a decimal with 38 significant digits compares numerically in the store")
    func decimalOrdering() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        let texts = ["10", "9.5", "-1", "0.000000000000000000000000000000000001", "99999999999999999999999999999999999999", "2"]
        try context.performAndWait {
            for text in texts {
                let sample = Sample(context: context)
                sample.decimal = Decimal(string: text)
            }
            try context.save()
            context.reset()
            let request = FetchRequest<Sample>(entityName: "Sample")
            request.sortDescriptors = [ObjectSortDescriptor(key: "decimal")]
            let sorted = try context.fetch(request).compactMap(\.decimal)
            #expect(sorted == texts.compactMap { Decimal(string: $0) }.sorted())
            request.predicate = ObjectPredicate(format: "decimal > %@", Decimal(9))
            #expect(try context.fetch(request).compactMap(\.decimal) == [Decimal(string: "9.5"), Decimal(10), Decimal(string: "99999999999999999999999999999999999999")].compactMap { $0 })
        }
    }

    @Test("transient attributes are tracked but never stored")
    func transientNotStored() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.scratch = "in memory only"
            #expect(sample.scratch == "in memory only")
            try context.save()
            #expect(sample.scratch == "in memory only")
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let sample = try #require(try reader.fetch(FetchRequest<Sample>(entityName: "Sample")).first)
            #expect(sample.scratch == nil)
            sample.scratch = "set on a fetched object"
            #expect(sample.scratch == "set on a fetched object")
            // Tracked as a change (the object is updated) but, as in Core Data, not one of the
            // persistent changed values.
            #expect(sample.isUpdated)
            #expect(sample.changedValues()["scratch"] == nil)
        }
    }

    @Test("transient attributes work on faults and on fetched objects, with their defaults", arguments: TestStack.Kind.allCases)
    func transientsOnFetchedObjects(kind: TestStack.Kind) throws {
        let model = ModelFixtures.allTypes()
        if let scratch = model.entitiesByName["Sample"]?.attributesByName["scratch"] { scratch.defaultValue = "default" }
        let stack = try TestStack(model: model, kind: kind)
        let writer = stack.newContext()
        let id = try writer.performAndWait {
            let sample = Sample(context: writer)
            #expect(sample.scratch == "default")
            try writer.save()
            return sample.objectID
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let materialized = FetchRequest<Sample>(entityName: "Sample")
            materialized.returnsObjectsAsFaults = false
            let fetched = try #require(try reader.fetch(materialized).first)
            #expect(fetched.scratch == "default")
            fetched.scratch = "changed"
            #expect(fetched.scratch == "changed")
        }
        let other = stack.newContext()
        try other.performAndWait {
            let fault = try #require(other.object(with: id) as? Sample)
            #expect(fault.isFault)
            #expect(fault.scratch == "default")
            fault.scratch = "changed too"
            #expect(fault.scratch == "changed too")
            let asFault = try #require(try other.fetch(FetchRequest<Sample>(entityName: "Sample")).first)
            #expect(asFault === fault)
        }
        let third = stack.newContext()
        try third.performAndWait {
            let fault = try #require(try third.fetch(FetchRequest<Sample>(entityName: "Sample")).first)
            #expect(fault.isFault)
            fault.scratch = "on a fetched fault"
            #expect(fault.scratch == "on a fetched fault")
        }
    }
}
