import Foundation
import Strata
import StrataTestSupport
import Testing

/// `#Predicate` and key-path sort descriptors, construct by construct: each `#Predicate` must
/// select the same objects as the format string Core Data's `NSPredicate(_: Predicate)`
/// conversion would produce, on both store kinds; what Strata cannot run is refused with an error
/// naming it.
@Suite("#Predicate translation")
struct PredicateMacroTests {
    /// A SQLite or in-memory stack holding the seeded members and teams.
    static func stack(_ kind: TestStack.Kind) throws -> (TestStack, ManagedObjectContext) {
        let stack = try TestStack(model: PredicateMacroFixture.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            PredicateMacroFixture.populate(context, count: 120, seed: 7)
            try context.save()
        }
        return (stack, context)
    }

    /// The serials (members) or names (teams) a request selects.
    static func rows<T: ManagedObject>(_ request: FetchRequest<T>, in context: ManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            try context.fetch(request).map { object in
                (object as? MacroMember).map { String($0.serial) } ?? (object as? MacroTeam)?.name ?? "?"
            }
        }
    }

    /// Checks that `predicate` selects what `format` selects, on both store kinds, and that it
    /// selects something and leaves something out (so the check means something).
    func expectSame<T: ManagedObject>(_ predicate: Predicate<T>, _ format: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for kind in TestStack.Kind.allCases {
            let (stack, context) = try Self.stack(kind)
            _ = stack
            let macro = try FetchRequest<T>(predicate: predicate)
            let plain = T.fetchRequest()
            plain.predicate = try ObjectPredicate(validatingFormat: format)
            let total = try Self.rows(T.fetchRequest(), in: context).count
            let expected = try Self.rows(plain, in: context)
            #expect(try Self.rows(macro, in: context) == expected, "\(kind): \(format)", sourceLocation: sourceLocation)
            #expect(!expected.isEmpty && expected.count < total, "\(kind): \(format) selects \(expected.count) of \(total)", sourceLocation: sourceLocation)
        }
    }

    // Core Data: NSPredicate(_: Predicate) turns comparisons of key paths with constants into
    // NSComparisonPredicates and &&, ||, ! into NSCompoundPredicates.
    @Test("comparisons, && || ! and Boolean key paths")
    func comparisonsAndLogic() throws {
        try expectSame(#Predicate<MacroMember> { $0.age > 30 && $0.name.starts(with: "A") }, "age > 30 AND name BEGINSWITH 'A'")
        try expectSame(#Predicate<MacroMember> { $0.age <= 10 || $0.age == 42 }, "age <= 10 OR age == 42")
        try expectSame(#Predicate<MacroMember> { !($0.age >= 18) }, "NOT age >= 18")
        try expectSame(#Predicate<MacroMember> { $0.age != 3 && $0.age < 60 }, "age != 3 AND age < 60")
        try expectSame(#Predicate<MacroMember> { $0.active }, "active == YES")
        try expectSame(#Predicate<MacroMember> { !$0.active && $0.name == "Ann" }, "active == NO AND name == 'Ann'")
    }

    // Core Data: string methods map to BEGINSWITH / CONTAINS; `collection.contains(x)` to IN;
    // a closed range's contains to BETWEEN (SwiftData documents the same operators).
    @Test("starts(with:), contains, IN and BETWEEN")
    func stringsAndCollections() throws {
        try expectSame(#Predicate<MacroMember> { $0.name.contains("nn") }, "name CONTAINS 'nn'")
        try expectSame(#Predicate<MacroMember> { ["Ann", "Bob"].contains($0.name) }, "name IN {'Ann', 'Bob'}")
        try expectSame(#Predicate<MacroMember> { (10...20).contains($0.age) }, "age BETWEEN {10, 20}")
        try expectSame(#Predicate<MacroMember> { $0.name.count > 3 }, "length:(name) > 3")
        try expectSame(#Predicate<MacroMember> { $0.name.isEmpty }, "length:(name) == 0")
    }

    // Core Data: arithmetic in a predicate is NSExpression's add:to:, from:subtract:,
    // multiply:by:, divide:by:.
    @Test("arithmetic")
    func arithmetic() throws {
        try expectSame(#Predicate<MacroMember> { $0.age * 2 - 3 > 50 }, "age * 2 - 3 > 50")
        try expectSame(#Predicate<MacroMember> { $0.age + 1 == 31 || -$0.age > 0 }, "age + 1 == 31 OR 0 - age > 0")
        try expectSame(#Predicate<MacroMember> { $0.score! / 2.0 > 0.5 }, "score / 2.0 > 0.5")
    }

    // Core Data: `x == nil` and `x != nil` test for a missing value; key paths through an
    // optional to-one (`$0.team?.name`) are key paths through the relationship, nil when it is.
    @Test("nil checks, optional chaining, ?? and !")
    func optionals() throws {
        try expectSame(#Predicate<MacroMember> { $0.nick == nil }, "nick == nil")
        try expectSame(#Predicate<MacroMember> { $0.nick != nil && $0.score == nil }, "nick != nil AND score == nil")
        try expectSame(#Predicate<MacroMember> { $0.team?.name == "Red" }, "team.name == 'Red'")
        try expectSame(#Predicate<MacroMember> { $0.team?.city == nil }, "team.city == nil")
        try expectSame(#Predicate<MacroMember> { ($0.nick ?? "none") == "none" }, "nick == nil")
        try expectSame(#Predicate<MacroMember> { $0.score! > 1.5 }, "score > 1.5")
        try expectSame(#Predicate<MacroMember> { ($0.age > 50 ? $0.name : "x") == "Ann" }, "age > 50 AND name == 'Ann'")
    }

    // Core Data: to-many key paths take ANY / ALL, `@count`, and SUBQUERY for a filtered count.
    @Test("to-many: count, isEmpty, contains(where:), allSatisfy, filter")
    func toMany() throws {
        try expectSame(#Predicate<MacroTeam> { $0.members.count > 24 }, "members.@count > 24")
        try expectSame(
            #Predicate<MacroTeam> { $0.members.contains(where: { $0.age > 60 && $0.name == "Bob" }) },
            "ANY members.age > 60 AND ANY members.name == 'Bob' AND SUBQUERY(members, $m, $m.age > 60 AND $m.name == 'Bob').@count > 0")
        try expectSame(#Predicate<MacroTeam> { !$0.members.allSatisfy { $0.age > -4 } }, "NOT ALL members.age > -4")
        try expectSame(#Predicate<MacroTeam> { $0.members.filter { $0.active }.count > 14 }, "SUBQUERY(members, $m, $m.active == YES).@count > 14")
        try expectSame(#Predicate<MacroTeam> { $0.city == "Oslo" && !$0.members.isEmpty }, "city == 'Oslo' AND members.@count > 0")
    }

    // Core Data: NSSortDescriptor(keyPath:ascending:) sorts by the key path's key; SwiftData's
    // SortDescriptor(\.name) likewise.
    @Test("key-path sort descriptors")
    func sortDescriptors() throws {
        #expect(try ObjectSortDescriptor(\MacroMember.age).key == "age")
        #expect(try ObjectSortDescriptor(\MacroMember.team, ascending: false).key == "team")
        #expect(try ObjectSortDescriptor(\MacroMember.team?.name).key == "team.name")
        #expect(try ObjectSortDescriptor(\MacroTeam.members).key == "members")
        #expect(throws: StrataError.self) { try ObjectSortDescriptor(\MacroTeam.city?.count) }
        for kind in TestStack.Kind.allCases {
            let (stack, context) = try Self.stack(kind)
            _ = stack
            let request = try FetchRequest<MacroMember>(
                predicate: #Predicate { $0.age > 40 },
                sortDescriptors: [ObjectSortDescriptor(\MacroMember.name, comparator: .caseInsensitive), ObjectSortDescriptor(\MacroMember.serial, ascending: false)])
            let plain = MacroMember.fetchRequest()
            plain.predicate = ObjectPredicate(format: "age > 40")
            plain.sortDescriptors = [ObjectSortDescriptor(key: "name", comparator: .caseInsensitive), ObjectSortDescriptor(key: "serial", ascending: false)]
            #expect(try Self.rows(request, in: context) == Self.rows(plain, in: context), "\(kind)")
        }
    }

    // SwiftData: a FetchDescriptor sorts by Foundation SortDescriptors (`SortDescriptor(\.name,
    // order: .reverse)`); their key path, order and string comparator carry over.
    @Test("Foundation SortDescriptors translate")
    func foundationSortDescriptors() throws {
        let reverse = try ObjectSortDescriptor(SortDescriptor(\MacroMember.age, order: .reverse))
        #expect(reverse.key == "age" && !reverse.ascending && reverse.comparator == .default)
        let lexical = try ObjectSortDescriptor(SortDescriptor(\MacroMember.name, comparator: .lexical))
        #expect(lexical.key == "name" && lexical.ascending && lexical.comparator == .default)
        let lexicalReverse = try ObjectSortDescriptor(SortDescriptor(\MacroMember.name, comparator: .lexical, order: .reverse))
        #expect(!lexicalReverse.ascending && lexicalReverse.comparator == .default)
        #expect(throws: StrataError.self) { try ObjectSortDescriptor(SortDescriptor(\MacroMember.label)) }
    }

    // Core Data: NSPredicate(_: Predicate) fails for expressions it cannot convert; Strata throws
    // a StrataError naming the construct instead of returning nil.
    @Test("unsupported constructs are refused by name")
    func refusals() {
        func message(_ body: () throws -> Void) -> String {
            do {
                try body()
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let division = message { _ = try ObjectPredicate(#Predicate<MacroMember> { $0.age / 2 > 3 }) }
        #expect(division.contains("#Predicate") && division.contains("IntDivision") && division.contains("not supported"), "\(division)")
        let remainder = message { _ = try ObjectPredicate(#Predicate<MacroMember> { $0.age % 2 == 0 }) }
        #expect(remainder.contains("IntRemainder"), "\(remainder)")
        let range = message { _ = try ObjectPredicate(#Predicate<MacroMember> { (1..<5).contains($0.age) }) }
        #expect(range.contains("Range") && range.contains("not supported"), "\(range)")
        let computed = message { _ = try ObjectPredicate(#Predicate<MacroMember> { $0.label == "Ann!" }) }
        #expect(computed.contains("no single @Attribute or @Relationship property"), "\(computed)")
        let first = message { _ = try ObjectPredicate(#Predicate<MacroTeam> { $0.members.first?.age == 3 }) }
        #expect(first.contains("collection property") && first.contains("not supported"), "\(first)")
        let stringProperty = message { _ = try ObjectPredicate(#Predicate<MacroMember> { $0.name.utf8.count == 3 }) }
        #expect(stringProperty.contains("String property"), "\(stringProperty)")
        #expect(throws: StrataError.self) { try FetchRequest<MacroMember>(predicate: #Predicate { $0.age / 2 > 3 }) }
    }

    // Core Data: NSPredicate and NSSortDescriptor can be built on any thread; so can their
    // translations (the probed keys are shared through a thread-safe memo).
    @Test("translations run on several threads at once")
    func concurrentTranslation() throws {
        let expected = try ObjectPredicate(#Predicate<MacroMember> { $0.age > 3 && $0.team?.name == "Red" }).predicateFormat
        let results = LockedList<String>([])
        let done = DispatchSemaphore(value: 0)
        let threads = (0..<4).map { _ in
            Thread {
                for _ in 0..<50 {
                    let format = (try? ObjectPredicate(#Predicate<MacroMember> { $0.age > 3 && $0.team?.name == "Red" }))?.predicateFormat ?? "error"
                    let sort = (try? ObjectSortDescriptor(\MacroTeam.city))?.key ?? "error"
                    results.append(format + " / " + sort)
                }
                done.signal()
            }
        }
        for thread in threads { thread.start() }
        for _ in threads { #expect(done.wait(timeout: .now() + 60) == .success, "a translating thread did not finish") }
        #expect(results.values.count == 200 && results.values.allSatisfy { $0 == expected + " / city" })
    }

    // Core Data: the converted predicate is an ordinary NSPredicate: it prints as a format string.
    @Test("a translated predicate prints as a format string")
    func printsAsFormat() throws {
        let predicate = try ObjectPredicate(#Predicate<MacroMember> { $0.age > 30 && $0.name.starts(with: "A") })
        #expect(predicate.predicateFormat == ObjectPredicate(format: "age > 30 AND name BEGINSWITH 'A'").predicateFormat)
        let chained = try ObjectPredicate(#Predicate<MacroMember> { $0.team?.name == "Red" })
        #expect(chained.predicateFormat == ObjectPredicate(format: "team.name == 'Red'").predicateFormat)
    }
}

/// A lock-protected array shared by the threads of a test.
private final class LockedList<Element>: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var storage: [Element]

    init(_ initial: [Element]) { storage = initial }

    func append(_ element: Element) { lock.withLock { storage.append(element) } }

    var values: [Element] { lock.withLock { storage } }
}
