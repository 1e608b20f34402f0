import Foundation
import Strata

/// What the predicate fuzzer checks for one input, shared by the libFuzzer target
/// (`make fuzz`) and the corpus regression test, so a saved crash input replays exactly.
///
/// For an input string (bytes decoded as UTF-8, invalid bytes replaced):
/// 1. `ObjectPredicate(validatingFormat:argumentArray:)` either throws a `StrataError` or
///    returns a predicate — never traps, whatever the input;
/// 2. a parsed predicate prints (`predicateFormat`) to text that parses again to an equal
///    predicate, and printing that gives the same text (the documented round trip);
/// 3. evaluating it in memory against a sample object, and fetching with it from an in-memory
///    and a SQLite store (binding, SQL compilation, both engines), throws or answers — never
///    traps; with `differential` the two stores must return the same objects;
/// 4. the same for `ObjectExpression(validatingFormat:)`.
public enum PredicateOracle {
    /// The arguments `%@`, `%K`, `%d`… take, in order (a format asking for more must throw).
    static var arguments: [Any] { ["name", Int64(31), "Ann", 2.5, ["a", "b"], Date(timeIntervalSinceReferenceDate: 0)] }

    /// A sample object for in-memory evaluation.
    static var sample: [String: Any] {
        [
            "name": "Ann", "age": Int64(31), "score": 2.5, "flag": true,
            "tags": ["a", "b", "c"], "nested": ["name": "Bo", "age": Int64(7)] as [String: Any],
        ]
    }

    /// Substitution variables.
    static var variables: [String: Any] { ["NAME": "Ann", "AGE": Int64(31), "LIST": [Int64(1), Int64(2)]] }

    /// Checks one input; returns a description of the violated property, or nil. Traps (the
    /// crashes the fuzzer looks for) happen inside, in Strata.
    public static func check(_ bytes: [UInt8], stores: FuzzStores?, differential: Bool = false) -> String? {
        let format = String(decoding: bytes, as: UTF8.self)
        if let problem = checkPredicate(format, stores: stores, differential: differential) { return problem }
        return checkExpression(format)
    }

    static func checkPredicate(_ format: String, stores: FuzzStores?, differential: Bool) -> String? {
        let predicate: ObjectPredicate
        do {
            predicate = try ObjectPredicate(validatingFormat: format, argumentArray: arguments)
        } catch is StrataError {
            return nil
        } catch {
            return "parsing threw \(type(of: error)), not a StrataError: \(error)"
        }
        let printed = predicate.predicateFormat
        let reparsed: ObjectPredicate
        do {
            reparsed = try ObjectPredicate(validatingFormat: printed, argumentArray: [])
        } catch {
            return "the printed form does not parse: \(printed.debugDescription) (from \(format.debugDescription)): \(error)"
        }
        if reparsed != predicate {
            return "printing then parsing changes the predicate: \(format.debugDescription) → \(printed.debugDescription) → \(reparsed.predicateFormat.debugDescription)"
        }
        if reparsed.predicateFormat != printed {
            return "printing is not stable: \(printed.debugDescription) → \(reparsed.predicateFormat.debugDescription)"
        }
        _ = try? predicate.evaluate(throwingWith: sample, substitutionVariables: variables)
        _ = try? predicate.substitutingVariables(variables)
        if let stores {
            let memory = stores.fetch(predicate, from: stores.memory)
            let sqlite = stores.fetch(predicate, from: stores.sqlite)
            if differential, let memory, let sqlite, memory != sqlite {
                return "the SQLite store and the in-memory store disagree on \(printed.debugDescription): \(sqlite) vs \(memory)"
            }
        }
        return nil
    }

    static func checkExpression(_ format: String) -> String? {
        let expression: ObjectExpression
        do {
            expression = try ObjectExpression(validatingFormat: format)
        } catch is StrataError {
            return nil
        } catch {
            return "parsing an expression threw \(type(of: error)), not a StrataError: \(error)"
        }
        _ = try? expression.expressionValue(with: sample)
        let printed = expression.description
        guard let reparsed = try? ObjectExpression(validatingFormat: printed) else {
            return "the printed expression does not parse: \(printed.debugDescription) (from \(format.debugDescription))"
        }
        if reparsed != expression {
            return "printing then parsing changes the expression: \(format.debugDescription) → \(printed.debugDescription) → \(reparsed.description.debugDescription)"
        }
        return nil
    }
}

/// An in-memory store and a SQLite store holding the same small set of items, for fetches.
public final class FuzzStores: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; contexts are used through performAndWait.
    let memory: ManagedObjectContext
    let sqlite: ManagedObjectContext
    private let directory: URL

    /// Creates both stores (the SQLite one in a new temporary folder).
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        memory = try Self.makeContext(type: .inMemory, url: nil)
        sqlite = try Self.makeContext(type: .sqlite, url: directory.appendingPathComponent("fuzz.sqlite"))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let tag = EntityDescription(name: "Tag")
        item.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "age", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "flag", type: .boolean, isOptional: false, defaultValue: false),
            AttributeDescription(name: "date", type: .date),
            AttributeDescription(name: "data", type: .binaryData),
            AttributeDescription(name: "amount", type: .decimal),
            RelationshipDescription(name: "tags", destination: tag, inverse: "items", toMany: true),
            RelationshipDescription(name: "parent", destination: item, inverse: "children"),
            RelationshipDescription(name: "children", destination: item, inverse: "parent", toMany: true),
        ]
        tag.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: item, inverse: "tags", toMany: true),
        ]
        return ManagedObjectModel(entities: [item, tag])
    }

    static func makeContext(type: StoreType, url: URL?) throws -> ManagedObjectContext {
        let model = model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            guard let itemEntity = model.entitiesByName["Item"], let tagEntity = model.entitiesByName["Tag"] else { return }
            let tags = ["a", "b", "Ä", ""].map { name -> ManagedObject in
                let tag = ManagedObject(entity: tagEntity, insertInto: context)
                tag.setValue(name, forKey: "name")
                return tag
            }
            let rows: [(String?, Int64, Double?, Bool)] = [
                ("Ann", 31, 2.5, true), ("bo", -4, nil, false), (nil, 0, -0.0, false), ("Çé", Int64.max, 1e300, true),
                ("", Int64.min, .nan, false), ("a%b_c", 7, 7, true),
            ]
            var previous: ManagedObject?
            for (index, row) in rows.enumerated() {
                let item = ManagedObject(entity: itemEntity, insertInto: context)
                item.setValue(row.0, forKey: "name")
                item.setValue(row.1, forKey: "age")
                item.setValue(row.2, forKey: "score")
                item.setValue(row.3, forKey: "flag")
                item.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400), forKey: "date")
                item.setValue(Data([UInt8(index), 0, 255]), forKey: "data")
                item.setValue(Decimal(index) / 3, forKey: "amount")
                item.setValue(previous, forKey: "parent")
                item.setValue(Set(tags.prefix(index % 4)), forKey: "tags")
                previous = item
            }
            try context.save()
        }
        return context
    }

    /// The names of the items matching `format` in each store (nil where the fetch throws), to
    /// check the fetches are really exercised.
    public func matches(_ format: String) -> (memory: [String]?, sqlite: [String]?) {
        let predicate = ObjectPredicate(format: format)
        return (fetch(predicate, from: memory), fetch(predicate, from: sqlite))
    }

    /// The names of the items matching `predicate`, sorted; nil when the fetch throws.
    func fetch(_ predicate: ObjectPredicate, from context: ManagedObjectContext) -> [String]? {
        context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = predicate
            guard let items = try? context.fetch(request) else { return nil }
            return items.map { ($0.value(forKey: "name") as? String) ?? "<nil>" }.sorted()
        }
    }
}
